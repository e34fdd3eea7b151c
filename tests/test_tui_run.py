"""Item 4: run a model from the selection — the dialog, the prompt preview, a real GGUF run, cancel."""

from __future__ import annotations

import asyncio

import pytest

from tests.support.tui import make_app, open_dialog_on_server, rendered, settle, until
from workbench.tui.screens.detail import ClaimDetailScreen
from workbench.tui.screens.run_dialog import RunDialog
from workbench.tui.widgets.run_status import RunStatus
from workbench.tui.widgets.verdicts import VerdictList


async def test_the_dialog_previews_the_exact_prompt_for_the_highlighted_claim(demo_store, db_path):
    claim_id = demo_store.claims.ids("has:pages has:response")[0]
    claim = demo_store.claims.get(claim_id)
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        app.browser.table.jump_to(claim_id)
        await settle(pilot, app)
        await pilot.press("r")
        await settle(pilot, app)
        assert isinstance(app.screen, RunDialog)
        preview = rendered(app.screen.query_one("#run-preview"))
        assert "── system ──" in preview and "── user ──" in preview and claim.text in preview
        app.screen.query_one("#run-setting").value = "claim+time+full"
        await settle(pilot, app)
        preview = rendered(app.screen.query_one("#run-preview"))
        cited = next(e for e in claim.evidence if e.is_cited)
        assert cited.passage in preview and claim.reference_time in preview
        # A setting the claim cannot fill says why, before anything runs.
        app.screen.query_one("#run-setting").value = "claim+qa"
        await settle(pilot, app)
        assert "cannot render this claim" in rendered(app.screen.query_one("#run-preview"))
        await pilot.press("escape")
        assert not isinstance(app.screen, RunDialog)


async def test_a_setup_problem_is_shown_in_the_dialog(demo_store, db_path):
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("r")
        await settle(pilot, app)
        app.screen.query_one("#run-model-kind").value = "gguf"
        await settle(pilot, app)
        app.screen.query_one("#run-model-name").value = "/no/such/model.gguf"
        await pilot.press("ctrl+s")
        await settle(pilot, app)
        assert isinstance(app.screen, RunDialog)
        assert "model.gguf" in rendered(app.screen.query_one("#run-error"))
        assert demo_store.runs.list() == []


@pytest.mark.slow
async def test_a_real_gguf_run_on_two_marked_claims_lands_in_table_and_detail(demo_store, db_path):
    ids = demo_store.claims.ids("dataset:demo")[:2]
    app = make_app(db_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        await pilot.press("space", "space", "r")
        await settle(pilot, app)
        assert app.screen.query_one("#scope-marked").value
        await pilot.press("ctrl+s")
        await until(pilot, lambda: not isinstance(app.screen, RunDialog))
        await settle(pilot, app)  # waits for the run worker too
        run = demo_store.runs.list()[0]
        progress = demo_store.runs.progress(run.id)
        assert progress.total == 2 and progress.done + progress.error == 2
        status = app.browser.query_one(RunStatus)
        assert "2/2" in rendered(status) and "finished" in rendered(status)
        table = app.browser.table
        assert run.id in table.query.run_ids
        for row in table.window.rows[:2]:
            assert row.verdicts[run.id][0] in ("ok", "abstain", "parse_failure", "error")
        table.jump_to(ids[0])
        await settle(pilot, app)
        await pilot.press("enter", "v")
        await settle(pilot, app)
        assert isinstance(app.screen, ClaimDetailScreen)
        assert any(o.id == str(run.id) for o in app.screen.query_one(VerdictList).options)


@pytest.mark.slow
async def test_cancel_stops_a_run_and_keeps_what_finished(demo_store, db_path):
    total = demo_store.claims.count("dataset:demo")
    app = make_app(db_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        app.show_claims("dataset:demo")
        await settle(pilot, app)
        await pilot.press("r")
        await settle(pilot, app)
        app.screen.query_one("#scope-filter").value = True
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.runs.active)
        await pilot.press("K")
        await settle(pilot, app)
        run = demo_store.runs.list()[0]
        assert run.status == "cancelled"
        progress = demo_store.runs.progress(run.id)
        assert progress.total == total and progress.done < total
        assert app.runs.state.status == "cancelled"
        assert not app.runs.active


async def test_the_dialogs_options_reach_the_run_and_a_bad_one_is_named(demo_store, db_path):
    from tests.loopback_servers import LoopbackServer

    claim_id = demo_store.claims.ids("dataset:demo")[0]
    app = make_app(db_path)
    with LoopbackServer("openai") as server:
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot, app)
            app.browser.table.jump_to(claim_id)
            await settle(pilot, app)
            dialog = await open_dialog_on_server(pilot, app, server.url)
            dialog.query_one("#run-options").value = "concurrency=0"
            await pilot.press("ctrl+s")
            await settle(pilot, app)
            assert "concurrency must be a whole number of at least 1" in rendered(dialog.query_one("#run-error"))
            dialog.query_one("#run-options").value = "concurrency=2 temperature=0.5 max_tokens=64"
            await pilot.press("ctrl+s")
            await until(pilot, lambda: server.answer_arrivals() and not app.runs.active)
            await settle(pilot, app)
        run = demo_store.runs.list()[0]
        assert (run.params["temperature"], run.params["max_tokens"]) == (0.5, 64)
        sent = server.answer_arrivals()[0].body
        assert sent["temperature"] == 0.5 and sent["max_tokens"] == 64


