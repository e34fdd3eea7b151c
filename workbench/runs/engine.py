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
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections import deque
from pathlib import Path
from typing import Callable

from store import CachedResponse, Claim, Prediction, RunBatch, RunProgress, Store
from store.records import to_json
from workbench.backends import (
    Backend,
    BackendError,
    Completion,
    CompletionRequest,
    open_backend,
)
from workbench.config import load_settings
from workbench.prompting import PromptError
from workbench.runs.requests import (
    cache_key,
    task_request,
    tool_calls_of,
    tool_calls_text,
    verdict_prediction,
    verdict_request,
)
from workbench.runs.retry import RetryGate, RetryPolicy, call_with_retries
from workbench.runs.setup import prepare_run, prepare_task_run
from workbench.runs.speed import items_per_second
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
    "ItemFinished", "PreparedRun", "RunEvent", "RunFinished", "RunRequest", "RunSetupError", "RunStarted",
    "RunTask", "TaskAnswer", "TaskRunRequest", "cache_key", "execute_run", "items_per_second", "prepare_run",
    "prepare_task_run", "run_blocking", "unconfirmed_advice", "verdict_prediction", "verdict_request",
    "waiting_message",
]

CANCEL_POLL_S = 0.05
CLAIM_BATCH = 64
"""Pending claims are read this many at a time, just ahead of the workers."""


async def execute_run(db_path: Path, prepared: PreparedRun,
                      on_event: Callable[[RunEvent], None] | None = None,
                      cancel: threading.Event | None = None) -> RunProgress:
    """Answer every pending claim, committing each result; opens its own Store.

    Stops early when `cancel` is set (status cancelled) or when an error means no other
    claim can succeed either, e.g. a refused API key (status failed).
    """
    store = Store.open(db_path)
    try:
        waiting = store.batches.waiting(prepared.run.id)
        if waiting:  # sending those claims again would pay for them twice
            raise RunSetupError(waiting_message(prepared.run.name, waiting))
        engine = _Engine(store, prepared, on_event, cancel or threading.Event())
        return await engine.run()
    finally:
        store.close()


def run_blocking(db_path: Path, prepared: PreparedRun,
                 on_event: Callable[[RunEvent], None] | None = None,
                 cancel: threading.Event | None = None) -> RunProgress:
    """execute_run for a thread (the TUI calls this from a worker)."""
    return asyncio.run(execute_run(db_path, prepared, on_event, cancel))


def waiting_message(run_name: str, waiting: list[RunBatch]) -> str:
    """What to do about a run whose requests are out at a provider's batch API."""
    confirmed = [row for row in waiting if row.batch_id]
    if confirmed:
        ids = ", ".join(f"{row.provider} {row.batch_id}" for row in confirmed)
        return (f"run {run_name} waits on batch {ids}; `workbench batch collect {run_name}` reads its answers"
                f" (`workbench batch cancel {run_name}` stops it)")
    return (f"run {run_name} has a batch submit that never completed (started {waiting[0].submitted_at});"
            f" {unconfirmed_advice(waiting[0].provider, run_name)}")


def unconfirmed_advice(provider: str, run_name: str) -> str:
    """How to settle a submit whose reply was lost (OpenAI can be asked; Anthropic cannot)."""
    if provider == "openai":
        return (f"`workbench batch collect {run_name}` asks the provider whether it made the batch, and"
                " collects it or frees the claims")
    return (f"{provider} cannot be asked whether it made the batch: look in its console, then"
            f" `workbench batch forget {run_name}` frees the claims")


@dataclasses.dataclass
class _Spent:
    """Tokens and time summed over a task item's tries."""

    tokens_in: int | None = None
    tokens_out: int | None = None
    latency_s: float = 0.0

    def add(self, completion: Completion) -> None:
        if completion.tokens_in is not None:
            self.tokens_in = (self.tokens_in or 0) + completion.tokens_in
        if completion.tokens_out is not None:
            self.tokens_out = (self.tokens_out or 0) + completion.tokens_out
        self.latency_s += completion.latency_s


@dataclasses.dataclass
class _Answer:
    """What asking for one completion gave: the completion (None after an error), whether
    the cache gave it, the model calls made, and the cache entry a fresh answer makes."""

    completion: Completion | None
    cached: bool
    calls: int
    error: BackendError | None = None
    cache_entry: tuple[str, str, CachedResponse] | None = None


@dataclasses.dataclass
class _Tried:
    """A task item's tries at one repeat: the last parse and completion, or the error."""

    parsed: TaskAnswer | None
    completion: Completion | None
    attempts: int
    spent: _Spent
    cached: bool
    error: BackendError | None = None


