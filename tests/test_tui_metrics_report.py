"""The metrics view shows, under its live scores, the rest of each run's report as
`workbench metrics` prints it: explanation quality, time and cost, failure categories;
kept current when another connection records an answer or a label; at 80x24."""

from __future__ import annotations

import io
import re

import pytest
from click.testing import CliRunner
from rich.console import Console

from store import Prediction, Run, Store
from tests.support.tui import gold, until
from tests.support.tui_metrics import Host, settle_view, settled
from workbench.cli import main
from workbench.cli.demo import load_demo_team


def drawn_text(renderable, width: int = 200) -> str:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def report_text(screen) -> str:
    panel = screen.query_one("#report-panel")
    return drawn_text(panel._shown) if panel._shown is not None and panel.display else ""


def words(text: str) -> str:
    """Text with its wrapping and table rules left out, to compare what two widths show."""
    return " ".join(text.replace("─", " ").split())


@pytest.fixture
def quick_rereads(monkeypatch):
    """Parts that read the whole run wait their turn (5 s); here a fraction of a second."""
    from workbench.tui.screens.metrics import report_parts

    monkeypatch.setattr(report_parts, "SLOW_REREAD_SECONDS", 0.3)


async def test_the_view_shows_the_failure_categories_and_cost_that_metrics_prints(demo_store, db_path, quick_rereads):
    load_demo_team(demo_store)
    run = demo_store.runs.get("demo-checker")
    printed = CliRunner().invoke(main, ["--db", str(db_path), "metrics", "demo-checker", "--resamples", "0"])
    assert printed.exit_code == 0, printed.output
    cli_parts = words(printed.output[printed.output.index("time and cost:") :])
    app = Host(db_path, [run.id])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await until(pilot, lambda: settled(screen) and report_text(screen))
        assert cli_parts in words(report_text(screen))
        assert "Flawed Reasoning 2 0.333" in words(report_text(screen))
        # Drawn at the panel's width: nothing cut at 80 columns.
        panel = screen.query_one("#report-panel")
        shown = drawn_text(panel.content, 300).splitlines()
        assert max(len(line.rstrip()) for line in shown) <= panel.content_size.width
        # Another connection labels a right answer (as older versions let one): the view
        # follows, showing it apart, not counted (issue 33 item 3; this pinned counting it).
        assert "final labels: 6 of 13 labelled answers" in words(report_text(screen))
        right = next(p for p in demo_store.runs.predictions(run.id) if p.outcome == "correct")
        category = demo_store.annotations.categories()[0]
        other = Store.open(db_path)
        other.triage.set_categories(right.id, "cara", [category.id])
        other.close()
        await until(pilot, lambda: "1 label on answers that are right" in words(report_text(screen)))
        assert "final labels: 6 of 13 labelled answers" in words(report_text(screen))


async def test_time_per_claim_follows_answers_from_another_connection(demo_store, db_path, quick_rereads):
    ids = demo_store.claims.ids("dataset:demo")[:4]
    run = demo_store.runs.create(Run(name="timed", model="test:model", setting="claim"), ids)
    for claim_id, seconds in zip(ids[:3], (1.0, 2.0, 3.0)):
        demo_store.runs.record(
            Prediction(
                run_id=run.id, claim_id=claim_id, status="ok", verdict=gold(demo_store, claim_id), latency_s=seconds
            )
        )
    app = Host(db_path, [run.id])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await until(pilot, lambda: settled(screen) and "2.00 s per claim" in words(report_text(screen)))
        assert "2.00 s per claim (p95 2.90 s)" in words(report_text(screen))
        other = Store.open(db_path)
        other.runs.record(Prediction(run_id=run.id, claim_id=ids[3], status="ok", verdict="Refuted", latency_s=9.0))
        other.close()
        await until(pilot, lambda: "2.50 s per claim (p95 8.10 s)" in words(report_text(screen)))
        assert re.search(r"time and cost: 2\.50 s per claim", words(report_text(screen)))


def test_snapshot_report_parts_80x24(snap_compare, demo_store, db_path):
    load_demo_team(demo_store)
    app = Host(db_path, [demo_store.runs.get("demo-checker").id])

    async def at_the_end(pilot) -> None:
        await settle_view()(pilot)
        await until(pilot, lambda: bool(report_text(pilot.app.screen)))
        pilot.app.screen.query_one("#metrics-body").scroll_end(animate=False)
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=at_the_end)


def test_big_runs_open_with_their_scores_and_the_slower_parts_follow(demo_store, db_path, monkeypatch):
    """Reading two 300,000-answer runs' time and cost takes longer than their scores: the
    view opens without it and the next poll brings it, then polls go quiet again."""
    from workbench.tui.screens.metrics import report_parts
    from workbench.tui.screens.metrics.watch import MetricsWatcher, ViewConfig

    load_demo_team(demo_store)
    run = demo_store.runs.get("demo-checker")
    config = ViewConfig((run.id,), "importance")
    monkeypatch.setattr(report_parts, "ALL_AT_OPENING_UP_TO", 0)
    watcher = MetricsWatcher(db_path)
    first = watcher.step(config, force=True)
    assert first.runs[0].report.usage is None and first.runs[0].report.failures is None
    second = watcher.step(config)
    assert second.runs[0].report.failures.final == 6 and second.runs[0].report.usage.answers == 24
    assert watcher.step(config) is None
    monkeypatch.setattr(report_parts, "ALL_AT_OPENING_UP_TO", 10_000)
    opened = MetricsWatcher(db_path).step(config, force=True)
    assert opened.runs[0].report.failures.final == 6  # small runs: every part at once
