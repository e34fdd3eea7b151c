"""Calling a backend with retries: exponential backoff with jitter, Retry-After honoured.

When a server says "retry after N seconds", every worker of the run holds back until
then (a shared gate), not just the one that was told: the limit is the server's, not the
request's.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass
from typing import Awaitable, Callable

from workbench.backends import BackendError, Completion

MAX_MALFORMED = 3  # garbled bodies are retried a few times, not for the whole budget


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
    """The moment before which no request of this run is sent (set by Retry-After)."""

    def __init__(self) -> None:
        self.not_before = 0.0

    def hold(self, seconds: float) -> None:
        self.not_before = max(self.not_before, time.monotonic() + seconds)

    async def wait(self) -> None:
        while (delay := self.not_before - time.monotonic()) > 0:
            await asyncio.sleep(delay)


def backoff_delay(policy: RetryPolicy, failures: int, retry_after: float | None) -> float:
    """Seconds to wait after the `failures`-th failed call."""
    if retry_after is not None:
        # At least what the server asked, plus a little so the workers don't stampede.
        return retry_after + random.uniform(0, min(0.1 * retry_after, 1.0))
    ceiling = min(policy.max_delay, policy.base_delay * 2 ** (failures - 1))
    return random.uniform(ceiling / 2, ceiling)


async def call_with_retries(call: Callable[[], Awaitable[Completion]], policy: RetryPolicy,
                            gate: RetryGate) -> CallOutcome:
    """Call until an answer, a non-retryable error, or the attempts run out."""
    calls, malformed = 0, 0
    while True:
        await gate.wait()
        calls += 1
        try:
            return CallOutcome(await call(), calls, None)
        except BackendError as error:
            malformed += error.message.startswith("malformed response")
            out_of_tries = calls >= policy.attempts or malformed >= MAX_MALFORMED
            if not error.retryable or error.fatal or out_of_tries:
                if error.retryable and out_of_tries:
                    error = BackendError(f"{error.message} (gave up after {calls} attempts)", retryable=True)
                return CallOutcome(None, calls, error)
            delay = backoff_delay(policy, calls, error.retry_after)
            if error.retry_after is not None:
                gate.hold(delay)
            await asyncio.sleep(delay)
