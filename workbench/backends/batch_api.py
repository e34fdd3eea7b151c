"""The providers' batch APIs: hand over many requests at once, read the answers back later.

OpenAI (and servers that implement its /v1/batches): the requests go up as a JSONL file,
a batch is created on it, and the answers come back as an output file (plus an error
file). Anthropic: the requests go in one Message Batches call; the results stream back
as JSONL once the batch has ended. Either way each request carries a custom id, and the
workbench only reads what the provider says; it never re-sends a request on its own.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import anthropic
import openai

from workbench.backends.anthropic_backend import AnthropicBackend
from workbench.backends.base import Backend, BackendError, Completion, CompletionRequest, scrub
from workbench.backends.http_errors import from_sdk_error
from workbench.backends.openai_backend import OpenAIBackend

COMPLETION_WINDOW = "24h"
TAG_KEY = "workbench_batch"
"""Batch metadata naming the workbench submit that made it (OpenAI)."""
LOOKUP_LIMIT = 1000
"""How many of the account's newest batches `find` looks through before giving up."""
SUBMIT_TIMEOUT_S = 600.0
"""Uploading a big batch takes far longer than one live request; a reply lost to a short
timeout could leave a batch at the provider the workbench does not know about."""
OPENAI_ENDS = {"completed", "failed", "expired", "cancelled"}
"""OpenAI batch statuses after which nothing more will arrive."""


@dataclass(frozen=True)
class BatchState:
    """Where a batch stands at the provider."""

    status: str
    """The provider's own word (validating, in_progress, completed, ended, ...)."""
    ended: bool
    """Nothing more will arrive: read the results now."""
    succeeded: int = 0
    failed: int = 0
    total: int = 0
    failure: str | None = None
    """Why the whole batch failed (e.g. the provider rejected the input file)."""


@dataclass(frozen=True)
class BatchAnswer:
    """One request's outcome: a completion, or the provider's reason there is none."""

    custom_id: str
    completion: Completion | None = None
    error: str | None = None


class _ProviderBatches:
    """What both providers' batch APIs share: the backend whose client and key they use."""

    provider: str
    sdk: Any
    max_requests: int
    max_bytes: int

    def __init__(self, backend):
        self.backend = backend

    def _failed(self, custom_id: str, reason: str) -> BatchAnswer:
        return BatchAnswer(custom_id, error=scrub(reason, [self.backend._api_key]))

    def _calls(self) -> _SdkErrors:
        return _SdkErrors(self.sdk, [self.backend._api_key])


class OpenAIBatches(_ProviderBatches):
    """OpenAI's Batch API (files + batches) on the backend's own client."""

    provider, sdk = "openai", openai
    max_requests = 50_000
    max_bytes = 190_000_000
    """OpenAI's limits per batch: 50,000 requests and a 200 MB input file (with headroom)."""

    def line(self, custom_id: str, request: CompletionRequest) -> str:
        """The request as one line of the batch input file."""
        return json.dumps(
            {
                "custom_id": custom_id,
                "method": "POST",
                "url": "/v1/chat/completions",
                "body": self.backend.arguments(request),
            },
            ensure_ascii=False,
        )

    async def submit(self, lines: list[str], label: str, tag: str) -> str:
        """Upload the lines as a file and create a batch on it, tagged so `find` can tell
        later whether a create whose reply was lost went through; the batch id."""
        upload = ("workbench-batch.jsonl", ("\n".join(lines) + "\n").encode(), "application/jsonl")
        client = self.backend._get_client().with_options(timeout=SUBMIT_TIMEOUT_S)
        async with self._calls():
            uploaded = await client.files.create(file=upload, purpose="batch")
        try:
            async with self._calls():
                batch = await client.batches.create(
                    input_file_id=uploaded.id,
                    endpoint="/v1/chat/completions",
                    completion_window=COMPLETION_WINDOW,
                    metadata={"workbench_run": label[:500], TAG_KEY: tag},
                )
        except BackendError:
            await self._delete_quietly(client, uploaded.id)  # no batch: the file would only linger
            raise
        return batch.id

    async def find(self, tag: str) -> tuple[bool, str | None]:
        """(could tell, batch id): the batch a submit tagged `tag` made, looked up among the
        account's newest batches; (True, None) when none of them carries the tag."""
        async with self._calls():
            async for looked, batch in _numbered(self.backend._get_client().batches.list(limit=100)):
                if (getattr(batch, "metadata", None) or {}).get(TAG_KEY) == tag:
                    return True, batch.id
                if looked + 1 >= LOOKUP_LIMIT:
                    return False, None
        return True, None

    async def _delete_quietly(self, client, file_id: str) -> None:
        try:
            await client.files.delete(file_id)
        except Exception:  # the batch error is the one worth reporting
            pass

    async def state(self, batch_id: str) -> BatchState:
        async with self._calls():
            batch = await self.backend._get_client().batches.retrieve(batch_id)
        counts = batch.request_counts
        errors = getattr(batch, "errors", None)
        reasons = [e.message for e in (getattr(errors, "data", None) or []) if getattr(e, "message", None)]
        failure = "; ".join(reasons)[:400] or (f"the batch {batch.status}" if batch.status == "failed" else None)
        return BatchState(
            batch.status,
            batch.status in OPENAI_ENDS,
            getattr(counts, "completed", 0) or 0,
            getattr(counts, "failed", 0) or 0,
            getattr(counts, "total", 0) or 0,
            scrub(failure, [self.backend._api_key]) if failure else None,
        )

    async def answers(self, batch_id: str) -> list[BatchAnswer]:
        async with self._calls():
            client = self.backend._get_client()
            batch = await client.batches.retrieve(batch_id)
            texts = [
                (await client.files.content(file_id)).text
                for file_id in (batch.output_file_id, batch.error_file_id)
                if file_id
            ]
        return [self._answer(line) for text in texts for line in text.splitlines() if line.strip()]

    async def cancel(self, batch_id: str) -> None:
        async with self._calls():
            await self.backend._get_client().batches.cancel(batch_id)

    def _answer(self, line: str) -> BatchAnswer:
        try:
            row = json.loads(line)
            custom_id = str(row["custom_id"])
        except (ValueError, KeyError, TypeError):
            return self._failed("", f"unreadable batch output line: {line[:200]!r}")
        response, error = row.get("response"), row.get("error")
        response = response if isinstance(response, dict) else {}
        if error:
            return self._failed(custom_id, f"batch: {_message(error)}")
        if response.get("status_code") != 200:
            return self._failed(
                custom_id, f"batch: HTTP {response.get('status_code')}: {_message(response.get('body'))}"
            )
        try:
            return BatchAnswer(custom_id, self.backend.completion(response.get("body"), 0.0))
        except BackendError as problem:
            return BatchAnswer(custom_id, error=f"batch: {problem.message}")