class _ClaimFeed:
    """The pending claims in run order, read a batch at a time just ahead of the workers
    (two queries per batch instead of two per claim; never the whole list in memory)."""

    def __init__(self, store: Store, claim_ids: list[int], batch: int = CLAIM_BATCH):
        self.store, self.claim_ids, self.batch = store, claim_ids, batch
        self.position = 0
        self.ready: deque[Claim] = deque()

    def next(self) -> Claim | None:
        """The next claim to answer, or None when all were handed out."""
        while not self.ready:
            if self.position >= len(self.claim_ids):
                return None
            chunk = self.claim_ids[self.position:self.position + self.batch]
            self.position += len(chunk)
            self.ready.extend(self.store.runs.claims(chunk))
        return self.ready.popleft()


class _Engine:
    """One execution of a prepared run, on one event loop and one store connection."""

    def __init__(self, store: Store, prepared: PreparedRun, on_event, cancel: threading.Event):
        self.store, self.prepared, self.cancel = store, prepared, cancel
        # Without a listener no per-item event (and progress copy) is built at all.
        self.listening = on_event is not None
        self.emit = on_event or (lambda event: None)
        self.run_id = prepared.run.id
        self.policy = RetryPolicy(attempts=int(prepared.params.get("attempts") or 4))
        self.gate = RetryGate(prepared.concurrency)
        self.fatal: str | None = None
        self.backend: Backend | None = None
        self.search = None
        """A search run's agent (workbench.search.agent), opened with the run."""

    async def run(self) -> RunProgress:
        pending = self.store.runs.pending_claim_ids(self.run_id)
        self.progress = self.store.runs.progress(self.run_id)
        self.errored = self.store.runs.errored_attempts(self.run_id)
        self.store.runs.set_status(self.run_id, "running")
        self.emit(RunStarted(self.run_id, self.prepared.run.name, self.progress.total, len(pending)))
        try:
            settings = load_settings()
            self.backend = open_backend(self.prepared.spec, self.prepared.params, settings)
            self.identity_text = to_json(self.backend.identity)
            if self.prepared.search is not None:
                from workbench.search.agent import open_agent

                self.search = open_agent(self, self.prepared.search, settings)
            await self._work_through(pending)
        except BackendError as error:
            self.fatal = error.message
        except asyncio.CancelledError:  # the caller's task was cancelled: stop like a user cancel
            self.store.runs.set_status(self.run_id, "cancelled")
            raise
        except BaseException:
            self.store.runs.set_status(self.run_id, "failed")
            raise
        finally:
            if self.backend is not None:
                await self.backend.aclose()
            if self.search is not None:
                await self.search.aclose()
        status = "failed" if self.fatal else "cancelled" if self.cancel.is_set() else "finished"
        self.store.runs.set_status(self.run_id, status)
        self.emit(RunFinished(self.run_id, status, dataclasses.replace(self.progress), self.fatal))
        return self.progress

    async def _work_through(self, pending: list[int]) -> None:
        feed = _ClaimFeed(self.store, pending, max(CLAIM_BATCH, self.prepared.concurrency))
        workers = [asyncio.create_task(self._worker(feed)) for _ in range(min(self.prepared.concurrency,
                                                                                 len(pending) or 1))]
        watcher = asyncio.create_task(self._watch_cancel(workers))
        try:
            await asyncio.gather(*workers, return_exceptions=False)
        except asyncio.CancelledError:
            if not (self.cancel.is_set() or self.fatal):
                raise
        finally:
            watcher.cancel()
            for task in workers:
                task.cancel()
            await asyncio.gather(*workers, watcher, return_exceptions=True)

    async def _watch_cancel(self, workers: list[asyncio.Task]) -> None:
        """Stop the workers (abandoning calls in flight) once the user cancels."""
        while not (self.cancel.is_set() or self.fatal):
            await asyncio.sleep(CANCEL_POLL_S)
        interrupt = getattr(self.backend, "interrupt", None)
        if self.cancel.is_set() and interrupt is not None:
            interrupt()  # a local model stops writing now: its thread would otherwise finish the answer
        for task in workers:
            task.cancel()

    async def _worker(self, feed: _ClaimFeed) -> None:
        while not (self.cancel.is_set() or self.fatal):
            claim = feed.next()
            if claim is None:
                return
            await self._answer(claim)

    async def _answer(self, claim: Claim) -> None:
        """Render, answer (from the cache or the model), parse, commit, report."""
        before = self.errored.get(claim.id, 0)
        if self.prepared.task is not None:
            await self._answer_task(claim, before)
            return
        if self.search is not None:
            await self.search.answer(claim, before)
            return
        try:
            request = verdict_request(self.prepared, claim, self.store)
        except PromptError as error:
            self._finish_with_error(claim.id, str(error), before)
            return
        answer = await self._complete(request)
        attempts = before + answer.calls
        if answer.completion is None:
            self._finish_with_error(claim.id, answer.error.message, attempts, fatal=answer.error.fatal)
            return
        # The answer and its cache entry in one transaction: one commit per answer.
        self._finish(verdict_prediction(self.prepared, claim.id, answer.completion, attempts, answer.cached),
                     cache=answer.cache_entry)

    async def _answer_task(self, claim, before: int) -> None:
        """A task run's item: render and parse by the task; an unreadable answer is asked
        again (new seed, a nudge) up to task.tries times, each answer cached on arrival.

        A task with repeats (a judge asked K times, `judge --repeats K`) asks the same
        again K - 1 times, each repeat under its own cache key, and hands each outcome to
        task.keep_repeat the moment it exists; the item's prediction (repeat 0) is
        recorded last, so a run cut off mid-way asks the item again (its repeats then
        come from the cache)."""
        task = self.prepared.task
        try:
            first = task.render(self.store, claim)
        except PromptError as error:
            self._finish_with_error(claim.id, str(error), before)
            return
        repeats = max(getattr(task, "repeats", 1), 1)
        tried = await self._tries(task, first, before, repeat=0)
        if tried.error is not None:
            self._finish_with_error(claim.id, tried.error.message, tried.attempts, fatal=tried.error.fatal)
            return
        if repeats > 1:
            task.keep_repeat(self.store, self.run_id, claim.id, 0, tried.parsed, tried.completion, None, tried.cached)
            for repeat in range(1, repeats):
                again = await self._tries(task, first, 0, repeat)
                task.keep_repeat(self.store, self.run_id, claim.id, repeat, again.parsed, again.completion,
                                 again.error.message if again.error else None, again.cached)
                if again.error is not None and again.error.fatal:
                    self.fatal = again.error.message
                    return
        parsed, completion, spent = tried.parsed, tried.completion, tried.spent
        self._finish(Prediction(
            run_id=self.run_id, claim_id=claim.id, status=parsed.status, explanation=parsed.explanation,
            raw_output=completion.text, parsed=parsed.parsed, attempts=tried.attempts, latency_s=spent.latency_s,
            tokens_in=spent.tokens_in, tokens_out=spent.tokens_out, finish_reason=completion.finish_reason,
            cached=tried.cached))

    async def _tries(self, task, first, before: int, repeat: int) -> _Tried:
        """Ask until the answer parses (task.tries at most), each answer cached at once."""
        attempts, spent = before, _Spent()
        parsed = completion = None
        cached = False
        for attempt in range(max(task.tries, 1)):
            rendered = first if attempt == 0 else task.retry_prompt(first, attempt)
            answer = await self._complete(task_request(self.prepared, rendered, attempt, repeat, self.store))
            attempts += answer.calls
            if answer.completion is None:
                return _Tried(None, None, attempts, spent, False, answer.error)
            if answer.cache_entry is not None:  # a try that is not the last is kept all the same
                self.store.runs.cache_response(*answer.cache_entry)
            completion, cached = answer.completion, answer.cached
            spent.add(completion)
            parsed = task.parse(completion.text)
            if parsed.status == "ok":
                break
        return _Tried(parsed, completion, attempts, spent, cached)

    async def _complete(self, request: CompletionRequest) -> _Answer:
        """The one way to an answer: the response cache first, else the model with retries."""
        key = cache_key(self.backend.identity, request)
        cached = self.store.runs.cached_response(key) if self.prepared.use_cache else None
        if cached is not None:
            completion = Completion(cached.text, cached.tokens_in, cached.tokens_out, 0.0, cached.finish_reason,
                                    tool_calls_of(cached.tool_calls))
            return _Answer(completion, cached=True, calls=0)
        outcome = await call_with_retries(lambda: self.backend.complete(request), self.policy, self.gate)
        completion = outcome.completion
        if completion is None:
            return _Answer(None, cached=False, calls=outcome.calls, error=outcome.error)
        entry = (key, self.identity_text, CachedResponse(completion.text, completion.tokens_in,
                                                         completion.tokens_out, completion.finish_reason,
                                                         tool_calls_text(completion.tool_calls)))
        return _Answer(completion, cached=False, calls=outcome.calls, cache_entry=entry)

    def _finish_with_error(self, claim_id: int, message: str, attempts: int, fatal: bool = False) -> None:
        """Record an item that got no answer; a fatal error (a refused key) stops the run."""
        self._finish(Prediction(run_id=self.run_id, claim_id=claim_id, status="error", error=message,
                                attempts=attempts))
        if fatal:
            self.fatal = message

    def _finish(self, prediction: Prediction, cache: tuple[str, str, CachedResponse] | None = None) -> None:
        """Commit one item now (with its cache entry, if given), then count it and tell the listener."""
        self.store.runs.record(prediction, cache)
        progress = self.progress
        if self.errored.pop(prediction.claim_id, None) is not None:
            progress.error -= 1
        if prediction.status == "error":
            self.errored[prediction.claim_id] = prediction.attempts
        setattr(progress, prediction.status, getattr(progress, prediction.status) + 1)
        progress.cached += prediction.cached
        if not prediction.cached:  # tokens spent by this run; the cache's were paid earlier
            progress.tokens_in += prediction.tokens_in or 0
            progress.tokens_out += prediction.tokens_out or 0
        progress.latency_s += prediction.latency_s or 0.0
        if self.listening:
            self.emit(ItemFinished(self.run_id, prediction.claim_id, prediction, dataclasses.replace(progress)))
