"""The OpenAI and Anthropic backends against real HTTP servers on 127.0.0.1."""

from __future__ import annotations

import pytest

from tests.loopback_servers import Fault, LoopbackServer
from workbench.backends import BackendError, CompletionRequest, ModelSpecError, open_backend, parse_model_spec
from workbench.backends.anthropic_backend import AnthropicBackend
from workbench.backends.openai_backend import OpenAIBackend

KEY = "sk-test-SECRET-4242-abcdef"
SCHEMA = {
    "type": "object",
    "properties": {"verdict": {"type": "string"}},
    "required": ["verdict"],
    "additionalProperties": False,
}
REQUEST = CompletionRequest(
    [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Check X."}],
    max_tokens=32,
    json_schema=SCHEMA,
)


async def fail_with(backend, server: LoopbackServer, fault: Fault) -> BackendError:
    server.faults.append(fault)
    with pytest.raises(BackendError) as caught:
        await backend.complete(REQUEST)
    return caught.value


async def test_openai_backend_answers_and_counts_tokens():
    with LoopbackServer("openai") as server:
        backend = OpenAIBackend("gpt-test", KEY, server.url, timeout=2)
        completion = await backend.complete(REQUEST)
        await backend.aclose()
    assert completion.text.startswith('{"verdict": "Supported"')
    assert (completion.tokens_in, completion.tokens_out, completion.finish_reason) == (11, 7, "stop")
    sent = server.requests[0]
    assert sent.body["response_format"]["type"] == "json_schema"
    assert sent.body["response_format"]["json_schema"]["schema"] == SCHEMA
    assert sent.body["max_completion_tokens"] == 32 and sent.body["seed"] == 0
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert sent.headers["x-stainless-retry-count"] == "0"  # our engine retries, not the SDK


async def test_openai_compatible_defaults_to_json_object_and_max_tokens():
    with LoopbackServer("openai") as server:
        backend = OpenAIBackend("local", None, server.url, compatible=True)
        await backend.complete(REQUEST)
        off = OpenAIBackend("local", None, server.url, compatible=True, json_format="off")
        await off.complete(REQUEST)
        await backend.aclose(), await off.aclose()
    assert server.requests[0].body["response_format"] == {"type": "json_object"}
    assert server.requests[0].body["max_tokens"] == 32
    assert "response_format" not in server.requests[1].body
    assert backend.identity == {"backend": "openai-compatible", "model": "local", "base_url": server.url}


async def test_http_failures_are_classified():
    with LoopbackServer("openai") as server:
        backend = OpenAIBackend("gpt-test", KEY, server.url, timeout=0.5)
        limited = await fail_with(backend, server, Fault.status_code(429, retry_after=2.5))
        broken = await fail_with(backend, server, Fault.status_code(503))
        slow = await fail_with(backend, server, Fault.slow(1.5))
        reset = await fail_with(backend, server, Fault.reset())
        garbled = await fail_with(backend, server, Fault.malformed())
        empty = await fail_with(backend, server, Fault("empty_choices"))
        bad = await fail_with(backend, server, Fault.status_code(400))
        await backend.aclose()
    assert (limited.retryable, limited.retry_after, limited.fatal) == (True, 2.5, False)
    assert "HTTP 429" in limited.message
    assert broken.retryable and broken.retry_after is None
    assert slow.retryable and "timed out" in slow.message
    assert reset.retryable and "connection failed" in reset.message
    assert garbled.retryable and garbled.message.startswith("malformed response: the response body is not valid JSON")
    assert empty.retryable and "no choices" in empty.message
    assert not bad.retryable and not bad.fatal and "HTTP 400" in bad.message


async def test_a_refused_key_is_fatal_and_never_repeated_in_the_message():
    with LoopbackServer("openai") as server:
        backend = OpenAIBackend("gpt-test", KEY, server.url)
        error = await fail_with(backend, server, Fault("echo_auth", 401))
        await backend.aclose()
    assert error.fatal and not error.retryable
    assert KEY not in error.message and "[redacted]" in error.message and "check the API key" in error.message


async def test_anthropic_backend_sends_the_system_prompt_apart():
    with LoopbackServer("anthropic") as server:
        backend = AnthropicBackend("claude-test", KEY, server.url)
        completion = await backend.complete(REQUEST)
        limited = await fail_with(backend, server, Fault.status_code(529, retry_after=1))
        echoed = await fail_with(backend, server, Fault("echo_auth", 401))
        await backend.aclose()
    sent = server.requests[0]
    assert sent.path == "/v1/messages"
    assert sent.body["system"] == "Be brief."
    assert sent.body["messages"] == [{"role": "user", "content": "Check X."}]
    assert "temperature" not in sent.body  # sent only when the user sets one
    assert (completion.text, completion.tokens_in, completion.finish_reason)[1:] == (11, "end_turn")
    assert limited.retryable and limited.retry_after == 1
    assert echoed.fatal and KEY not in echoed.message


def test_model_specs_are_checked_before_any_work():
    assert parse_model_spec(None).text == "gguf:default"
    assert (
        parse_model_spec("openai-compatible:qwen", "http://127.0.0.1:8000/v1/").base_url == "http://127.0.0.1:8000/v1"
    )
    for text, base_url, message in [
        ("llama:x", None, "SCHEME one of gguf, openai, anthropic, openai-compatible"),
        ("openai:", None, "cannot read model"),
        ("openai-compatible:qwen", None, "needs --base-url"),
        ("gguf:default", "http://x", "--base-url is for API models"),
        ("openai:gpt", "127.0.0.1:8000", "must start with http"),
    ]:
        with pytest.raises(ModelSpecError, match=message):
            parse_model_spec(text, base_url)


def test_a_missing_api_key_says_where_to_put_it():
    for provider, env in (("openai", "OPENAI_API_KEY"), ("anthropic", "ANTHROPIC_API_KEY")):
        with pytest.raises(BackendError, match=f"no API key for {provider}: set {env}, or add"):
            open_backend(parse_model_spec(f"{provider}:m"), {})


def test_keys_come_from_the_config_file_and_a_local_server_never_gets_the_openai_key(tmp_path, monkeypatch):
    config = tmp_path / "config.toml"
    config.write_text('[keys]\nopenai = "sk-from-file"\nlocalvllm = "local-key"\n')
    monkeypatch.setenv("WORKBENCH_CONFIG", str(config))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    assert open_backend(parse_model_spec("openai:m"), {})._api_key == "sk-from-env"
    local = open_backend(parse_model_spec("openai-compatible:localvllm", "http://127.0.0.1:1/v1"), {})
    other = open_backend(parse_model_spec("openai-compatible:other", "http://127.0.0.1:1/v1"), {})
    assert local._api_key == "local-key" and other._api_key == "EMPTY"
    monkeypatch.delenv("OPENAI_API_KEY")
    assert open_backend(parse_model_spec("openai:m"), {})._api_key == "sk-from-file"
    assert "sk-" not in repr(open_backend(parse_model_spec("openai:m"), {}).identity)
