"""Anthropic's Messages API through the official SDK (system prompt passed apart)."""

from __future__ import annotations

import time
from typing import Any

import anthropic

from workbench.backends.base import BackendError, Completion, CompletionRequest
from workbench.backends.http_errors import from_sdk_error, malformed
from workbench.backends.images import anthropic_messages, has_images
from workbench.backends.tools import anthropic_tool_calls, anthropic_tool_turns, anthropic_tools, has_tool_turns

ANTHROPIC_BASE_URL = "https://api.anthropic.com"
JSON_FORMATS = ("schema", "off")


class AnthropicBackend:
    """Messages from Anthropic (or a server speaking its wire format)."""

    def __init__(
        self,
        model: str,
        api_key: str,
        base_url: str | None = None,
        json_format: str | None = None,
        timeout: float = 60.0,
        send_temperature: bool = False,
    ):
        self.model = model
        self.base_url = (base_url or ANTHROPIC_BASE_URL).rstrip("/")
        self.json_format = json_format or "off"
        if self.json_format not in JSON_FORMATS:
            raise BackendError(f"json_format must be one of {', '.join(JSON_FORMATS)}", fatal=True)
        self.timeout = timeout
        # This SDK no longer lists temperature; send it only when the user set one.
        self.send_temperature = send_temperature
        self._api_key = api_key
        self._client: anthropic.AsyncAnthropic | None = None
        self.identity = {"backend": "anthropic", "model": model, "base_url": self.base_url}
        self.default_concurrency = 8

    def _get_client(self) -> anthropic.AsyncAnthropic:
        if self._client is None:
            self._client = anthropic.AsyncAnthropic(
                api_key=self._api_key, base_url=self.base_url, timeout=self.timeout, max_retries=0
            )
        return self._client

    def arguments(self, request: CompletionRequest) -> dict[str, Any]:
        """The messages.create() keyword arguments for a request."""
        system = "\n\n".join(m["content"] for m in request.messages if m["role"] == "system")
        turns = [m for m in request.messages if m["role"] != "system"]
        if request.images or has_images(turns):
            turns = anthropic_messages(turns, request.images)
        if has_tool_turns(turns):
            turns = anthropic_tool_turns(turns)
        arguments: dict[str, Any] = {"model": self.model, "max_tokens": request.max_tokens, "messages": turns}
        if system:
            arguments["system"] = system
        if request.stop:
            arguments["stop_sequences"] = list(request.stop)
        if request.tools:
            arguments["tools"] = anthropic_tools(request.tools)
            if request.answer_only:
                arguments["tool_choice"] = {"type": "none"}
        if self.send_temperature:
            arguments["extra_body"] = {"temperature": request.temperature}
        if request.json_schema is not None and self.json_format == "schema":
            arguments["output_config"] = {"format": {"type": "json_schema", "schema": request.json_schema}}
        return arguments

    async def complete(self, request: CompletionRequest) -> Completion:
        """One message; any failure becomes a BackendError without the key in it."""
        started = time.perf_counter()
        try:
            response = await self._get_client().messages.create(**self.arguments(request))
        except Exception as error:
            raise from_sdk_error(error, anthropic, [self._api_key], self.base_url) from None
        return self.completion(response, time.perf_counter() - started)

    def completion(self, message: Any, latency: float) -> Completion:
        """A Completion from the SDK's Message (a live answer, or one read back from a batch)."""
        content = getattr(message, "content", None)
        if not isinstance(content, list):
            raise malformed(f"no content list in {str(message)[:200]!r}", [self._api_key])
        text = "".join(getattr(block, "text", "") or "" for block in content if getattr(block, "type", None) == "text")
        usage = getattr(message, "usage", None)
        # input_tokens leaves out what the prompt cache read or wrote: tokens_in counts them all.
        read = _tokens(getattr(usage, "cache_read_input_tokens", None))
        written = _tokens(getattr(usage, "cache_creation_input_tokens", None))
        tokens_in = _tokens(getattr(usage, "input_tokens", None))
        if tokens_in is not None:
            tokens_in += (read or 0) + (written or 0)
        return Completion(
            text,
            tokens_in,
            getattr(usage, "output_tokens", None),
            latency,
            getattr(message, "stop_reason", None),
            anthropic_tool_calls(content),
            tokens_cached=read,
        )

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None


def _tokens(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