class AnthropicBatches(_ProviderBatches):
    """Anthropic's Message Batches API on the backend's own client."""

    provider, sdk = "anthropic", anthropic
    max_requests = 100_000
    max_bytes = 250_000_000
    """Anthropic's limits per batch: 100,000 requests and 256 MB (with headroom)."""

    def line(self, custom_id: str, request: CompletionRequest) -> str:
        """The request as one item of the batch, in JSON."""
        return json.dumps({"custom_id": custom_id, "params": self._params(request)}, ensure_ascii=False)

    async def submit(self, lines: list[str], label: str, tag: str) -> str:
        """Create a Message Batch holding the items; the batch id (batches carry no tag here)."""
        client = self.backend._get_client().with_options(timeout=SUBMIT_TIMEOUT_S)
        async with self._calls():
            batch = await client.messages.batches.create(requests=[json.loads(line) for line in lines])
        return batch.id

    async def find(self, tag: str) -> tuple[bool, str | None]:
        """Message Batches carry no metadata to look a lost submit up by: cannot tell."""
        return False, None

    def _params(self, request: CompletionRequest) -> dict[str, Any]:
        params = self.backend.arguments(request)
        params.update(params.pop("extra_body", {}))  # in a batch, every field sits in params
        return params

    async def state(self, batch_id: str) -> BatchState:
        async with self._calls():
            batch = await self.backend._get_client().messages.batches.retrieve(batch_id)
        counts = batch.request_counts
        failed = sum(getattr(counts, name, 0) or 0 for name in ("errored", "canceled", "expired"))
        total = failed + (counts.succeeded or 0) + (counts.processing or 0)
        return BatchState(
            batch.processing_status, batch.processing_status == "ended", counts.succeeded or 0, failed, total
        )

    async def answers(self, batch_id: str) -> list[BatchAnswer]:
        found = []
        async with self._calls():
            async for row in await self.backend._get_client().messages.batches.results(batch_id):
                found.append(self._answer(row))
        return found

    async def cancel(self, batch_id: str) -> None:
        async with self._calls():
            await self.backend._get_client().messages.batches.cancel(batch_id)

    def _answer(self, row: Any) -> BatchAnswer:
        result = row.result
        if result.type != "succeeded":
            detail = getattr(getattr(getattr(result, "error", None), "error", None), "message", None)
            return self._failed(row.custom_id, f"batch: {result.type}" + (f": {detail}" if detail else ""))
        try:
            return BatchAnswer(row.custom_id, self.backend.completion(result.message, 0.0))
        except BackendError as problem:
            return BatchAnswer(row.custom_id, error=f"batch: {problem.message}")


def batch_api(backend: Backend) -> OpenAIBatches | AnthropicBatches:
    """The batch API of an API backend; BackendError for a local model (it has none)."""
    if isinstance(backend, OpenAIBackend):
        return OpenAIBatches(backend)
    if isinstance(backend, AnthropicBackend):
        return AnthropicBatches(backend)
    raise BackendError(
        "batch runs need an API model (openai:, anthropic: or openai-compatible: with a server"
        " that implements /v1/batches); a GGUF model runs in process",
        fatal=True,
    )


class _SdkErrors:
    """Turns any SDK exception inside the block into a BackendError without the key."""

    def __init__(self, sdk, secrets: list[str | None]):
        self.sdk, self.secrets = sdk, secrets

    async def __aenter__(self):
        return self

    async def __aexit__(self, kind, error, traceback):
        if error is None or isinstance(error, (BackendError, GeneratorExit)):
            return False
        if not isinstance(error, Exception):
            return False
        raise from_sdk_error(error, self.sdk, self.secrets) from None


async def _numbered(items):
    number = 0
    async for item in items:
        yield number, item
        number += 1


def _message(error: Any) -> str:
    """The human part of an error object in a batch line."""
    if isinstance(error, dict):
        inner = error.get("error", error)
        if isinstance(inner, dict):
            return str(inner.get("message") or inner.get("code") or json.dumps(inner))[:400]
    return str(error)[:400]


__all__ = ["AnthropicBatches", "BatchAnswer", "BatchState", "OpenAIBatches", "batch_api"]
