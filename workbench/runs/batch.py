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

from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from store import BatchBusy, CachedResponse, Prediction, RunBatch, RunProgress, Store
from store.records import to_json
from workbench.backends import BackendError, Completion, open_backend
from workbench.backends.batch_api import SUBMIT_TIMEOUT_S, BatchAnswer, BatchState, batch_api
from workbench.config import load_settings
from workbench.errors import WorkbenchError
from workbench.prompting import PromptError
from workbench.runs.engine import CLAIM_BATCH, PreparedRun, unconfirmed_advice, waiting_message
from workbench.runs.requests import cache_key, item_prediction, item_request, tool_calls_text

CUSTOM_ID_PREFIX = "claim-"
COMMIT_EVERY = 500
"""Answers read back from a batch are committed this many at a time (they are safe at the
provider until then, and one commit per answer would make collecting 100k answers slow)."""


class BatchRunError(WorkbenchError):
    """A batch request that cannot go ahead; the message says why and what to do."""


@dataclass
class Submitted:
    batches: list[RunBatch] = field(default_factory=list)
    """Empty when nothing needed sending (every claim cached or unrenderable)."""
    requests: int = 0
    cached: int = 0
    unrenderable: int = 0


@dataclass
class Collected:
    waiting: list[tuple[RunBatch, BatchState]] = field(default_factory=list)
    unconfirmed: list[RunBatch] = field(default_factory=list)
    """Submits that were cut off: the provider may or may not have the batch."""
    released: list[RunBatch] = field(default_factory=list)
    """Cut-off submits the provider has no batch for: their claims are free again."""
    collected: list[tuple[RunBatch, BatchState]] = field(default_factory=list)
    failed: list[tuple[RunBatch, BatchState]] = field(default_factory=list)
    answers: int = 0
    """Predictions recorded now (answers and the provider's per-request failures)."""
    ignored: int = 0
    """Lines naming a claim that is not pending in this run (already answered, or unknown)."""
    progress: RunProgress | None = None


async def submit_batch(db_path: Path, prepared: PreparedRun) -> Submitted:
    """Send every pending claim of the run to the provider's batch API (split to fit its
    limits); cached answers are recorded instead of sent."""
    if prepared.search is not None:
        raise BatchRunError("a search run goes turn by turn, searching between turns: it runs live")
    if prepared.task is not None and prepared.task.kind not in ("judge", "screen"):
        raise BatchRunError("batches are for verdict, judge and screening runs; the contamination steps run live")
    async with _session(db_path, prepared, live_check=True) as (store, backend, api):
        submitted, lines = Submitted(), []
        spent = store.runs.errored_attempts(prepared.run.id)
        for claim in _claims(store, prepared.pending_claim_ids):
            _add_request(store, prepared, backend, api, claim, spent.get(claim.id, 0), submitted, lines)
        chunks = split_lines(lines, api.max_requests, api.max_bytes)
        if chunks:
            await _send(store, prepared, api, chunks, submitted)
        elif not store.runs.pending_claim_ids(prepared.run.id):
            store.runs.set_status(prepared.run.id, "finished")
        return submitted


@asynccontextmanager
async def _session(db_path: Path, prepared: PreparedRun, live_check: bool = False):
    """(store, backend, batch api) for one command; backend errors become BatchRunError."""
    store = Store.open(db_path)
    backend = None
    try:
        if live_check:
            _refuse_if_live(store, prepared)
        backend = open_backend(prepared.spec, prepared.params, load_settings())
        yield store, backend, batch_api(backend)
    except BackendError as error:
        raise BatchRunError(error.message) from None
    finally:
        if backend is not None:
            await backend.aclose()
        store.close()


