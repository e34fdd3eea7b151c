"""OpenAI's Chat Completions API, and any server that speaks it (vLLM, llama.cpp
server, Ollama), through the official SDK. The SDK's own retries are off: the run
engine retries, so attempts are counted and Retry-After is honoured in one place."""

from __future__ import annotations

import functools
import json
import os
import sys
import time
from typing import Any

import openai

from workbench.backends.base import BackendError, Completion, CompletionRequest
from workbench.backends.http_errors import from_sdk_error, malformed
from workbench.backends.images import has_images, openai_messages
from workbench.backends.tools import has_tool_turns, openai_tool_calls, openai_tool_turns, openai_tools

try:  # the SDK's OS detection for its X-Stainless-OS header (private, hence the guard)
    from openai._base_client import get_platform as _sdk_platform
except ImportError:  # pragma: no cover - another SDK version: it detects on its own
    _sdk_platform = None

OPENAI_BASE_URL = "https://api.openai.com/v1"
JSON_FORMATS = ("schema", "object", "off")
"""schema: response_format json_schema (strict); object: {"type": "json_object"} plus the
template's JSON instructions; off: the instructions alone."""


class OpenAIBackend:
    """Chat completions from OpenAI or an OpenAI-compatible server."""

    def __init__(
        self,
        model: str,
        api_key: str | None,
        base_url: str | None = None,
        compatible: bool = False,
        json_format: str | None = None,
        timeout: float = 60.0,
    ):
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
        self.identity = {
            "backend": "openai-compatible" if compatible else "openai",
            "model": model,
            "base_url": self.base_url,
        }
        self.default_concurrency = 4 if compatible else 8
        self._response_type = _http_library().Response
        # Both once per process and here, at prepare time, rather than inside a run.
        self._platform = _platform_once()  # may read files
        try:
            self._tls = _tls_context(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
        except (OSError, ValueError) as error:  # ssl.SSLError is an OSError
            raise BackendError(f"cannot set up TLS (check SSL_CERT_FILE / SSL_CERT_DIR): {error}", fatal=True) from None

    def _get_client(self) -> openai.AsyncOpenAI:
        if self._client is None:
            # The SDK's own default HTTP client, but with a TLS context made once per process:
            # loading the CA bundle costs ~50 ms of CPU, which every run used to pay again.
            http_client = _http_client(self._tls)
            self._client = openai.AsyncOpenAI(
                api_key=self._api_key,
                base_url=self.base_url,
                timeout=self.timeout,
                max_retries=0,
                http_client=http_client,
            )
            # Left unset, the SDK detects the OS on a client's first request in a worker
            # thread, and so does every request started before that one returns: at the
            # start of a run, `concurrency` threads fighting the event loop for the GIL.
            if self._platform is not None and getattr(self._client, "_platform", False) is None:
                self._client._platform = self._platform
        return self._client

    def arguments(self, request: CompletionRequest) -> dict[str, Any]:
        """The create() keyword arguments for a request."""
        messages = request.messages
        if request.images or has_images(messages):
            messages = openai_messages(messages, request.images)
        if has_tool_turns(messages):
            messages = openai_tool_turns(messages)
        arguments: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": request.temperature}
        # OpenAI's newer models take max_completion_tokens; most other servers only max_tokens.
        arguments["max_tokens" if self.compatible else "max_completion_tokens"] = request.max_tokens
        if request.seed is not None:
            arguments["seed"] = request.seed
        if request.stop:
            arguments["stop"] = list(request.stop)
        if request.tools:
            arguments["tools"] = openai_tools(request.tools)
            if request.answer_only:
                arguments["tool_choice"] = "none"
        if request.json_schema is not None and self.json_format == "schema":
            arguments["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "answer", "schema": request.json_schema, "strict": True},
            }
        elif request.json_schema is not None and self.json_format == "object":
            arguments["response_format"] = {"type": "json_object"}
        return arguments

    async def complete(self, request: CompletionRequest) -> Completion:
        """One chat completion; any failure becomes a BackendError without the key in it."""
        started = time.perf_counter()
        try:
            # The SDK's documented raw route: the same client, auth, timeout, status errors
            # as chat.completions.create(), without its per-call TypedDict transform of our
            # plain-JSON body or the pydantic ChatCompletion it builds from the answer; we
            # read the few fields we keep from the JSON ourselves (most of the client's CPU
            # per request at high concurrency went into those two walks).
            response = await self._get_client().post(
                "/chat/completions", cast_to=self._response_type, body=self.arguments(request)
            )
            answer = json.loads(response.content)
        except Exception as error:
            raise from_sdk_error(error, openai, [self._api_key], self.base_url) from None
        latency = time.perf_counter() - started
        return self.completion(answer, latency)

    def completion(self, answer: Any, latency: float) -> Completion:
        """A Completion from a Chat Completions JSON body (live, or a batch's output line)."""
        choices = answer.get("choices") if isinstance(answer, dict) else None
        if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict):
            raise malformed(f"no choices in {str(answer)[:200]!r}", [self._api_key])
        message = choices[0].get("message")
        message = message if isinstance(message, dict) else {}
        text = message.get("content")
        calls = openai_tool_calls(message)
        if not isinstance(text, str):
            refusal = message.get("refusal")
            if isinstance(refusal, str):
                text = refusal  # the model declined: keep its words as the raw answer
            elif calls:
                text = ""  # only tool calls
            else:
                raise malformed("the first choice has no text content", [self._api_key])
        usage = answer.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        details = usage.get("prompt_tokens_details")  # OpenAI's prompt cache: part of prompt_tokens
        cached = _count(details.get("cached_tokens")) if isinstance(details, dict) else None
        return Completion(
            text,
            _count(usage.get("prompt_tokens")),
            _count(usage.get("completion_tokens")),
            latency,
            _text_or_none(choices[0].get("finish_reason")),
            calls,
            tokens_cached=cached,
        )

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None


def _http_client(tls):
    """The SDK's aiohttp transport (its documented choice for high concurrency: about a
    third of the CPU per request of the default one), else its default client."""
    try:
        return openai.DefaultAioHttpClient(verify=tls)
    except RuntimeError:  # the SDK's aiohttp extra is not installed
        return openai.DefaultAsyncHttpxClient(verify=tls)


def _http_library():
    """The HTTP library the installed SDK is built on (httpx2 in openai 3, httpx before),
    whose Response class asks post() for the raw response."""
    for base in openai.DefaultAsyncHttpxClient.__mro__:
        if base.__name__ == "AsyncClient":
            return sys.modules[base.__module__.partition(".")[0]]
    raise ImportError("the openai SDK's HTTP client is not an httpx AsyncClient")


@functools.cache
def _platform_once():
    """What the SDK's own first request would detect, detected once per process."""
    return _sdk_platform() if _sdk_platform is not None else None


@functools.lru_cache(maxsize=4)
def _tls_context(cert_file: str | None, cert_dir: str | None):
    """The SDK's default TLS context (it reads SSL_CERT_FILE / SSL_CERT_DIR, hence the key)."""
    return _http_library().create_ssl_context()


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None
