"""The one protocol every model backend speaks, and the error it raises."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class CompletionRequest:
    """One chat completion to make: the messages and how to sample."""

    messages: list[dict[str, str]]
    max_tokens: int = 512
    temperature: float = 0.0
    seed: int | None = 0
    json_schema: dict[str, Any] | None = None
    """Ask for JSON matching this schema (each backend constrains it as far as it can)."""
    stop: list[str] = field(default_factory=list)
    images: dict[str, Any] = field(default_factory=dict)
    """sha256 -> ImageData for the image parts of the messages (backends.images); kept out
    of the messages so the cache key holds the hashes, not the bytes."""
    tools: list[dict[str, Any]] | None = None
    """Tools the model may call (backends.tools: name, description, JSON-schema parameters)."""
    answer_only: bool = False
    """The tools stay declared (providers want them once the conversation holds tool calls)
    but the model may not call one: it must answer."""
    repeat: int = 0
    """Which asking of the same request this is (a judge asked K times): only the response
    cache reads it, so each repeat has its own cached answer; backends ignore it."""


@dataclass(frozen=True)
class ToolCall:
    """A tool call a model made: its id, the tool's name and the JSON arguments it wrote."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class AnswerTimings:
    """llama.cpp's own measurement of one local answer."""

    prompt_tokens: int
    """Prompt tokens evaluated (the rest came from a prefix shared with an earlier prompt)."""
    prompt_ms: float
    generated_tokens: int
    """Tokens evaluated while generating (llama.cpp's n_eval)."""
    generation_ms: float


@dataclass(frozen=True)
class Completion:
    """A model's finished answer."""

    text: str
    tokens_in: int | None
    tokens_out: int | None
    latency_s: float
    finish_reason: str | None
    tool_calls: tuple[ToolCall, ...] = ()
    timings: AnswerTimings | None = None
    """A local model's prompt and generation times (API models: None)."""
    tokens_cached: int | None = None
    """Prompt tokens the provider served from its own prompt cache (billed at its cached price)."""


class BackendError(Exception):
    """A call that did not produce an answer.

    `retryable`: trying again may work (rate limits, 5xx, timeouts, dropped connections,
    garbled bodies). `retry_after`: the server asked us to wait this many seconds.
    `fatal`: no later item can succeed either (bad key, unknown model, model won't load),
    so the run stops instead of failing every item one by one.
    """

    def __init__(
        self,
        message: str,
        retryable: bool = False,
        retry_after: float | None = None,
        fatal: bool = False,
        status: int | None = None,
        unreachable: bool = False,
    ):
        super().__init__(message)
        self.message = message
        self.retryable = retryable
        self.retry_after = retry_after
        self.fatal = fatal
        self.status = status
        """The HTTP status the server answered with, if it answered at all."""
        self.unreachable = unreachable
        """The server could not be reached at all (DNS, refused connection, TLS): tried
        again, and when the tries run out no other item can reach it either."""


class Backend(Protocol):
    """What the run engine needs from a model."""

    identity: dict[str, Any]
    """What defines the model's answers (cache key, run record); never a credential."""
    default_concurrency: int

    async def complete(self, request: CompletionRequest) -> Completion: ...

    async def aclose(self) -> None: ...

    # A backend whose calls run in a thread (a local model) also has `interrupt()`: the run
    # was cancelled, abandon the answer being written (cancelling the task cannot stop a thread).


def scrub(text: str, secrets: list[str | None]) -> str:
    """`text` with every secret replaced, so an error message can be shown and stored."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "[redacted]")
    return text