async def test_the_dialog_will_not_send_claims_a_batch_holds(store, db_path, tmp_path):
    from click.testing import CliRunner

    from tests.loopback_servers import LoopbackServer
    from tests.run_fixtures import many_claims, write_mini
    from workbench.cli import main
    from workbench.importers import import_file

    import_file(store, write_mini(tmp_path, many_claims(6), name="many"), "jsonl")
    with LoopbackServer("openai") as server:
        server.batches.hold = True
        args = [
            "--db",
            str(db_path),
            "run",
            "--model",
            "openai-compatible:loop",
            "--base-url",
            server.url,
            "--name",
            "held",
            "--batch",
        ]
        submitted = await asyncio.to_thread(CliRunner().invoke, main, args)  # the CLI runs its own loop
        assert submitted.exit_code == 0, submitted.output
        app = make_app(db_path)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot, app)
            dialog = await open_dialog_on_server(pilot, app, server.url)
            dialog.query_one("#scope-filter").value = True
            await settle(pilot, app)
            await pilot.press("ctrl+s")
            await until(pilot, lambda: "waits on batch" in rendered(dialog.query_one("#run-error")))
            assert isinstance(app.screen, RunDialog)  # still open, saying why
        assert not server.answer_arrivals()


async def test_the_dialog_starts_a_search_run(demo_store, db_path):
    from tests.loopback_servers import LoopbackServer, ToolUse

    def agent(body):
        if any(m.get("role") == "tool" for m in body["messages"]):
            return '{"verdict": "Refuted", "explanation": "The trial says otherwise."}'
        return ToolUse([("search", {"query": "vitamin D trial"})])

    claim_id = demo_store.claims.ids("dataset:demo")[0]
    app = make_app(db_path)
    with LoopbackServer("openai", answer=agent) as server:
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot, app)
            app.browser.table.jump_to(claim_id)
            await settle(pilot, app)
            dialog = await open_dialog_on_server(pilot, app, server.url)
            dialog.query_one("#run-search").value = "fts"
            dialog.query_one("#run-options").value = "max_steps=3"
            await pilot.press("ctrl+s")
            await until(pilot, lambda: len(server.answer_arrivals()) >= 2 and not app.runs.active)
            await settle(pilot, app)
        assert server.answer_arrivals()[0].body["tools"]
    run = demo_store.runs.list()[0]
    assert (run.params["search"], run.params["max_steps"]) == ("fts", 3)
    steps = demo_store.search.trajectory(run.id, claim_id)
    assert [s.kind for s in steps] == ["search", "answer"] and steps[0].query == "vitamin D trial"
