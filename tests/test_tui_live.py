"""Item 4 (live): another connection's writes show up — the app polls PRAGMA data_version."""

from __future__ import annotations

from store import Store
from tests.support.tui import add_run, make_app, rendered, settle, until, wrong_label
from workbench.tui.screens.detail import ClaimDetailScreen
from workbench.tui.widgets.verdicts import VerdictList


async def test_a_run_written_by_another_process_appears_in_the_table(demo_store, db_path):
    ids = demo_store.claims.ids("dataset:demo -label:Unclear -label:Unevaluable")[:3]
    app = make_app(db_path, poll_seconds=0.05)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        table = app.browser.table
        assert table.query.run_ids == ()
        # "Another terminal": a separate connection (as a CLI run would have) commits answers.
        other = Store.open(db_path)
        run = add_run(other, "from-cli", {i: ("ok", other.claims.get(i).label) for i in ids})
        other.close()
        await until(pilot, lambda: run.id in table.query.run_ids and bool(table.window.rows[0].verdicts))
        assert table.window.rows[0].verdicts[run.id] == ("ok", demo_store.claims.get(ids[0]).label)
        assert "from-cli" in rendered(app.browser.query_one("#status"))


async def test_the_open_detail_refreshes_when_an_answer_lands(demo_store, db_path):
    claim_id = demo_store.claims.ids("dataset:demo -label:Unclear")[0]
    app = make_app(db_path, poll_seconds=0.05)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        await pilot.press("enter", "v")
        await settle(pilot, app)
        assert isinstance(app.screen, ClaimDetailScreen)
        verdicts = app.screen.query_one(VerdictList)
        assert [o.id for o in verdicts.options] == ["gold", "none"]
        other = Store.open(db_path)
        gold = other.claims.get(claim_id).label
        add_run(other, "late", {claim_id: ("ok", wrong_label(gold))})
        other.close()
        await until(pilot, lambda: len(verdicts.options) == 2 and verdicts.options[1].id != "none")
        assert "✗" in verdicts.options[1].prompt.plain


async def test_flags_from_another_connection_show_without_a_keypress(demo_store, db_path):
    app = make_app(db_path, poll_seconds=0.05)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        table = app.browser.table
        first = table.window.rows[0].id
        other = Store.open(db_path)
        other.annotations.flag([first], "contaminated", source="pipeline", model="m", metric="meteor")
        other.close()
        await until(pilot, lambda: table.window.rows[0].flags == ["contaminated"])


async def test_a_run_started_here_becomes_the_first_verdict_column(demo_store, db_path):
    from tests.support.tui import add_run as record_run

    ids = demo_store.claims.ids("dataset:demo -label:Unclear -label:Unevaluable")[:2]
    older = record_run(demo_store, "older", {ids[0]: ("ok", "Refuted")})
    app = make_app(db_path, poll_seconds=0.05)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        browser = app.browser
        assert browser.table.query.run_ids == (older.id,)
        other = Store.open(db_path)
        newer = record_run(other, "newer", {ids[1]: ("ok", "Supported")})
        other.close()
        # Default columns follow the newest runs, so a new run appears without asking.
        await until(pilot, lambda: browser.table.query.run_ids == (newer.id, older.id))
        browser.show_run(older.id)
        app.load_catalogue()
        await until(pilot, lambda: browser.table.query.run_ids == (older.id, newer.id))
        assert browser.focus_run.name == "older"


async def test_a_cli_run_gets_a_column_even_after_runs_were_chosen(demo_store, db_path):
    from workbench.tui.widgets.columns import run_titles

    ids = demo_store.claims.ids("dataset:demo -label:Unclear -label:Unevaluable")[:2]
    first = add_run(demo_store, "smol-a", {ids[0]: ("ok", "Refuted")})
    app = make_app(db_path, poll_seconds=0.05)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        browser = app.browser
        browser.choose_runs([first.id])  # what v (or a run started here) does
        browser.refresh_run_columns()
        await until(pilot, lambda: browser.table.query.run_ids == (first.id,))
        other = Store.open(db_path)
        later = add_run(other, "smol-b", {ids[1]: ("ok", "Supported")})
        other.close()
        await until(pilot, lambda: browser.table.query.run_ids == (first.id, later.id))
        assert browser.focus_run.id == first.id  # the focus run stays the chosen one
        # Two names that start alike get their run ids as column titles, not "smo" twice.
        assert browser.table.run_titles == run_titles([first, later]) == [f"#{first.id}", f"#{later.id}"]
