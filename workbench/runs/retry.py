"""Calling a backend with retries (workbench.retrying): exponential backoff with jitter,
Retry-After honoured, garbled answers tried only a few times.

When a server says "retry after N seconds", every worker of the run holds back until
then (a shared gate), not just the one that was told: the limit is the server's, not the
request's.

The same gate can space request starts a little when they come in a burst (a run's start,
the end of a Retry-After hold): calls that go out together come back together and then
queue for the one event loop that reads them, and with a steady latency they would stay
in that lockstep for the whole run, each waiting for the CPU work of the others.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from workbench.backends import BackendError, Completion
from workbench.retrying import backoff, with_retries
from workbench.words import counted

MAX_MALFORMED = 3  # garbled bodies are retried a few times, not for the whole budget
PACE_FRACTION = 0.0
"""Request starts are at least PACE_FRACTION x (fastest recent call / concurrency) apart.
At 0.5 that allows twice the start rate the workers could sustain even if every call were
as fast as the fastest, so a steady run is never slowed; only a burst is spread, and its
last call waits at most half the fastest call's time (a cached answer never waits).
0.5 gave ~5% more throughput in bench_runner (b); it is off (0.0) until
test_a_killed_run_resumes_without_losing_or_repeating_answers reads its "before"
snapshot after the kill: it races the run's next commit, more often with spacing on."""
PACE_WINDOW = 64  # recent successful calls whose fastest sets the spacing


@dataclass
class RetryPolicy:
    attempts: int = 4
    """Calls per item, the first included."""
    base_delay: float = 0.5
    max_delay: float = 30.0


@dataclass
class CallOutcome:
    completion: Completion | None
    calls: int
    error: BackendError | None


class RetryGate:
    """The moment before which no request of this run is sent (set by Retry-After), and
    the spacing between request starts (see the module docstring)."""

    def __init__(self, concurrency: int = 1) -> None:
        self.not_before = 0.0
        self.concurrency = concurrency
        self.spacing = 0.0
        self.next_start = 0.0
        self.recent: deque[float] = deque(maxlen=PACE_WINDOW)

    def hold(self, seconds: float) -> None:
        self.not_before = max(self.not_before, time.monotonic() + seconds)

    def observe(self, seconds: float) -> None:
        """A call succeeded after `seconds`: update the spacing of request starts."""
        self.recent.append(seconds)
        if self.concurrency > 1:
            self.spacing = PACE_FRACTION * min(self.recent) / self.concurrency

    async def wait(self) -> None:
        while True:
            while (delay := self.not_before - time.monotonic()) > 0:
                await asyncio.sleep(delay)
            now = time.monotonic()
            start = max(now, self.next_start)
            self.next_start = start + self.spacing
            if start <= now:
                return
            await asyncio.sleep(start - now)
            if self.not_before <= time.monotonic():
                return


async def call_with_retries(
    call: Callable[[], Awaitable[Completion]], policy: RetryPolicy, gate: RetryGate
) -> CallOutcome:
    """Call until an answer, a non-retryable error, or the attempts run out."""
    calls, malformed = 0, 0

    async def once() -> Completion:
        nonlocal calls, malformed
        await gate.wait()
        calls += 1
        started = time.monotonic()
        try:
            completion = await call()
        except BackendError as error:
            malformed += error.message.startswith("malformed response")
            raise
        gate.observe(time.monotonic() - started)
        return completion

    def again(error: BaseException) -> bool:
        return isinstance(error, BackendError) and error.retryable and not error.fatal and malformed < MAX_MALFORMED

    def hold(seconds: float, error: BaseException) -> None:
        if getattr(error, "retry_after", None) is not None:
            gate.hold(seconds)  # the server's limit holds back every worker of the run

    try:
        completion = await with_retries(
            once,
            attempts=policy.attempts,
            retry_if=again,
            on_wait=hold,
            wait=backoff(policy.base_delay, policy.max_delay, jitter=True),
        )
    except BackendError as error:
        if error.retryable and (calls >= policy.attempts or malformed >= MAX_MALFORMED):
            # Out of tries; an unreachable server stops the run.
            error = BackendError(
                f"{error.message} (gave up after {counted(calls, 'attempt')})",
                retryable=True,
                fatal=error.unreachable,
                unreachable=error.unreachable,
            )
        return CallOutcome(None, calls, error)
    return CallOutcome(completion, calls, None)
