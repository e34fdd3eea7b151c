"""Errors say what happened: a DNS failure, a refused connection, a TLS failure and a timeout
are told apart in the stored error and in the run's summary; an unreachable server stops
the run instead of failing every claim; and every model a command will call is checked
(keys, GGUF files, base URLs) before the first call, through one preflight."""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import threading

import pytest
from click.testing import CliRunner

from store import Store
from tests.loopback_servers import Fault, LoopbackServer
from tests.run_fixtures import load_mini
from workbench.backends import BackendError, CompletionRequest
from workbench.backends.anthropic_backend import AnthropicBackend
from workbench.backends.openai_backend import OpenAIBackend
from workbench.cli import main
from workbench.config import config_path
from workbench.runs.preflight import ModelCall, preflight
from workbench.runs.types import RunSetupError

REQUEST = CompletionRequest([{"role": "user", "content": "Check X."}], 16, 0.0, 0, None)
NOWHERE = "nonexistent-host.invalid"  # .invalid never resolves (RFC 2606)


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def error_from(backend) -> BackendError:
    with pytest.raises(BackendError) as caught:
        await backend.complete(REQUEST)
    await backend.aclose()
    return caught.value


@pytest.mark.parametrize(
    "make",
    [
        lambda url: OpenAIBackend("m", "sk-test", url, compatible=True, timeout=5),
        lambda url: AnthropicBackend("m", "sk-test", url.removesuffix("/v1"), None, 5, False),
    ],
)
async def test_dns_failure_and_refused_connection_are_told_apart(make):
    dns = await error_from(make(f"http://{NOWHERE}/v1"))
    assert dns.message.startswith(f"DNS lookup failed: cannot resolve {NOWHERE}")
    port = closed_port()
    refused = await error_from(make(f"http://127.0.0.1:{port}/v1"))
    assert refused.message.startswith(f"connection refused by 127.0.0.1:{port}")
    assert dns.unreachable and refused.unreachable and dns.retryable and refused.retryable
    assert "timed out" not in dns.message + refused.message


@pytest.fixture
def tls_server(tmp_path):
    """A TLS server with a self-signed certificate no client trusts."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed: no certificate can be made for the TLS test")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)

    def serve() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            try:
                context.wrap_socket(connection, server_side=True).close()
            except (ssl.SSLError, OSError):
                connection.close()

    threading.Thread(target=serve, daemon=True).start()
    yield f"https://127.0.0.1:{listener.getsockname()[1]}/v1"
    listener.close()


async def test_a_tls_failure_says_so(tls_server):
    error = await error_from(OpenAIBackend("m", "sk-test", tls_server, compatible=True, timeout=5))
    assert error.message.startswith("TLS handshake failed:") and "certificate" in error.message.lower()
    assert error.unreachable


async def test_a_slow_server_is_a_timeout_not_a_lost_connection():
    with LoopbackServer("openai") as server:
        server.faults.append(Fault.slow(1.5))
        error = await error_from(OpenAIBackend("m", "sk-test", server.url, compatible=True, timeout=0.5))
    assert "timed out" in error.message and not error.unreachable


@pytest.fixture
def mini_db(store, db_path, tmp_path):
    load_mini(store, tmp_path)
    return db_path


def cli(db_path, *args):
    return CliRunner().invoke(main, ["--db", str(db_path), *args], terminal_width=120)


def test_an_unreachable_server_stops_the_run_with_the_cause(mini_db):
    result = cli(
        mini_db,
        "run",
        "--model",
        "openai-compatible:x",
        "--base-url",
        f"http://{NOWHERE}/v1",
        "--dataset",
        "mini",
        "--param",
        "attempts=2",
    )
    assert result.exit_code == 1
    last = result.output.strip().splitlines()[-1]
    assert last.startswith("Error: run ") and f"failed: DNS lookup failed: cannot resolve {NOWHERE}" in last
    store = Store.open(mini_db)
    (run,) = store.runs.list()
    progress = store.runs.progress(run.id)
    assert run.status == "failed" and progress.done == 0 and progress.error >= 1  # stopped, not 4 x 2 tries
    assert store.runs.error_causes(run.id)[0][0].startswith("DNS lookup failed")


def test_the_summary_counts_each_distinct_cause(mini_db):
    with LoopbackServer("openai") as server:
        server.faults.extend([Fault.status_code(500)] * 2 + [Fault.status_code(400)] * 2)
        result = cli(
            mini_db,
            "run",
            "--model",
            "openai-compatible:x",
            "--base-url",
            server.url,
            "--dataset",
            "mini",
            "--param",
            "attempts=1",
            "--concurrency",
            "1",
        )
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    causes = [line.strip() for line in lines if "×" in line]
    assert len(causes) == 2 and all(line.startswith("2 × HTTP ") for line in causes)
    assert {"500" in line for line in causes} == {True, False}
    assert lines[-1] == (
        f"Error: 4 of 4 claims have no answer (why: above); `workbench --db {mini_db} run --resume"
        " x-jsfactcheck-claim` retries them"
    )


def test_preflight_lists_every_model_that_cannot_be_called():
    with pytest.raises(RunSetupError) as caught:
        preflight(
            [
                ModelCall("target model", "openai:gpt-x"),
                ModelCall("extractor", "anthropic:claude-x"),
                ModelCall("judge", "gguf:/nowhere/model.gguf"),
            ]
        )
    message = str(caught.value)
    assert "target model openai:gpt-x: no API key for openai" in message
    assert "extractor anthropic:claude-x: no API key for anthropic" in message
    assert "judge gguf:/nowhere/model.gguf: no GGUF file at /nowhere/model.gguf" in message


def test_the_contamination_pipeline_checks_the_target_key_before_extracting(demo_store, db_path):
    result = cli(
        db_path,
        "contamination",
        "run",
        "--model",
        "openai:gpt-4o-mini",
        "--extractor",
        "gguf:default",
        "--dataset",
        "demo",
    )
    assert result.exit_code == 1
    assert result.output.strip() == (
        "Error: target model openai:gpt-4o-mini: no API key for openai: set"
        f' OPENAI_API_KEY, or add `openai = "..."` under [keys] in {config_path()}'
    )
    assert Store.open(db_path).runs.list(kind=None) == []  # not one extraction ran
