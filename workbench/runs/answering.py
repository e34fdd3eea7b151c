"""One run's part of an execution (RunEngine): ask the cache or the model for each
claim, retry, parse, and commit each answer the moment it exists.

The scheduling of one or more runs together lives in workbench/runs/engine.py.
"""

from __future__ import annotations

import dataclasses
import threading

from store import CachedResponse, Claim, Prediction, Store
from store.records import to_json
from workbench.backends import Backend, BackendError, Completion, CompletionRequest, open_backend
from workbench.prompting import PromptError
from workbench.runs.ordering import RunQueue
from workbench.runs.requests import (
    cache_key,
    spent,
    task_request,
    tool_calls_of,
    tool_calls_text,
    verdict_prediction,
    verdict_request,
)
from workbench.runs.retry import RetryGate, RetryPolicy, call_with_retries
from workbench.runs.types import ItemFinished, PreparedRun, RunFinished, RunStarted, TaskAnswer


class _Spent(dict):
    """Tokens and times (Prediction fields) summed over a task item's tries."""

    def add(self, completion: Completion) -> None:
        for key, value in spent(completion).items():
            if value is not None:
                self[key] = (self.get(key) or 0) + value


@dataclasses.dataclass
class _Answer:
    """What asking for one completion gave: the completion (None after an error), whether
    the cache gave it, the model calls made, and the cache entry a fresh answer makes."""

    completion: Completion | None
    cached: bool
    calls: int
    error: BackendError | None = None
    cache_entry: tuple[str, str, CachedResponse] | None = None
    stopped: bool = False
    """Not asked: the request could take the spending past the budget (the claim stays pending)."""


@dataclasses.dataclass
class _Tried:
    """A task item's tries at one repeat: the last parse and completion, or the error (or
    `stopped`: not asked, the budget would not allow it)."""

    parsed: TaskAnswer | None
    completion: Completion | None
    attempts: int
    spent: _Spent
    cached: bool
    error: BackendError | None = None
    stopped: bool = False


