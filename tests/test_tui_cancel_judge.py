"""Item 10 of issue 33: K on a judge run in the metrics view shows "cancelled" on the screen
within a second (no toast lies over the line's end), and the ended run's line then leaves
every screen, the ones beneath included."""

from __future__ import annotations

import asyncio
import json
import time

from tests.loopback_servers import LoopbackServer
from tests.support.tui import add_run, gold, make_app, screen_text, settle, until
from workbench.tui.runs import LINGER_S
from workbench.tui.screens.metrics.screen import MetricsScreen
from workbench.tui.widgets.run_status import RunStatus


def judge(body) -> str:
    return json.dumps({"score": 7, "justification": "Right, with part of the evidence."})


def run_line(app) -> str:
    """The run's line as the terminal shows it (whatever lies over it included)."""
    return screen_text(app).splitlines()[-2]


async def test_k_on_a_judge_run_shows_cancelled_within_a_second_and_the_line_then_goes(demo_store, db_path):
    ids = demo_store.claims.ids("dataset:demo")[:12]
    run = add_run(demo_store, "sys", {i: ("ok", gold(demo_store, i)) for i in ids})
    app = make_app(db_path)
    with LoopbackServer("openai", latency=2.0, answer=judge) as server:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, app)
            app.push_screen(MetricsScreen(db_path, [run.id], resamples=100))
            await until(pilot, lambda: app.screen.update is not None)
            await pilot.press("j")
            await settle(pilot, app)
            await pilot.press("ctrl+u", *f"openai-compatible:judge {server.url}", "enter")
            await until(pilot, lambda: "K cancels" in run_line(app))
            pressed = time.monotonic()
            await pilot.press("K")
            await until(pilot, lambda: "cancelled" in run_line(app))
            assert time.monotonic() - pressed < 1.0, run_line(app)
            await settle(pilot, app)
            line = app.screen.query_one(RunStatus)
            assert [toast for toast in app.screen.query("Toast") if toast.region.overlaps(line.region)] == []
            assert "cancelled" in run_line(app)
            assert app.runs.state.status == "cancelled"
            await asyncio.sleep(LINGER_S["cancelled"] + 0.2)
            await settle(pilot, app)
            assert not app.screen.query_one(RunStatus).display
            await pilot.press("escape")  # the browser beneath: no dead line there either
            await settle(pilot, app)
            assert all(not line.display for line in app.screen.query(RunStatus))
            assert "judges" not in screen_text(app)
