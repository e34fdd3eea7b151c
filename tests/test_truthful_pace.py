"""Item 11 of issue 33: rates and clocks that tell the truth. Answers from the cache are not
a rate (shown apart), no time left from fewer than three real answers, failures are not
claims per minute, and a phase bar's clock runs while a phase reports nothing (WordNet
loading) without a thread left beside a job that may fork."""

from __future__ import annotations

import io
import threading
import time

from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from store import Prediction, RunProgress
from workbench.cli.run_progress import Pace
from workbench.render.usage import MIN_ANSWERS_FOR_ETA, pace_text
from workbench.render.waiting import PhaseBar
from workbench.tui.widgets.run_status import RunState, progress_line


def answer(status: str = "ok", cached: bool = False) -> Prediction:
    return Prediction(run_id=1, claim_id=1, status=status, cached=cached)


def test_one_cached_answer_gives_no_rate_and_no_time_left():
    pace = Pace(remaining=5)
    pace.step(answer(cached=True))
    assert pace.text() == ""  # the bar's counts say "cached 1" already


def test_while_every_request_fails_the_line_says_so_not_claims_per_minute():
    pace = Pace(remaining=20)
    for _ in range(8):
        pace.step(answer("error"))
    assert "claims/min" not in pace.text() and "8 requests failed" in pace.text()


def test_the_tui_line_shows_cached_answers_apart():
    state = RunState(
        run_id=1,
        name="r",
        total=5,
        done=1,
        progress=RunProgress(total=5, ok=1, cached=1),
        status="running",
        started=time.monotonic() - 0.01,
        cached_here=1,
    )
    line = progress_line(state).plain
    assert "1 cached" in line and "claims/min" not in line and "ETA" not in line


@given(
    answered=st.integers(0, 10_000),
    cached=st.integers(0, 10_000),
    failed=st.integers(0, 10_000),
    elapsed=st.floats(0.001, 1e6),
    remaining=st.integers(0, 10_000),
)
def test_the_rate_and_time_left_come_from_real_answers_only(answered, cached, failed, elapsed, remaining):
    text = pace_text(answered, elapsed, remaining, cached, failed)
    assert ("claims/min" in text) == (answered > 0)
    assert ("ETA" in text) == (answered >= MIN_ANSWERS_FOR_ETA)
    assert ("cached" in text) == (cached > 0)
    assert ("failed" in text) == (failed > 0 and answered == 0)
    if answered:
        assert text.startswith(f"{answered / elapsed * 60:.1f} claims/min")


def clock_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "phase-bar-clock"]


def test_a_phase_bar_clock_runs_while_a_phase_reports_nothing_and_stops_before_a_counted_one():
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=80)
    with PhaseBar("loading WordNet", console=console) as bar:
        deadline = time.monotonic() + 30
        while "0:00:01" not in screen.getvalue():  # the job is busy and says nothing
            assert time.monotonic() < deadline, screen.getvalue()[-400:]
            time.sleep(0.05)
        assert len(clock_threads()) == 1
        bar("scoring claims", 0, 10)  # a counted phase: the job may fork now
        assert clock_threads() == []
    assert clock_threads() == []
