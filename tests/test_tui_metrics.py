"""The metrics view in a minimal host app: live numbers from another connection, Enter on
a confusion cell or a flip, the exclude-flagged toggle, and snapshots at 80x24 / 120x40.

Runs A and B are the hand-checked ones of test_scoring (demo claims 1-12).
"""

from __future__ import annotations

import pytest
from textual.app import App
from textual.widgets import DataTable, Input

from store import Prediction, Store
from tests.support.scoring import RUN_A, RUN_B, make_run
from tests.support.tui import until
from tests.support.tui_metrics import Host, panel_text, settle_view, settled
from workbench.tui.screens.metrics.screen import MetricsScreen
from workbench.tui.screens.metrics.tables import ConfusionTable


@pytest.fixture
def runs(demo_store):
    a = make_run(demo_store, "A", 1, range(1, 13), RUN_A)
    b = make_run(demo_store, "B", 1, range(1, 13), RUN_B)
    demo_store.annotations.flag([1, 5, 8], "contaminated")
    return a, b


async def test_answers_from_another_connection_update_the_numbers(runs, db_path):
    run_a, _ = runs
    app = Host(db_path, [run_a.id], ["importance"])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        await until(pilot, lambda: settled(screen))
        assert screen.update.runs[0].overall.scored == 9
        assert "0.667" in panel_text(screen)  # accuracy 6/9
        # "Another terminal": a second connection answers claims 10 (missing) and 6 (an error).
        other = Store.open(db_path)
        other.runs.record(Prediction(run_id=run_a.id, claim_id=10, status="ok", verdict="Refuted"))
        other.runs.record(Prediction(run_id=run_a.id, claim_id=6, status="ok", verdict="Supported"))
        other.close()
        await until(pilot, lambda: screen.update.runs[0].overall.scored == 11)
        overall = screen.update.runs[0].overall
        assert overall.accuracy == pytest.approx(8 / 11)
        assert overall.coverage == 1.0 and overall.missing == 0 and overall.errors == 0
        sub = screen.update.runs[0].slices["Sub"]  # 2, 3, 6, 8, 10: right 2, 6, 10
        assert (sub.scored, sub.correct) == (5, 3)
        text = panel_text(screen)
        assert "0.727" in text and "11/11" in text
        # The intervals catch up with the new numbers.
        await until(pilot, lambda: settled(screen))
        assert "updating" not in panel_text(screen)
        ci = screen.intervals.runs[0].overall["accuracy"]
        assert ci.estimate == pytest.approx(8 / 11) and ci.low <= 8 / 11 <= ci.high


async def test_panels_fit_the_window_again_after_a_resize(runs, db_path):
    app = Host(db_path, [r.id for r in runs], ["importance"])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        await until(pilot, lambda: settled(screen))
        wide = max(len(line) for line in panel_text(screen, "#class-panel").splitlines())
        await pilot.resize_terminal(wide - 6, 40)
        panel = screen.query_one("#class-panel")
        await until(
            pilot,
            lambda: (
                panel.content_size.width < wide - 6
                and max(len(line) for line in panel_text(screen, "#class-panel").splitlines())
                <= panel.content_size.width
            ),
        )
        assert panel_text(screen, "#class-panel").splitlines()[0].rstrip().endswith("n")  # laid out again, not cut


async def test_enter_on_a_confusion_cell_opens_its_claims(runs, db_path):
    run_a, _ = runs
    app = Host(db_path, [run_a.id])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        await until(pilot, lambda: settled(screen))
        table = screen.query_one(ConfusionTable)
        table.focus()
        # Row Supported, column <parse failure> (after the gold column and three classes).
        table.move_cursor(row=0, column=4)
        await pilot.press("enter")
        await until(pilot, lambda: app.shown)
        assert app.shown == ["run:A label:Supported status:parse_failure"]
        table.move_cursor(row=1, column=1)  # gold Refuted, predicted Supported: claim 8
        await pilot.press("enter")
        await until(pilot, lambda: len(app.shown) == 2)
        assert app.shown[1] == "run:A label:Refuted verdict:Supported"
        check = Store.open(db_path)
        assert check.claims.ids(app.shown[1]) == [8]  # the filter picks out exactly that cell
        check.close()