class RunEngine:
    """One run's part of an execution: its progress, its backend, its answers."""

    def __init__(
        self,
        store: Store,
        prepared: PreparedRun,
        on_event,
        cancel: threading.Event,
        gate: RetryGate | None = None,
        budget=None,
    ):
        self.store, self.prepared, self.cancel = store, prepared, cancel
        # Without a listener no per-item event (and progress copy) is built at all.
        self.listening = on_event is not None
        self.emit = on_event or (lambda event: None)
        self.run_id = prepared.run.id
        self.policy = RetryPolicy(attempts=int(prepared.params.get("attempts") or 4))
        self.gate = gate or RetryGate(prepared.concurrency)
        self.budget = budget
        self.fatal: str | None = None
        self.backend: Backend | None = None
        self.search = None
        """A search run's agent (workbench.search.agent), opened with the run."""

    def start(self) -> RunQueue:
        """Mark the run running and tell the listener; its pending claims, to be fed."""
        pending = self.store.runs.pending_claim_ids(self.run_id)
        self.progress = self.store.runs.progress(self.run_id)
        self.errored = self.store.runs.errored_attempts(self.run_id)
        self.store.runs.set_status(self.run_id, "running")
        self.emit(RunStarted(self.run_id, self.prepared.run.name, self.progress.total, len(pending)))
        verdicts = self.prepared.task is None and self.prepared.search is None
        return RunQueue(self, pending, self._render if verdicts else None)

    def open(self, settings) -> None:
        """The backend (and a search run's agent): nothing is sent yet."""
        self.backend = open_backend(self.prepared.spec, self.prepared.params, settings)
        self.identity_text = to_json(self.backend.identity)
        if self.prepared.search is not None:
            from workbench.search.agent import open_agent

            self.search = open_agent(self, self.prepared.search, settings)

    async def close(self) -> None:
        if self.backend is not None:
            await self.backend.aclose()
        if self.search is not None:
            await self.search.aclose()

    def finish(self, fatal: str | None) -> None:
        """The run's final status (a sweep's fatal error ends every run in it)."""
        self.fatal = self.fatal or fatal
        at_budget = (
            self.budget is not None and self.budget.reached and bool(self.store.runs.pending_claim_ids(self.run_id))
        )
        status = "failed" if self.fatal else "cancelled" if self.cancel.is_set() or at_budget else "finished"
        self.store.runs.set_status(self.run_id, status)
        message = self.fatal or (self.budget.stop_reason if at_budget else None)
        self.emit(RunFinished(self.run_id, status, dataclasses.replace(self.progress), message))

    def _render(self, claim: Claim) -> CompletionRequest:
        return verdict_request(self.prepared, claim, self.store)

    async def _answer(
        self, claim: Claim, request: CompletionRequest | None = None, problem: PromptError | None = None
    ) -> None:
        """Answer one claim (from the cache or the model), parse, commit, report; a verdict
        run's request comes rendered (or with the PromptError rendering met)."""
        before = self.errored.get(claim.id, 0)
        if self.prepared.task is not None:
            await self._answer_task(claim, before)
            return
        if self.search is not None:
            await self.search.answer(claim, before)
            return
        if problem is not None or request is None:
            try:
                request = request or self._render(claim)
            except PromptError as error:
                problem = error
        if problem is not None:
            self._finish_with_error(claim.id, str(problem), before)
            return
        answer = await self._complete(request)
        if answer.stopped:
            return
        attempts = before + answer.calls
        if answer.completion is None:
            self._finish_with_error(claim.id, answer.error.message, attempts, fatal=answer.error.fatal)
            return
        # The answer and its cache entry in one transaction: one commit per answer.
        self._finish(
            verdict_prediction(self.prepared, claim.id, answer.completion, attempts, answer.cached),
            cache=answer.cache_entry,
        )

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
        if tried.stopped:
            return
        if tried.error is not None:
            self._finish_with_error(claim.id, tried.error.message, tried.attempts, fatal=tried.error.fatal)
            return
        if repeats > 1:
            task.keep_repeat(self.store, self.run_id, claim.id, 0, tried.parsed, tried.completion, None, tried.cached)
            for repeat in range(1, repeats):
                again = await self._tries(task, first, 0, repeat)
                if again.stopped:  # the item stays pending; its repeats so far come from the cache
                    return
                task.keep_repeat(
                    self.store,
                    self.run_id,
                    claim.id,
                    repeat,
                    again.parsed,
                    again.completion,
                    again.error.message if again.error else None,
                    again.cached,
                )
                if again.error is not None and again.error.fatal:
                    self.fatal = again.error.message
                    return
        parsed, completion = tried.parsed, tried.completion
        self._finish(
            Prediction(
                run_id=self.run_id,
                claim_id=claim.id,
                status=parsed.status,
                explanation=parsed.explanation,
                raw_output=completion.text,
                parsed=parsed.parsed,
                attempts=tried.attempts,
                finish_reason=completion.finish_reason,
                cached=tried.cached,
                **{"latency_s": 0.0, **tried.spent},
            )
        )

    async def _tries(self, task, first, before: int, repeat: int) -> _Tried:
        """Ask until the answer parses (task.tries at most), each answer cached at once."""
        attempts, spent = before, _Spent()
        parsed = completion = None
        cached = False
        for attempt in range(max(task.tries, 1)):
            rendered = first if attempt == 0 else task.retry_prompt(first, attempt)
            answer = await self._complete(task_request(self.prepared, rendered, attempt, repeat, self.store))
            if answer.stopped:
                return _Tried(None, None, attempts, spent, False, stopped=True)
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
            completion = Completion(
                cached.text,
                cached.tokens_in,
                cached.tokens_out,
                0.0,
                cached.finish_reason,
                tool_calls_of(cached.tool_calls),
            )
            return _Answer(completion, cached=True, calls=0)
        reservation = None
        if self.budget is not None:
            reservation = self.budget.reserve(request)
            if reservation is None:
                return _Answer(None, cached=False, calls=0, stopped=True)
        try:
            outcome = await call_with_retries(lambda: self.backend.complete(request), self.policy, self.gate)
        except BaseException:  # abandoned in flight (a cancel): no answer, nothing recorded
            if reservation is not None:
                self.budget.settle(reservation, None)
            raise
        if reservation is not None:
            self.budget.settle(reservation, outcome.completion)
        completion = outcome.completion
        if completion is None:
            return _Answer(None, cached=False, calls=outcome.calls, error=outcome.error)
        entry = (
            key,
            self.identity_text,
            CachedResponse(
                completion.text,
                completion.tokens_in,
                completion.tokens_out,
                completion.finish_reason,
                tool_calls_text(completion.tool_calls),
            ),
        )
        return _Answer(completion, cached=False, calls=outcome.calls, cache_entry=entry)

    def _finish_with_error(self, claim_id: int, message: str, attempts: int, fatal: bool = False) -> None:
        """Record an item that got no answer; a fatal error (a refused key) stops the run."""
        self._finish(
            Prediction(run_id=self.run_id, claim_id=claim_id, status="error", error=message, attempts=attempts)
        )
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
