"""Runs through a provider's batch API: hand the pending claims over as one batch, read
the answers back when the provider has them (within a day, at a lower price).

    prepared = prepare_run(store, RunRequest(model="openai:gpt-4.1-mini", ...))
    submitted = await submit_batch(db_path, prepared)     # one request per pending claim
    collected = await collect_batches(db_path, prepared)  # reads the batches that ended

The requests are the ones a live run would send (same template, setting, params), so
answers read back are cached under the same keys and a live re-run costs nothing.
Answers already in the cache are recorded at submit time and never sent. Each answer read
back becomes a prediction with its cache entry; a request the provider failed becomes an
error prediction carrying the provider's reason, which a later batch or a live
`--resume` retries. While a batch is out its run is "batched", and the run engine will
not send its claims again until the batch is collected or cancelled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from store import CachedResponse, Prediction, RunBatch, RunProgress, Store
from store.records import to_json
from workbench.backends import BackendError, Completion, open_backend
from workbench.backends.batch_api import BatchAnswer, BatchState, batch_api
from workbench.config import load_settings
from workbench.prompting import PromptError
from workbench.runner import (
    CLAIM_BATCH, PreparedRun, cache_key, verdict_prediction, verdict_request, waiting_message,
)

CUSTOM_ID_PREFIX = "claim-"
COMMIT_EVERY = 500
"""Answers read back from a batch are committed this many at a time (they are safe at the
provider until then, and one commit per answer would make collecting 100k answers slow)."""


class BatchRunError(Exception):
    """A batch request that cannot go ahead; the message says why and what to do."""


@dataclass
class Submitted:
    batch: RunBatch | None
    """None when nothing needed sending (every claim cached or unrenderable)."""
    requests: int = 0
    cached: int = 0
    unrenderable: int = 0


@dataclass
class Collected:
    waiting: list[tuple[RunBatch, BatchState]] = field(default_factory=list)
    collected: list[tuple[RunBatch, BatchState]] = field(default_factory=list)
    failed: list[tuple[RunBatch, BatchState]] = field(default_factory=list)
    answers: int = 0
    """Predictions recorded now (answers and the provider's per-request failures)."""
    ignored: int = 0
    """Lines naming a claim that is not pending in this run (already answered, or unknown)."""
    progress: RunProgress | None = None


async def submit_batch(db_path: Path, prepared: PreparedRun) -> Submitted:
    """Send every pending claim of the run as one batch; cached answers are recorded instead."""
    if prepared.task is not None:
        raise BatchRunError("batches are for verdict runs; the contamination steps run live")
    store = Store.open(db_path)
    backend = None
    try:
        _refuse_if_waiting(store, prepared)
        backend = open_backend(prepared.spec, prepared.params, load_settings())
        api = batch_api(backend)
        submitted, requests = Submitted(None), []
        for claim in _claims(store, prepared.pending_claim_ids):
            _add_request(store, prepared, backend, claim, submitted, requests)
        if requests:
            batch_id = await api.submit(requests, prepared.run.name)
            submitted.batch = store.batches.add(prepared.run.id, api.provider, batch_id, len(requests))
            submitted.requests = len(requests)
            store.runs.set_batched(prepared.run.id)
        elif not store.runs.pending_claim_ids(prepared.run.id):
            store.runs.set_status(prepared.run.id, "finished")
        return submitted
    except BackendError as error:
        raise BatchRunError(error.message) from None
    finally:
        if backend is not None:
            await backend.aclose()
        store.close()


def _add_request(store: Store, prepared: PreparedRun, backend, claim, submitted: Submitted,
                 requests: list) -> None:
    """Queue one claim's request, or record it now (from the cache, or as unrenderable)."""
    attempts = store.runs.previous_attempts(prepared.run.id, claim.id)
    try:
        request = verdict_request(prepared, claim)
    except PromptError as error:
        store.runs.record(Prediction(run_id=prepared.run.id, claim_id=claim.id, status="error", error=str(error),
                                     attempts=attempts))
        submitted.unrenderable += 1
        return
    hit = store.runs.cached_response(cache_key(backend.identity, request)) if prepared.use_cache else None
    if hit is not None:
        completion = Completion(hit.text, hit.tokens_in, hit.tokens_out, 0.0, hit.finish_reason)
        store.runs.record(verdict_prediction(prepared, claim.id, completion, attempts, cached=True))
        submitted.cached += 1
        return
    requests.append((f"{CUSTOM_ID_PREFIX}{claim.id}", request))


async def collect_batches(db_path: Path, prepared: PreparedRun) -> Collected:
    """Read back every batch of the run that has ended; report those still at the provider."""
    store = Store.open(db_path)
    backend = None
    try:
        backend = open_backend(prepared.spec, prepared.params, load_settings())
        api = batch_api(backend)
        collected = Collected()
        for row in store.batches.of_run(prepared.run.id, "submitted"):
            state = await api.state(row.batch_id)
            if not state.ended:
                collected.waiting.append((row, state))
            elif state.failure and not (state.succeeded or state.failed):
                store.batches.close(row.id, "failed", state.status, state.failure)
                collected.failed.append((row, state))
            else:
                _record_answers(store, prepared, backend.identity, await api.answers(row.batch_id), collected)
                store.batches.close(row.id, "collected", state.status,
                                    f"{state.succeeded} answered, {state.failed} failed at the provider")
                collected.collected.append((row, state))
        if not collected.waiting and not store.batches.of_run(prepared.run.id, "submitted"):
            store.runs.set_status(prepared.run.id, "failed" if collected.failed else "finished")
        collected.progress = store.runs.progress(prepared.run.id)
        return collected
    except BackendError as error:
        raise BatchRunError(error.message) from None
    finally:
        if backend is not None:
            await backend.aclose()
        store.close()


async def cancel_batches(db_path: Path, prepared: PreparedRun) -> list[RunBatch]:
    """Ask the provider to stop the run's batches; `collect` then reads what was answered."""
    store = Store.open(db_path)
    backend = None
    try:
        backend = open_backend(prepared.spec, prepared.params, load_settings())
        api = batch_api(backend)
        waiting = store.batches.of_run(prepared.run.id, "submitted")
        for row in waiting:
            await api.cancel(row.batch_id)
        return waiting
    except BackendError as error:
        raise BatchRunError(error.message) from None
    finally:
        if backend is not None:
            await backend.aclose()
        store.close()


def _record_answers(store: Store, prepared: PreparedRun, identity: dict, answers: list[BatchAnswer],
                    collected: Collected) -> None:
    """One prediction (with its cache entry) per answer for a pending claim of the run."""
    pending = set(store.runs.pending_claim_ids(prepared.run.id))
    by_claim = {}
    for answer in answers:
        claim_id = _claim_id(answer.custom_id)
        if claim_id in pending:
            by_claim[claim_id] = answer
        else:
            collected.ignored += 1
    identity_text = to_json(identity)
    claims = list(_claims(store, list(by_claim)))
    for start in range(0, len(claims), COMMIT_EVERY):
        with store.db.atomic():
            for claim in claims[start:start + COMMIT_EVERY]:
                _record_answer(store, prepared, identity, identity_text, claim, by_claim[claim.id])
                collected.answers += 1


def _record_answer(store: Store, prepared: PreparedRun, identity: dict, identity_text: str, claim,
                   answer: BatchAnswer) -> None:
    attempts = store.runs.previous_attempts(prepared.run.id, claim.id) + 1
    if answer.completion is None:
        store.runs.record(Prediction(run_id=prepared.run.id, claim_id=claim.id, status="error",
                                     error=answer.error, attempts=attempts))
        return
    completion = answer.completion
    # The same request a live run would make, so the answer is cached under the same key.
    key = cache_key(identity, verdict_request(prepared, claim))
    store.runs.record(verdict_prediction(prepared, claim.id, completion, attempts, cached=False), cache=(
        key, identity_text, CachedResponse(completion.text, completion.tokens_in, completion.tokens_out,
                                           completion.finish_reason)))


def _refuse_if_waiting(store: Store, prepared: PreparedRun) -> None:
    waiting = store.batches.of_run(prepared.run.id, "submitted")
    if waiting:
        raise BatchRunError(waiting_message(prepared.run.name, waiting))


def _claims(store: Store, claim_ids: list[int]):
    for start in range(0, len(claim_ids), CLAIM_BATCH):
        yield from store.runs.claims(claim_ids[start:start + CLAIM_BATCH])


def _claim_id(custom_id: str) -> int | None:
    number = custom_id[len(CUSTOM_ID_PREFIX):] if custom_id.startswith(CUSTOM_ID_PREFIX) else ""
    return int(number) if number.isdigit() else None


__all__ = ["BatchRunError", "Collected", "Submitted", "cancel_batches", "collect_batches", "submit_batch"]