async def test_exclude_flagged_shows_both_sets_of_numbers(runs, db_path):
    run_a, _ = runs
    app = Host(db_path, [run_a.id], ["importance"])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        await until(pilot, lambda: settled(screen))
        assert "w/o contaminated" not in panel_text(screen)
        await pilot.press("x")
        await until(pilot, lambda: settled(screen) and screen.update.config.exclude)
        numbers = screen.update.runs[0]
        assert numbers.overall.macro_f1 == pytest.approx(44 / 63)
        assert numbers.filtered.macro_f1 == pytest.approx(7 / 9)
        assert numbers.filtered_slices["Main"].scored == 2
        text = panel_text(screen)
        assert "w/o contaminated" in text and "0.698" in text and "0.778" in text
        assert "3 flagged" in panel_text(screen, "#metrics-header")
        # The breakdown table grows the columns without the flagged claims.
        breakdown = screen.query_one("#breakdown", DataTable)
        assert "macro-F1 w/o" in [str(c.label) for c in breakdown.columns.values()]
        await pilot.press("x")
        await until(pilot, lambda: settled(screen) and not screen.update.config.exclude)
        assert "w/o contaminated" not in panel_text(screen)


async def test_a_flip_row_opens_the_flipped_claims_and_b_cycles_fields(runs, db_path):
    run_a, run_b = runs
    app = Host(db_path, [run_a.id, run_b.id], ["importance"])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        await until(pilot, lambda: settled(screen))
        compare = panel_text(screen, "#compare-panel")
        assert "7 shared items" in compare and "McNemar b=1 c=2" in compare and "CoR 0.667" in compare
        assert "paired p=" in compare
        flips = screen.query_one("#flips", DataTable)
        flips.focus()
        flips.move_cursor(row=1)
        await pilot.press("enter")
        await until(pilot, lambda: app.shown)
        assert app.shown == ["run:A wrong run:B right"]
        # b moves the breakdown to the next field (task: the demo claims have none).
        await pilot.press("b")
        await until(pilot, lambda: settled(screen) and screen.update.field_name == "task")
        assert list(screen.update.runs[0].slices) == ["(none)"]


async def test_the_cutoff_split_takes_a_typed_date(runs, db_path):
    run_a, _ = runs
    app = Host(db_path, [run_a.id], ["cutoff"])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        await until(pilot, lambda: screen.update is not None)
        assert screen.update.field_name is None  # no date yet: no split
        screen.query_one("#cutoff", Input).focus()
        await pilot.press(*"2025-13-01", "enter")
        await until(pilot, lambda: any("not a date" in n.message for n in app._notifications))
        screen.query_one("#cutoff", Input).value = "2025-01-01"
        await pilot.press("enter")
        await until(pilot, lambda: settled(screen) and screen.update.field_name == "cutoff")
        slices = screen.update.runs[0].slices
        assert slices["before"].accuracy == pytest.approx(2 / 4)
        assert slices["after"].accuracy == pytest.approx(4 / 5)


async def test_without_show_claims_the_view_says_the_filter(runs, db_path):
    run_a, _ = runs

    class Bare(App):
        def on_mount(self) -> None:
            self.push_screen(MetricsScreen(db_path, [run_a.id], poll_seconds=0.05, resamples=0))

    app = Bare()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await until(pilot, lambda: screen.update is not None)
        table = screen.query_one(ConfusionTable)
        table.focus()
        table.move_cursor(row=0, column=1)
        await pilot.press("enter")
        await until(
            pilot, lambda: any("run:A label:Supported verdict:Supported" in n.message for n in app._notifications)
        )


# ---- snapshots -------------------------------------------------------------------------------


def snapshot_host(db_path, run_ids):
    return Host(db_path, run_ids, ["importance"])


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_snapshot_metrics_view(snap_compare, runs, db_path, size):
    app = snapshot_host(db_path, [r.id for r in runs])
    assert snap_compare(app, terminal_size=size, run_before=settle_view())


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_snapshot_metrics_view_without_flagged(snap_compare, runs, db_path, size):
    app = snapshot_host(db_path, [r.id for r in runs])
    assert snap_compare(app, terminal_size=size, run_before=settle_view("x"))


async def test_hostile_names_show_as_typed(demo_store, db_path):
    from tests.support.tui import HOSTILE

    run = make_run(demo_store, HOSTILE, 1, range(1, 5), {1: ("ok", "Refuted"), 2: ("ok", "Supported")})
    app = Host(db_path, [run.id], ["importance"])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        await until(pilot, lambda: settled(screen))
        header = panel_text(screen, "#metrics-header")
        assert "[bold]x[/" in header and "\\x1b[2J" in header and "\x1b" not in header
        assert "[bold]x[/ \\x1b[2J [link" in panel_text(screen)  # cut to fit, still literal


def test_enter_on_a_gold_label_opens_that_whole_confusion_row():
    from workbench.metrics import summarise
    from workbench.tui.screens.metrics.tables import confusion_filter

    summary = summarise(["Supported", "Refuted"], ["Refuted", "Refuted"], ["Supported", "Refuted"])
    assert confusion_filter("r1", summary, 0, -1) == "run:r1 label:Supported predicted -status:error"
    assert confusion_filter("r1", summary, 0, 1) == "run:r1 label:Supported verdict:Refuted"