async def _send(store: Store, prepared: PreparedRun, api, chunks: list[list[str]], submitted: Submitted) -> None:
    """Reserve a row per batch (refusing if the run has one out), then send them in turn.

    A batch the provider refused outright frees its row. One whose reply was lost (a
    timeout, a dropped connection, a 5xx) may exist at the provider, so its row stays
    `submitting`, holding the run's claims until `collect` has asked (or `forget`).
    """
    try:
        rows = store.batches.reserve(prepared.run.id, api.provider, [len(chunk) for chunk in chunks])
    except BatchBusy as busy:
        raise BatchRunError(waiting_message(prepared.run.name, busy.waiting)) from None
    sent = 0
    try:
        for row, chunk in zip(rows, chunks):
            try:
                batch_id = await api.submit(chunk, prepared.run.name, batch_tag(row))
            except BackendError as error:
                if not _maybe_made(error):
                    done = f" ({sent} earlier batch(es) of this run went out)" if sent else ""
                    raise BatchRunError(
                        f"{error.message}; the provider refused this batch{done}; submit again"
                        " later to send what is left"
                    ) from None
                store.batches.annotate(row.id, f"the submit was cut off ({error.message})")
                sent += 1
                raise BatchRunError(
                    f"{error.message}; the provider may have made the batch all the same:"
                    f" {unconfirmed_advice(api.provider, prepared.run.name)}"
                ) from None
            submitted.batches.append(store.batches.submitted(row.id, batch_id))
            submitted.requests += len(chunk)
            store.runs.set_batched(prepared.run.id)
            sent += 1
    finally:
        store.batches.release([row.id for row in rows[sent:]])


def _maybe_made(error: BackendError) -> bool:
    """Could the provider have made the batch although the call failed? Yes when no clear
    answer came back (a timeout, a dropped connection) or the server broke (5xx)."""
    return error.status is None or error.status >= 500


def split_lines(lines: list[str], max_requests: int, max_bytes: int) -> list[list[str]]:
    """The request lines in batches of at most `max_requests` lines and `max_bytes` bytes."""
    chunks, current, size = [], [], 0
    for line in lines:
        length = len(line.encode()) + 1
        if current and (len(current) >= max_requests or size + length > max_bytes):
            chunks.append(current)
            current, size = [], 0
        current.append(line)
        size += length
    if current:
        chunks.append(current)
    return chunks


def _add_request(
    store: Store, prepared: PreparedRun, backend, api, claim, attempts: int, submitted: Submitted, lines: list[str]
) -> None:
    """Queue one claim's request, or record it now (from the cache, or as unrenderable)."""
    try:
        request = item_request(store, prepared, claim)
    except PromptError as error:
        store.runs.record(
            Prediction(run_id=prepared.run.id, claim_id=claim.id, status="error", error=str(error), attempts=attempts)
        )
        submitted.unrenderable += 1
        return
    hit = store.runs.cached_response(cache_key(backend.identity, request)) if prepared.use_cache else None
    if hit is not None:
        completion = Completion(hit.text, hit.tokens_in, hit.tokens_out, 0.0, hit.finish_reason)
        store.runs.record(item_prediction(prepared, claim.id, completion, attempts, cached=True))
        submitted.cached += 1
        return
    lines.append(api.line(f"{CUSTOM_ID_PREFIX}{claim.id}", request))


async def collect_batches(db_path: Path, prepared: PreparedRun) -> Collected:
    """Read back every batch of the run that has ended; report those still at the provider."""
    async with _session(db_path, prepared) as (store, backend, api):
        collected = Collected()
        for row in store.batches.waiting(prepared.run.id):
            if row.status == "submitting":
                row = await _settle_unconfirmed(store, api, row, collected)
                if row is None:
                    continue
            state = await api.state(row.batch_id)
            if not state.ended:
                collected.waiting.append((row, state))
            elif state.failure and not (state.succeeded or state.failed):
                store.batches.close(row.id, "failed", state.status, state.failure)
                collected.failed.append((row, state))
            else:
                _record_answers(store, prepared, backend.identity, await api.answers(row.batch_id), collected)
                store.batches.close(
                    row.id,
                    "collected",
                    state.status,
                    f"{state.succeeded} answered, {state.failed} failed at the provider",
                )
                collected.collected.append((row, state))
        closed = collected.collected or collected.failed or collected.released
        if closed and not store.batches.waiting(prepared.run.id):
            # Nothing collected and nothing failed: the run is back where it was before the submit.
            store.runs.set_status(
                prepared.run.id, "failed" if collected.failed else "finished" if collected.collected else "pending"
            )
        collected.progress = store.runs.progress(prepared.run.id)
        return collected


