"""Item 2 of issue 20 in the TUI: work started from a screen shows its progress on that
screen. A judge run started with j in the metrics view has its progress line there, with K
in the footer to cancel it; a judge that cannot start says why on the same line."""

from __future__ import annotations

import json

from tests.loopback_servers import LoopbackServer
from tests.support.tui import add_run, gold, make_app, screen_text, settle, until
from workbench.tui.screens.metrics.screen import MetricsScreen
from workbench.tui.widgets.run_status import RunStatus


def judge(body) -> str:
    return json.dumps({"score": 7, "justification": "Right, with part of the evidence."})


async def type_judge(pilot, text: str) -> None:
    await pilot.press("j")
    await settle(pilot, pilot.app)
    await pilot.press("ctrl+u", *("space" if key == " " else key for key in text), "enter")


def line_of(app) -> str:
    status = app.screen.query_one(RunStatus)
    return str(status.render()) if status.display else ""


async def test_a_judge_run_from_the_metrics_view_shows_its_progress_there_and_k_cancels_it(demo_store, db_path):
    ids = demo_store.claims.ids("dataset:demo")[:12]
    run = add_run(demo_store, "sys", {i: ("ok", gold(demo_store, i)) for i in ids})
    app = make_app(db_path)
    with LoopbackServer("openai", latency=0.4, answer=judge) as server:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, app)
            app.push_screen(MetricsScreen(db_path, [run.id], resamples=100))
            await until(pilot, lambda: app.screen.update is not None)
            await type_judge(pilot, f"openai-compatible:judge {server.url} ")
            await until(pilot, lambda: app.runs.state.done >= 1 and "K cancels" in line_of(app))
            assert isinstance(app.screen, MetricsScreen)
            assert "/12" in line_of(app) and "judge" in line_of(app)
            footer = screen_text(app).splitlines()[-1]
            assert "K Cancel run" in footer
            await pilot.press("K")
            await until(pilot, lambda: not app.runs.active)
            assert app.runs.state.status == "cancelled" and "cancelled" in line_of(app)
            assert app.runs.state.done < 12


async def test_a_judge_that_cannot_start_says_why_on_the_metrics_view(demo_store, db_path):
    ids = demo_store.claims.ids("dataset:demo")[:3]
    run = add_run(demo_store, "sys", {i: ("ok", gold(demo_store, i)) for i in ids})
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        app.push_screen(MetricsScreen(db_path, [run.id], resamples=100))
        await until(pilot, lambda: app.screen.update is not None)
        await type_judge(pilot, "gguf:/nowhere/judge.gguf")
        await until(pilot, lambda: app.runs.state.status == "failed")
        assert "no GGUF file at /nowhere/judge.gguf" in line_of(app)
        assert not app.runs.active


def test_the_progress_line_says_what_is_being_prepared():
    from workbench.tui.widgets.run_status import RunState, progress_line

    line = progress_line(
        RunState(
            name="judge of sys", status="preparing", message="checking the judge gguf:default (a GGUF model loads)…"
        )
    )
    assert line.plain == "judge of sys checking the judge gguf:default (a GGUF model loads)…"
