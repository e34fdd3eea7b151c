"""Issue 33, item 14 in the TUI at 80x24: the claims browser's status line keeps the focus run
once rows are marked (the position and the sort give way first)."""

from __future__ import annotations

import re

from tests.support.tui import add_run, make_app, settle
from workbench.tui.status_line import BrowserState, status_line


async def test_the_status_line_keeps_the_focus_run_once_rows_are_marked(demo_store, db_path):
    ids = demo_store.claims.ids("dataset:demo -label:Unclear -label:Unevaluable")
    run = add_run(demo_store, "smollm2-claim-time-pages-2", {i: ("ok", "Refuted") for i in ids[:3]})
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        for _ in range(12):
            await pilot.press("space")
        await settle(pilot, app)
        status = app.browser.query_one("#status").render().plain
        assert "12 marked" in status
        assert f"focus run #{run.id} smollm2-claim-time-pages-2" in status, status


def test_the_status_line_drops_position_and_sort_before_marks_and_focus():
    state = BrowserState(1234, 100000, 1200, "importance", True, 1500, 12, "a-very-long-run-name-of-a-checker-3")
    wide = status_line(state, 200).plain
    assert "row 1,200" in wide and "sort importance↓" in wide
    for width in (78, 60, 50):
        line = status_line(state, width).plain
        assert len(line) <= width and "1,500 marked" in line and "focus run #12 " in line, line


def _agreement_app(demo_store, db_path):
    from workbench.cli.demo import load_demo_team

    load_demo_team(demo_store)
    return make_app(db_path), demo_store.runs.get("demo-checker")


async def test_the_agreement_screen_cuts_no_header_and_no_figure_at_80x24(demo_store, db_path):
    import io

    from rich.console import Console

    app, run = _agreement_app(demo_store, db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        app.open_triage(run.id)
        await settle(pilot, app)
        await pilot.press("a")
        await settle(pilot, app)
        figures = app.screen.query_one("#agreement-figures")
        console = Console(width=figures.size.width, record=True, file=io.StringIO())
        console.print(figures.content)
        shown = console.export_text()
    assert "…" not in shown, shown
    for header in ("agree", "kappa", "alpha", "Cohen's", "MASI", "labelled", "compared"):
        assert re.search(rf"(^|\s){re.escape(header)}(\s|$)", shown, re.M), header
    assert "-0.08 [-0.25, 0.00]" in shown or "[-0.25, 0.00]" in shown  # the interval whole


def test_agreement_with_two_annotators_80x24(snap_compare, demo_store, db_path):
    app, run = _agreement_app(demo_store, db_path)

    async def run_before(pilot) -> None:
        await settle(pilot, pilot.app)
        pilot.app.open_triage(run.id)
        await settle(pilot, pilot.app)
        await pilot.press("a")
        await settle(pilot, pilot.app)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


async def test_the_metrics_header_keeps_every_run_and_the_flag_left_out_at_80x24(demo_store, db_path):
    from tests.support.scoring import RUN_A, RUN_B, make_run
    from tests.support.tui_metrics import Host, settle_view

    a = make_run(demo_store, "smollm2-claim-time-pages-2", 1, range(1, 13), RUN_A)
    b = make_run(demo_store, "smollm2-claim-time-pages-3", 1, range(1, 13), RUN_B)
    demo_store.annotations.flag([1, 5, 8], "contaminated")
    app = Host(db_path, [a.id, b.id], ["importance"])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle_view("x")(pilot)
        shown = app.screen.query_one("#metrics-header").render().plain
    assert len(shown) <= 78
    assert shown.count("/11") == 2 or shown.count("of 11 answered") == 2, shown
    assert "without contaminated" in shown and "pages-2" in shown and "pages-3" in shown, shown


async def test_the_contamination_claim_column_keeps_the_end_of_url_ids_at_80x24(demo_store, db_path):
    from textual.widgets import DataTable

    from tests.support.contamination import EVIDENCE, make_scores
    from tests.support.tui import until
    from workbench.cli.demo import load_claimreview_demo

    load_claimreview_demo(demo_store)
    ids = demo_store.claims.ids("dataset:demo-claimreview")[:3]
    urls = {i: demo_store.claims.get(i).external_id for i in ids}
    pairs = list(EVIDENCE.values())
    make_scores(demo_store, "gguf:A", evidence={i: pairs[n % len(pairs)] for n, i in enumerate(ids)})
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("C")
        await until(pilot, lambda: getattr(app.screen, "detail", None) is not None)
        table = app.screen.query_one("#cont-claims", DataTable)
        shown = {int(key.value): str(table.get_cell(key, "claim")) for key in table.rows}
    assert len({shown[i] for i in ids}) == len(ids), shown  # each claim told apart
    for i in ids:
        assert shown[i].startswith("…") and urls[i].endswith(shown[i].removeprefix("…")), (urls[i], shown[i])


def test_status_line_with_marks_and_focus_run_80x24(snap_compare, demo_store, db_path):
    ids = demo_store.claims.ids("dataset:demo -label:Unclear -label:Unevaluable")
    add_run(demo_store, "smollm2-claim-time-pages-2", {i: ("ok", "Refuted") for i in ids[:3]})

    async def run_before(pilot) -> None:
        await settle(pilot, pilot.app)
        for _ in range(12):
            await pilot.press("space")
        await settle(pilot, pilot.app)

    assert snap_compare(make_app(db_path), terminal_size=(80, 24), run_before=run_before)


def test_contamination_with_url_ids_80x24(snap_compare, demo_store, db_path):
    from tests.support.contamination import EVIDENCE, make_scores
    from tests.support.tui import until
    from workbench.cli.demo import load_claimreview_demo

    load_claimreview_demo(demo_store)
    ids = demo_store.claims.ids("dataset:demo-claimreview")[:3]
    pairs = list(EVIDENCE.values())
    make_scores(demo_store, "gguf:A", evidence={i: pairs[n % len(pairs)] for n, i in enumerate(ids)})

    async def run_before(pilot) -> None:
        await settle(pilot, pilot.app)
        await pilot.press("C")
        await until(pilot, lambda: getattr(pilot.app.screen, "detail", None) is not None)
        await settle(pilot, pilot.app)

    assert snap_compare(make_app(db_path), terminal_size=(80, 24), run_before=run_before)