def batch_tag(row: RunBatch) -> str:
    """What a batch made by this submit carries, so a lost reply can be looked up."""
    return f"wb-{row.id}-{row.submitted_at}"


async def _settle_unconfirmed(store: Store, api, row: RunBatch, collected: Collected) -> RunBatch | None:
    """A submit whose reply never came: ask the provider (where it can tell) whether the
    batch exists. Found: it is submitted. Not there: the row is closed and the claims are
    free. A submit that may still be under way in another process is left alone."""
    if row.note is None and _age_s(row.submitted_at) < 2 * SUBMIT_TIMEOUT_S:
        collected.unconfirmed.append(row)
        return None
    could_tell, batch_id = await api.find(batch_tag(row))
    if batch_id is not None:
        store.runs.set_batched(row.run_id)
        return store.batches.submitted(row.id, batch_id)
    if could_tell:
        store.batches.close(row.id, "failed", None, "the provider has no batch from this submit: it never got there")
        collected.released.append(row)
    else:
        collected.unconfirmed.append(row)
    return None


def _age_s(stamp: str) -> float:
    moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    return (datetime.now(UTC) - moment).total_seconds()


async def cancel_batches(db_path: Path, prepared: PreparedRun) -> list[RunBatch]:
    """Ask the provider to stop the run's batches; `collect` then reads what was answered."""
    async with _session(db_path, prepared) as (store, _backend, api):
        waiting = store.batches.of_run(prepared.run.id, "submitted")
        for row in waiting:
            await api.cancel(row.batch_id)
        return waiting


def _record_answers(
    store: Store, prepared: PreparedRun, identity: dict, answers: list[BatchAnswer], collected: Collected
) -> None:
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
    spent = store.runs.errored_attempts(prepared.run.id)
    claims = list(_claims(store, list(by_claim)))
    for start in range(0, len(claims), COMMIT_EVERY):
        with store.transaction():
            for claim in claims[start : start + COMMIT_EVERY]:
                _record_answer(
                    store, prepared, identity, identity_text, claim, by_claim[claim.id], spent.get(claim.id, 0) + 1
                )
                collected.answers += 1


def _record_answer(
    store: Store, prepared: PreparedRun, identity: dict, identity_text: str, claim, answer: BatchAnswer, attempts: int
) -> None:
    if answer.completion is None:
        store.runs.record(
            Prediction(run_id=prepared.run.id, claim_id=claim.id, status="error", error=answer.error, attempts=attempts)
        )
        return
    completion = answer.completion
    # The same request a live run would make, so the answer is cached under the same key.
    key = cache_key(identity, item_request(store, prepared, claim))
    store.runs.record(
        item_prediction(prepared, claim.id, completion, attempts, cached=False, batched=True),
        cache=(
            key,
            identity_text,
            CachedResponse(
                completion.text,
                completion.tokens_in,
                completion.tokens_out,
                completion.finish_reason,
                tool_calls_text(completion.tool_calls),
            ),
        ),
    )


def _refuse_if_live(store: Store, prepared: PreparedRun) -> None:
    run = store.runs.get(prepared.run.id)
    if run.status == "running":
        raise BatchRunError(
            f"run {run.name} is being answered live right now ({run.owner}); let it finish or cancel it first"
        )


def forget_batches(store: Store, run) -> list[RunBatch]:
    """Stop waiting for the run's open batches, so its claims can be answered another way."""
    forgotten = store.batches.forget(run.id)
    if forgotten and store.runs.get(run.id).status == "batched":
        store.runs.set_status(run.id, "pending")  # nothing under way: a resume answers the claims
    return forgotten


def _claims(store: Store, claim_ids: list[int]):
    for start in range(0, len(claim_ids), CLAIM_BATCH):
        yield from store.runs.claims(claim_ids[start : start + CLAIM_BATCH])


def _claim_id(custom_id: str) -> int | None:
    number = custom_id[len(CUSTOM_ID_PREFIX) :] if custom_id.startswith(CUSTOM_ID_PREFIX) else ""
    return int(number) if number.isdigit() else None


__all__ = [
    "BatchRunError",
    "Collected",
    "Submitted",
    "batch_tag",
    "cancel_batches",
    "collect_batches",
    "forget_batches",
    "split_lines",
    "submit_batch",
]
