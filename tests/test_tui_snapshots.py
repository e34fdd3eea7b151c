"""What the main screens show, at 80x24 and 120x40, on the demo data (pytest-textual-snapshot).

Update after an intended change with `pytest tests/test_tui_snapshots.py --snapshot-update`
and look at snapshot_report.html. Nothing on screen depends on time or paths.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from tests.support.tui import add_run, make_app, settle, until, wrong_label

SIZES = [(80, 24), (120, 40)]


@pytest.fixture
def snapshot_app(demo_store, db_path):
    """The demo data with one run holding every kind of outcome."""
    store = demo_store
    ids = store.claims.ids("dataset:demo -label:Unclear -label:Unevaluable")
    golds = {i: store.claims.get(i).label for i in ids}
    answers = {i: ("ok", golds[i] if n % 3 else wrong_label(golds[i])) for n, i in enumerate(ids[:12])}
    answers[ids[4]] = ("abstain", None)
    answers[ids[5]] = ("parse_failure", None)
    answers[ids[7]] = ("error", None)
    add_run(store, "smol-demo", answers, model="gguf:default")
    store.annotations.flag([ids[1]], "contaminated", note="seen in training data", who="tester")
    return make_app(db_path)


def steps(*keys: str):
    async def run_before(pilot) -> None:
        app = pilot.app
        await settle(pilot, app)
        for key in keys:
            await pilot.press(key)
            await settle(pilot, app)
        for field in app.screen.query(Input):
            field.cursor_blink = False  # a frozen cursor: the same picture every time
        await settle(pilot, app)

    return run_before


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_claims_browser(snap_compare, snapshot_app, size):
    assert snap_compare(snapshot_app, terminal_size=size, run_before=steps("down"))


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_claim_detail(snap_compare, snapshot_app, size):
    assert snap_compare(snapshot_app, terminal_size=size, run_before=steps("enter"))


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_verdicts(snap_compare, snapshot_app, size):
    assert snap_compare(snapshot_app, terminal_size=size, run_before=steps("enter", "v"))


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_triage(snap_compare, snapshot_app, size):
    assert snap_compare(snapshot_app, terminal_size=size, run_before=steps("t", "2"))


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_help(snap_compare, snapshot_app, size):
    assert snap_compare(snapshot_app, terminal_size=size, run_before=steps("question_mark"))


def test_claim_images_half_blocks(snap_compare, snapshot_app):
    """A claim's picture drawn with half-blocks (what works over SSH and in tmux), with its facts."""

    async def run_before(pilot) -> None:
        app = pilot.app
        await settle(pilot, app)
        app.browser.apply_filter("has:image")
        await settle(pilot, app)
        for key in ("enter", "7"):
            await pilot.press(key)
            await settle(pilot, app)

    assert snap_compare(snapshot_app, terminal_size=(80, 24), run_before=run_before)


# -- 80x24, every other screen and dialog (issue 20): nothing cut mid-word, hints wrapped ------


def at_80x24(snap_compare, app, *keys: str, before=None) -> bool:
    async def run_before(pilot) -> None:
        if before is not None:
            await before(pilot)
        await steps(*keys)(pilot)

    return snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_run_dialog_80x24(snap_compare, snapshot_app):
    """The first messages of the preview show under the form."""
    assert at_80x24(snap_compare, snapshot_app, "r")


def test_flag_dialog_80x24(snap_compare, snapshot_app):
    assert at_80x24(snap_compare, snapshot_app, "f")


def test_confirm_dialog_80x24(snap_compare, snapshot_app):
    async def whole_filter(pilot) -> None:
        await settle(pilot, pilot.app)
        await pilot.press("f")
        await settle(pilot, pilot.app)
        pilot.app.screen.query_one("#scope-filter").value = True

    assert at_80x24(snap_compare, snapshot_app, "enter", before=whole_filter)


def test_run_picker_80x24(snap_compare, snapshot_app):
    assert at_80x24(snap_compare, snapshot_app, "v")


def test_raw_output_80x24(snap_compare, snapshot_app):
    async def highlight(pilot) -> None:
        await steps("enter", "v")(pilot)
        pilot.app.screen.query_one("#verdict-list").highlighted = 1

    assert at_80x24(snap_compare, snapshot_app, "o", before=highlight)


def test_score_prompt_80x24(snap_compare, snapshot_app):
    """A dialog's hint wraps inside it."""

    async def highlight(pilot) -> None:
        await steps("enter", "v")(pilot)
        pilot.app.screen.query_one("#verdict-list").highlighted = 1

    assert at_80x24(snap_compare, snapshot_app, "e", before=highlight)


def test_filter_error_80x24(snap_compare, snapshot_app):
    assert at_80x24(snap_compare, snapshot_app, "slash", *"lable:Refuted")


def test_metrics_view_and_judge_prompt_80x24(snap_compare, snapshot_app):
    async def metrics(pilot) -> None:
        await settle(pilot, pilot.app)
        await pilot.press("m")
        await until(pilot, lambda: getattr(pilot.app.screen, "update", None) is not None)

    assert at_80x24(snap_compare, snapshot_app, "j", before=metrics)


def test_contamination_without_scores_80x24(snap_compare, snapshot_app, db_path, monkeypatch):
    """The whole command to run, wrapped (the database named as the workbench was given it)."""
    monkeypatch.chdir(db_path.parent)
    assert at_80x24(snap_compare, make_app(Path(db_path.name)), "C")


def test_contamination_80x24(snap_compare, snapshot_app, demo_store):
    from tests.support.contamination import make_scores

    make_scores(demo_store, "gguf:A")
    make_scores(demo_store, "gguf:B")

    async def scores(pilot) -> None:
        await settle(pilot, pilot.app)
        await pilot.press("C")
        await until(pilot, lambda: getattr(pilot.app.screen, "detail", None) is not None)

    assert at_80x24(snap_compare, snapshot_app, before=scores)


def test_agreement_80x24(snap_compare, snapshot_app):
    assert at_80x24(snap_compare, snapshot_app, "t", "a")


def test_adjudication_80x24(snap_compare, snapshot_app):
    assert at_80x24(snap_compare, snapshot_app, "t", "d")


def test_datasets_80x24(snap_compare, snapshot_app, db_path, monkeypatch):
    """The curate hint names the database as the workbench was given it."""
    monkeypatch.chdir(db_path.parent)
    assert at_80x24(snap_compare, make_app(Path(db_path.name)), "D")


# Japanese rows, a long Japanese claim wrapped, a Japanese evidence window: double-width
# characters stay whole and the columns stay aligned at 80x24 (the table once padded by
# characters, not cells, and pushed every column after 交通 two cells right).
JAPANESE = ("slash", *"dataset:demo-ja", "enter")


def test_japanese_claims_80x24(snap_compare, snapshot_app):
    assert at_80x24(snap_compare, snapshot_app, *JAPANESE)


def test_japanese_long_claim_wrapped_80x24(snap_compare, snapshot_app):
    assert at_80x24(snap_compare, snapshot_app, *JAPANESE, *["down"] * 14, "enter")


def test_japanese_evidence_window_80x24(snap_compare, snapshot_app):
    assert at_80x24(snap_compare, snapshot_app, *JAPANESE, *["down"] * 14, "enter", "3")
