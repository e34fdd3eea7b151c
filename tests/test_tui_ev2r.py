"""The metrics view shows a run's AVeriTeC leaderboard row (issue 35, item 4) as `workbench
metrics` prints it, once an Ev2R judge run has judged the run; at 80x24."""

from __future__ import annotations

from store import Store
from tests.loopback_servers import LoopbackServer
from tests.support.ev2r import SUBMISSION, claim_positions, demo_submission_db, recorded_judge
from tests.support.judging import cli
from tests.support.tui import until
from tests.support.tui_metrics import Host, report_words, settled


async def test_the_metrics_view_shows_the_leaderboard_row(db_path):
    demo_submission_db(db_path)
    with LoopbackServer("openai", answer=recorded_judge(claim_positions())) as server:
        done = cli(db_path, "ev2r", SUBMISSION, "--judge", "openai-compatible:llama", "--base-url", server.url)
        assert done.exit_code == 0, done.output
    printed = cli(db_path, "metrics", SUBMISSION, "--resamples", "0").output
    row = next(line for line in printed.splitlines() if "0.4537" in line).split()  # the leaderboard's figures
    store = Store.open(db_path)
    run_id = store.runs.get(SUBMISSION).id
    store.close()
    app = Host(db_path, [run_id])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await until(pilot, lambda: settled(screen) and "AVeriTeC leaderboard" in report_words(screen))
        shown = report_words(screen)
    assert "AVeriTeC leaderboard: demo-sub" in shown
    words = shown.split()  # the figures `workbench metrics` prints, in its order (side by side or under each other)
    at = words.index("leaderboard:")
    for figure in row:  # each after the one before
        at = words.index(figure, at + 1)
    assert len(row) == 7


def test_the_leaderboard_row_is_read_again_when_the_run_answers_more(db_path, monkeypatch):
    """Its Q-only and Q+A scores are the run's own questions and answers: more answers, a new
    row (at the slow parts' turn), as the AVerImaTeC figures."""
    from workbench.tui.screens.metrics.report_parts import ReportParts

    demo_submission_db(db_path)
    store = Store.open(db_path)
    runs = [store.runs.get(SUBMISSION)]
    parts = ReportParts()
    parts.load(store, runs, "", items=10)
    read = []
    monkeypatch.setattr(parts, "_read", lambda store, runs, flag_kind, due: read.append(set(due)))
    assert parts.refresh(store, runs, "", answers=0, now=True) is False  # nothing changed
    assert parts.refresh(store, runs, "", answers=3, now=True) is True
    assert {"averitec", "averimatec"} <= read[-1]
    store.close()
