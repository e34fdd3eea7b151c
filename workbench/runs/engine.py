"""The run engine: a model applied to a fixed list of claims, one committed row per answer.

Public API (the TUI builds against exactly this):
    RunRequest, RunSetupError, PreparedRun, prepare_run, execute_run, run_blocking,
    RunEvent = RunStarted | ItemFinished | RunFinished.
Non-verdict runs (the contamination pipeline's article and extraction steps) go through
the same engine: TaskRunRequest + prepare_task_run give a PreparedRun whose `task`
renders each claim and parses each answer (RunTask, TaskAnswer); an unreadable answer
is asked again, each try cached, before it is recorded as a parse_failure.

Every finished answer is recorded the moment it exists, so a killed process loses at
most the calls in flight; resuming answers only the claims without an answer (never
tried, or ended in an error). Answers are cached by a hash of the model identity, the
exact messages and the sampling params, so a repeated configuration costs nothing.

Several runs can go together (execute_runs: a sweep of settings): one feed hands out
their pending prompts in prefix-sharing order (runs.ordering). A budget (usage.budget)
holds each request back that could take the spending past it.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path

from store import RunProgress, Store
from workbench.backends import BackendError
from workbench.config import load_settings
from workbench.runs.answering import RunEngine
from workbench.runs.ordering import CLAIM_WINDOW, WorkFeed
from workbench.runs.requests import cache_key, verdict_prediction, verdict_request
from workbench.runs.retry import RetryGate
from workbench.runs.setup import prepare_run, prepare_task_run
from workbench.runs.speed import items_per_second
from workbench.runs.status import unconfirmed_advice, waiting_message
from workbench.runs.types import (
    ItemFinished,
    PreparedRun,
    RunEvent,
    RunFinished,
    RunRequest,
    RunSetupError,
    RunStarted,
    RunTask,
    TaskAnswer,
    TaskRunRequest,
)

__all__ = [
    "ItemFinished",
    "PreparedRun",
    "RunEvent",
    "RunFinished",
    "RunRequest",
    "RunSetupError",
    "RunStarted",
    "RunTask",
    "TaskAnswer",
    "TaskRunRequest",
    "cache_key",
    "execute_run",
    "items_per_second",
    "prepare_run",
    "prepare_task_run",
    "run_blocking",
    "runs_blocking",
    "execute_runs",
    "unconfirmed_advice",
    "verdict_prediction",
    "verdict_request",
    "waiting_message",
]

CANCEL_POLL_S = 0.05
CLAIM_BATCH = CLAIM_WINDOW
"""Pending claims are read this many at a time, just ahead of the workers."""


async def execute_run(
    db_path: Path,
    prepared: PreparedRun,
    on_event: Callable[[RunEvent], None] | None = None,
    cancel: threading.Event | None = None,
    budget=None,
) -> RunProgress:
    """Answer every pending claim, committing each result; opens its own Store.

    Stops early when `cancel` is set (status cancelled), when an error means no other
    claim can succeed either, e.g. a refused API key (status failed), or when the next
    request could take the spending past `budget` (usage.budget.Budget; status cancelled,
    resumable).
    """
    return (await execute_runs(db_path, [prepared], on_event, cancel, budget))[0]


async def execute_runs(
    db_path: Path,
    prepared_runs: list[PreparedRun],
    on_event: Callable[[RunEvent], None] | None = None,
    cancel: threading.Event | None = None,
    budget=None,
) -> list[RunProgress]:
    """Answer the pending claims of several runs together (a sweep of settings): each
    claim's prompts back to back, in prefix-sharing order (runs.ordering); each run keeps
    its own row, progress and events. A fatal error stops them all (they share a model)."""
    store = Store.open(db_path)
    try:
        for prepared in prepared_runs:
            waiting = store.batches.waiting(prepared.run.id)
            if waiting:  # sending those claims again would pay for them twice
                raise RunSetupError(waiting_message(prepared.run.name, waiting))
        cancel = cancel or threading.Event()
        gate = RetryGate(max(p.concurrency for p in prepared_runs))
        engines = [RunEngine(store, p, on_event, cancel, gate, budget) for p in prepared_runs]
        return await _Sweep(store, engines, cancel).run()
    finally:
        store.close()


def run_blocking(
    db_path: Path,
    prepared: PreparedRun,
    on_event: Callable[[RunEvent], None] | None = None,
    cancel: threading.Event | None = None,
    budget=None,
) -> RunProgress:
    """execute_run for a thread (the TUI calls this from a worker)."""
    return asyncio.run(execute_run(db_path, prepared, on_event, cancel, budget))


def runs_blocking(
    db_path: Path,
    prepared_runs: list[PreparedRun],
    on_event: Callable[[RunEvent], None] | None = None,
    cancel: threading.Event | None = None,
    budget=None,
) -> list[RunProgress]:
    """execute_runs for a thread."""
    return asyncio.run(execute_runs(db_path, prepared_runs, on_event, cancel, budget))


class _Sweep:
    """One or more runs answered together from one ordered feed, on one event loop."""

    def __init__(self, store: Store, engines: list[RunEngine], cancel: threading.Event):
        self.store, self.engines, self.cancel = store, engines, cancel

    @property
    def fatal(self) -> str | None:
        return next((e.fatal for e in self.engines if e.fatal), None)

    @property
    def stopping(self) -> bool:
        budget = self.engines[0].budget
        return self.cancel.is_set() or self.fatal is not None or (budget is not None and budget.reached)

    async def run(self) -> list[RunProgress]:
        queues = [engine.start() for engine in self.engines]
        try:
            settings = load_settings()
            for engine in self.engines:
                engine.open(settings)
            await self._work_through(
                WorkFeed(self.store, queues, max(CLAIM_WINDOW, *(e.prepared.concurrency for e in self.engines)))
            )
        except BackendError as error:
            self.engines[0].fatal = error.message
        except asyncio.CancelledError:  # the caller's task was cancelled: stop like a user cancel
            for engine in self.engines:
                self.store.runs.set_status(engine.run_id, "cancelled")
            raise
        except BaseException:
            for engine in self.engines:
                self.store.runs.set_status(engine.run_id, "failed")
            raise
        finally:
            for engine in self.engines:
                await engine.close()
        for engine in self.engines:
            engine.finish(self.fatal)
        return [engine.progress for engine in self.engines]

    async def _work_through(self, feed: WorkFeed) -> None:
        concurrency = max(engine.prepared.concurrency for engine in self.engines)
        workers = [asyncio.create_task(self._worker(feed)) for _ in range(min(concurrency, feed.total or 1))]
        watcher = asyncio.create_task(self._watch_cancel(workers))
        try:
            await asyncio.gather(*workers, return_exceptions=False)
        except asyncio.CancelledError:
            if not self.stopping:
                raise
        finally:
            watcher.cancel()
            for task in workers:
                task.cancel()
            await asyncio.gather(*workers, watcher, return_exceptions=True)

    async def _watch_cancel(self, workers: list[asyncio.Task]) -> None:
        """Stop the workers (abandoning calls in flight) once the user cancels or an error
        stops every run; at the budget, calls in flight finish (they are paid for)."""
        while not (self.cancel.is_set() or self.fatal):
            await asyncio.sleep(CANCEL_POLL_S)
        for engine in self.engines:
            interrupt = getattr(engine.backend, "interrupt", None)
            if self.cancel.is_set() and interrupt is not None:
                interrupt()  # a local model stops writing now: its thread would otherwise finish the answer
        for task in workers:
            task.cancel()

    async def _worker(self, feed: WorkFeed) -> None:
        while not self.stopping:
            item = feed.next()
            if item is None:
                return
            await item.owner._answer(item.claim, item.request, item.problem)
