"""The flips view: every claim whose verdict flips between a base run and another, grouped,
filterable, read beside the gold label, reopened by the command line it shows."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from textual.widgets import DataTable, Static

from store import Prediction, Run
from tests.support.tui import make_app, rendered, settle, until
from workbench.cli import main
from workbench.tui.screens.detail import ClaimDetailScreen
from workbench.tui.screens.flips import FlipsScreen

LABELS = ("Supported", "Refuted", "NotEnoughInfo")


def _run(store, name, right_questions):
    """A run on the demo's 24 claims (6 questions of 4): right on the claims of `right_questions`."""
    run = store.runs.create(Run(name=name, dataset_id=1, model=f"m-{name}"), list(range(1, 25)))
    for claim_id in range(1, 25):
        gold = store.claims.get(claim_id).label
        right = (claim_id - 1) // 4 + 1 in right_questions
        verdict = gold if right else next(label for label in LABELS if label != gold)
        store.runs.record(
            Prediction(
                run_id=run.id,
                claim_id=claim_id,
                status="ok",
                verdict=verdict,
                explanation=f"{name} reasons about claim {claim_id} [bold]literally[/bold]",
            )
        )


@pytest.fixture
def flips_db(demo_store, db_path):
    _run(demo_store, "base", {1, 2, 3})
    _run(demo_store, "other", {2, 3, 4})
    return db_path


def _claims_in_table(screen) -> list[int]:
    return [claim_id for claim_id in screen._row_claims if claim_id is not None]


async def test_the_flips_are_compares_grouped_and_read_beside_the_gold_label(flips_db):
    from store import Store
    from workbench.scoring.compare import compare_runs

    store = Store.open(flips_db)
    expected = compare_runs(store, "base", "other", resamples=0).full
    store.close()
    app = make_app(flips_db, compare=("base", "other", ""))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, FlipsScreen)
        assert _claims_in_table(screen) == expected.right_to_wrong + expected.wrong_to_right
        header = rendered(screen.query_one("#flips-header"))
        assert f"{len(expected.right_to_wrong)} right→wrong" in header and "base (base) → other" in header
        table = screen.query_one(DataTable)
        assert str(table.get_row_at(0)[-1]) == f"right → wrong: {len(expected.right_to_wrong)} claims"
        pane = rendered(screen.query_one("#flips-claim", Static))
        first = expected.right_to_wrong[0]
        assert f"base reasons about claim {first} [bold]literally[/bold]" in pane and "gold" in pane
        await pilot.press("j")
        await settle(pilot, app)
        assert f"claim {expected.right_to_wrong[1]} " in rendered(screen.query_one("#flips-claim", Static))
        command = rendered(screen.query_one("#flips-command"))
        assert command.endswith("tui --compare base other")
        await pilot.press("enter")
        await settle(pilot, app)
        assert isinstance(app.screen, ClaimDetailScreen)


async def test_a_filter_narrows_the_flips_and_goes_into_the_command_line(flips_db):
    app = make_app(flips_db, compare=("base", "other", ""))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        everything = _claims_in_table(screen)
        await pilot.press("slash")
        for key in "label:Refuted":
            await pilot.press(key)
        await pilot.press("enter")
        await settle(pilot, app)
        await until(pilot, lambda: screen.flips is not None and screen.flips.filter_text == "label:Refuted")
        narrowed = _claims_in_table(screen)
        assert narrowed and set(narrowed) < set(everything)
        from store import Store

        store = Store.open(flips_db)
        assert all(store.claims.get(i).label == "Refuted" for i in narrowed)
        store.close()
        assert rendered(screen.query_one("#flips-command")).endswith("--compare base other --where label:Refuted")


async def test_f_in_the_metrics_of_two_runs_opens_the_flips(flips_db):
    from workbench.tui.screens.metrics.screen import MetricsScreen

    app = make_app(flips_db)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        from store import Store

        store = Store.open(flips_db)
        ids = [store.runs.get("base").id, store.runs.get("other").id]
        store.close()
        app.push_screen(MetricsScreen(flips_db, ids, poll_seconds=0))
        await settle(pilot, app)
        await until(pilot, lambda: app.screen.update is not None)
        await pilot.press("f")
        await settle(pilot, app)
        assert isinstance(app.screen, FlipsScreen)
        assert (app.screen.base, app.screen.other) == ("base", "other")


def test_the_command_line_refuses_an_unknown_run_before_taking_the_terminal(flips_db):
    result = CliRunner().invoke(main, ["--db", str(flips_db), "tui", "--compare", "base", "nope"])
    assert result.exit_code == 1 and "no run 'nope'" in result.output
    result = CliRunner().invoke(main, ["--db", str(flips_db), "tui", "--where", "label:Refuted"])
    assert result.exit_code != 0 and "--where goes with --compare" in result.output


def test_snapshot_flips_80x24(snap_compare, flips_db, monkeypatch):
    monkeypatch.chdir(flips_db.parent)  # the command line shown names the database as opened: here, the same each run

    async def run_before(pilot) -> None:
        # The flips are read after the browser's first page: on a busy machine, later than
        # one settle waits for.
        await until(pilot, lambda: isinstance(pilot.app.screen, FlipsScreen) and pilot.app.screen.flips is not None)
        await settle(pilot, pilot.app)

    app = make_app(Path(flips_db.name), compare=("base", "other", ""))
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
