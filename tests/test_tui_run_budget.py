"""The TUI honours a run's stored budget (--max-cost): the run dialog continues an
unfinished budgeted run under its budget and says so, as `run --resume` does. A priced
OpenAI-compatible model on a loopback server."""

from __future__ import annotations

import asyncio

import pytest
from click.testing import CliRunner

from tests.loopback_servers import Fault, LoopbackServer
from tests.support.prices import USAGE, dear_prices, priced_claims
from tests.support.tui import make_app, open_dialog_on_server, rendered, settle, until
from workbench.cli import main
from workbench.tui.screens.run_dialog import RunDialog


@pytest.fixture
def priced_db(store, db_path, tmp_path, monkeypatch):
    priced_claims(store, tmp_path, monkeypatch)
    dear_prices(tmp_path, "openai-compatible:loop")
    return db_path


async def budgeted_run(db_path, server, max_cost: str):
    """`run ... --max-cost` from the command line, every claim failing: nothing spent, the
    budget kept with the unfinished run."""
    args = ["--db", str(db_path), "run", "--model", "openai-compatible:loop", "--base-url", server.url]
    args += ["--concurrency", "1", "--param", "max_tokens=100", "--param", "attempts=1", "--max-cost", max_cost]
    server.faults.extend([Fault.status_code(400)] * 12)
    result = await asyncio.to_thread(CliRunner().invoke, main, args)  # the CLI runs its own loop
    assert result.exit_code == 1 and not server.answer_arrivals(), result.output


async def continue_in_dialog(pilot, app, server) -> RunDialog:
    """The same configuration in the run dialog, over every claim (continues that run)."""
    await settle(pilot, app)
    dialog = await open_dialog_on_server(pilot, app, server.url)
    dialog.query_one("#scope-filter").value = True
    dialog.query_one("#run-options").value = "concurrency=1 max_tokens=100 attempts=1"
    await settle(pilot, app)
    await pilot.press("ctrl+s")
    return dialog


async def test_the_dialog_continues_a_budgeted_run_under_its_budget_and_says_so(store, priced_db):
    with LoopbackServer("openai", usage=USAGE) as server:
        await budgeted_run(priced_db, server, "0.40")
        app = make_app(priced_db)
        async with app.run_test(size=(100, 30)) as pilot:
            await continue_in_dialog(pilot, app, server)
            await until(pilot, lambda: server.answer_arrivals() and not app.runs.active)
            await settle(pilot, app)
            said = " ".join(n.message for n in app._notifications)
            assert "goes on under the budget it keeps: $0.40 ($0 spent so far)" in said
            assert app.runs.state.status == "cancelled" and "of $0.40" in (app.runs.state.message or "")
        answered = len(server.answer_arrivals())
        assert 0 < answered < 12 and answered * 0.035 <= 0.40  # stopped at the budget, not at the end
        (run,) = store.runs.list()
        assert run.max_cost == 0.40 and store.runs.pending_claim_ids(run.id)


async def test_a_budget_too_small_for_one_request_is_said_in_the_dialog(store, priced_db):
    with LoopbackServer("openai", usage=USAGE) as server:
        await budgeted_run(priced_db, server, "0.40")
        (run,) = store.runs.list()
        store.runs.set_max_cost(run.id, 0.00001)  # as a run kept from an older, smaller --max-cost
        app = make_app(priced_db)
        async with app.run_test(size=(100, 30)) as pilot:
            dialog = await continue_in_dialog(pilot, app, server)
            await until(pilot, lambda: "remaining budget" in rendered(dialog.query_one("#run-error")))
            assert isinstance(app.screen, RunDialog) and not app.runs.active
        assert not server.answer_arrivals()
