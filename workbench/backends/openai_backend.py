"""OpenAI's Chat Completions API, and any server that speaks it (vLLM, llama.cpp
server, Ollama), through the official SDK. The SDK's own retries are off: the run
engine retries, so attempts are counted and Retry-After is honoured in one place."""

from __future__ import annotations

import time
from typing import Any

import openai
from openai.types.chat import ChatCompletion

from workbench.backends.base import BackendError, Completion, CompletionRequest
from workbench.backends.http_errors import from_sdk_error, malformed

OPENAI_BASE_URL = "https://api.openai.com/v1"
JSON_FORMATS = ("schema", "object", "off")
"""schema: response_format json_schema (strict); object: {"type": "json_object"} plus the
template's JSON instructions; off: the instructions alone."""


class OpenAIBackend:
    """Chat completions from OpenAI or an OpenAI-compatible server."""

    def __init__(self, model: str, api_key: str | None, base_url: str | None = None,
                 compatible: bool = False, json_format: str | None = None, timeout: float = 60.0):
        self.model = model
        self.compatible = compatible
        self.base_url = (base_url or OPENAI_BASE_URL).rstrip("/")
        self.json_format = json_format or ("object" if compatible else "schema")
        if self.json_format not in JSON_FORMATS:
            raise BackendError(f"json_format must be one of {', '.join(JSON_FORMATS)}", fatal=True)
        self.timeout = timeout
        # Servers that need no key still want the header; "EMPTY" is vLLM's convention.
        self._api_key = api_key or "EMPTY"
        self._client: openai.AsyncOpenAI | None = None
        self.identity = {"backend": "openai-compatible" if compatible else "openai",
                         "model": model, "base_url": self.base_url}
        self.default_concurrency = 4 if compatible else 8

    def _get_client(self) -> openai.AsyncOpenAI:
        if self._client is None:
            self._client = openai.AsyncOpenAI(api_key=self._api_key, base_url=self.base_url,
                                              timeout=self.timeout, max_retries=0)
        return self._client

    def arguments(self, request: CompletionRequest) -> dict[str, Any]:
        """The create() keyword arguments for a request."""
        arguments: dict[str, Any] = {"model": self.model, "messages": request.messages,
                                     "temperature": request.temperature}
        # OpenAI's newer models take max_completion_tokens; most other servers only max_tokens.
        arguments["max_tokens" if self.compatible else "max_completion_tokens"] = request.max_tokens
        if request.seed is not None:
            arguments["seed"] = request.seed
        if request.stop:
            arguments["stop"] = list(request.stop)
        if request.json_schema is not None and self.json_format == "schema":
            arguments["response_format"] = {"type": "json_schema", "json_schema": {
                "name": "answer", "schema": request.json_schema, "strict": True}}
        elif request.json_schema is not None and self.json_format == "object":
            arguments["response_format"] = {"type": "json_object"}
        return arguments

    async def complete(self, request: CompletionRequest) -> Completion:
        """One chat completion; any failure becomes a BackendError without the key in it."""
        started = time.perf_counter()
        try:
            # The SDK's documented raw route: the same client, auth, timeout and errors as
            # chat.completions.create(), without re-walking our plain-JSON body through its
            # TypedDict transform (a quarter of the CPU per request at high concurrency).
            response = await self._get_client().post("/chat/completions", cast_to=ChatCompletion,
                                                     body=self.arguments(request))
        except Exception as error:
            raise from_sdk_error(error, openai, [self._api_key]) from None
        latency = time.perf_counter() - started
        return self._completion(response, latency)

    def _completion(self, response: Any, latency: float) -> Completion:
        choices = getattr(response, "choices", None)
        if not choices:
            raise malformed(f"no choices in {str(response)[:200]!r}", [self._api_key])
        message = getattr(choices[0], "message", None)
        text = getattr(message, "content", None)
        if not isinstance(text, str):
            refusal = getattr(message, "refusal", None)
            if isinstance(refusal, str):
                text = refusal  # the model declined: keep its words as the raw answer
            else:
                raise malformed("the first choice has no text content", [self._api_key])
        usage = getattr(response, "usage", None)
        return Completion(text, getattr(usage, "prompt_tokens", None), getattr(usage, "completion_tokens", None),
                          latency, getattr(choices[0], "finish_reason", None))

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None
