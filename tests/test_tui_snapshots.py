"""What the main screens show, at 80x24 and 120x40, on the demo data (pytest-textual-snapshot).

Update after an intended change with `pytest tests/test_tui_snapshots.py --snapshot-update`
and look at snapshot_report.html. Nothing on screen depends on time or paths.
"""

from __future__ import annotations

import pytest
from textual.widgets import Input

from tests.test_tui_support import add_run, make_app, settle, wrong_label

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
