"""Trying a call to a server again: the one retry loop of the workbench (tenacity), the one
reader of Retry-After, and the backoff every caller shares.

    page = await with_retries(get, attempts=3, retry_if=lambda e: e.retryable, wait=backoff(0.5))

A Retry-After the failure carries (an exception's `retry_after`, in seconds) wins over the
backoff: the server knows when it will answer, the backoff only guesses.
"""

from __future__ import annotations

import random
import time
from collections.abc import Awaitable, Callable
from datetime import UTC
from email.utils import parsedate_to_datetime
from typing import TypeVar

Result = TypeVar("Result")
Wait = Callable[[int, BaseException], float]
"""Seconds to wait after the `calls`-th call failed with this error."""


def retry_after_seconds(headers, now: float | None = None) -> float | None:
    """What an answer's headers ask us to wait, in seconds: Retry-After as a number of
    seconds or as an HTTP date (RFC 9110), or OpenAI's retry-after-ms; None when they ask
    nothing readable. A date in the past is 0."""
    milliseconds = headers.get("retry-after-ms")
    if milliseconds is not None:
        try:
            return max(float(milliseconds) / 1000, 0.0)
        except ValueError:
            pass
    value = (headers.get("retry-after") or "").strip()
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if moment.tzinfo is None:  # RFC 9110 dates are GMT (a "-0000" zone reads as none)
        moment = moment.replace(tzinfo=UTC)
    return max(moment.timestamp() - (time.time() if now is None else now), 0.0)


def backoff(first: float, ceiling: float | None = None, jitter: bool = False) -> Wait:
    """Waits that double from `first` (up to `ceiling`); with `jitter`, each a random point
    in its upper half, and a Retry-After a little more than asked, so that workers told the
    same thing do not all come back at once."""

    def wait(calls: int, error: BaseException) -> float:
        asked = getattr(error, "retry_after", None)
        if asked is not None:
            return asked + (random.uniform(0, min(0.1 * asked, 1.0)) if jitter else 0.0)
        seconds = first * 2 ** (calls - 1)
        seconds = min(seconds, ceiling) if ceiling is not None else seconds
        return random.uniform(seconds / 2, seconds) if jitter else seconds

    return wait


async def with_retries(
    call: Callable[[], Awaitable[Result]],
    *,
    attempts: int,
    retry_if: Callable[[BaseException], bool],
    wait: Wait,
    on_wait: Callable[[float, BaseException], None] | None = None,
) -> Result:
    """What `call()` returns, calling it again after a failure `retry_if` accepts, at most
    `attempts` calls in all; the last failure is raised as it is. `on_wait(seconds, error)`
    is told each wait before it starts. Cancellation is never retried."""
    import tenacity

    def seconds(state: tenacity.RetryCallState) -> float:
        return wait(state.attempt_number, state.outcome.exception())

    def before_sleep(state: tenacity.RetryCallState) -> None:  # only when another call will be made
        if on_wait is not None:
            on_wait(state.next_action.sleep, state.outcome.exception())

    retrying = tenacity.AsyncRetrying(
        stop=tenacity.stop_after_attempt(attempts),
        wait=seconds,
        reraise=True,
        before_sleep=before_sleep,
        retry=tenacity.retry_if_exception(lambda error: isinstance(error, Exception) and retry_if(error)),
    )

    async def attempt() -> Result:  # a lambda that returns a coroutine is awaited too
        return await call()

    return await retrying(attempt)


__all__ = ["backoff", "retry_after_seconds", "with_retries"]
