"""The run engine against a real Chat Completions server on 127.0.0.1 and a real SQLite file."""

from __future__ import annotations

import threading
import time

import pytest

from tests.loopback_servers import Fault, LoopbackServer
from tests.run_fixtures import load_mini, many_claims, write_mini
from workbench.exporters import export_predictions
from workbench.importers import import_file
from workbench.runs.engine import (
    ItemFinished,
    RunFinished,
    RunRequest,
    RunSetupError,
    RunStarted,
    execute_run,
    prepare_run,
)

KEY = "sk-loopback-SECRET-9f8e7d6c5b4a"


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with LoopbackServer("openai") as running:
        yield running


@pytest.fixture
def many(store, tmp_path):
    import_file(store, write_mini(tmp_path, many_claims(30), name="many"), "jsonl")
    return store.claims.ids("dataset:many")


def api_request(server, **changes) -> RunRequest:
    values = dict(
        model="openai:gpt-test",
        base_url=server.url,
        dataset="many",
        concurrency=4,
        params={"timeout": 1.0, "attempts": 3},
    )
    return RunRequest(**{**values, **changes})


async def run_it(store, db_path, request, cancel_after: int | None = None):
    prepared = prepare_run(store, request)
    events, cancel = [], threading.Event()

    def on_event(event):
        events.append(event)
        if cancel_after and sum(isinstance(e, ItemFinished) for e in events) >= cancel_after:
            cancel.set()

    progress = await execute_run(db_path, prepared, on_event, cancel)
    return prepared, progress, events


def predictions(store, run_id):
    return store.runs.predictions(run_id)


async def test_every_claim_ends_answered_or_failed_with_its_cause(store, db_path, server, many):
    server.faults.extend(
        [
            Fault.status_code(500),
            Fault.reset(),
            Fault.malformed(),
            Fault.slow(2.0),
            Fault.status_code(429, retry_after=0.2),
            Fault.status_code(400),
        ]
    )
    prepared, progress, events = await run_it(store, db_path, api_request(server))
    rows = predictions(store, prepared.run_id)
    assert sorted(p.claim_id for p in rows) == sorted(many)  # each claim once, none lost
    assert [p.status for p in rows].count("ok") == 29
    (failed,) = [p for p in rows if p.status == "error"]
    assert "HTTP 400" in failed.error
    assert len(server.requests) == 6 + 29  # every fault retried once, except the 400
    assert sum(p.attempts for p in rows) == len(server.requests)  # every call counted on its claim
    assert progress.ok + progress.error == progress.total == 30
    assert progress.tokens_in == 29 * 11
    assert isinstance(events[0], RunStarted) and isinstance(events[-1], RunFinished)
    assert sum(isinstance(e, ItemFinished) for e in events) == 30
    assert store.runs.get(prepared.run_id).status == "finished"


async def test_retry_after_is_honoured(store, db_path, server, many):
    server.faults.append(Fault.status_code(429, retry_after=1.0))
    prepared, progress, _ = await run_it(store, db_path, api_request(server, claim_ids=many[:1]))
    first, second = server.requests[:2]
    assert first.fault == "status" and second.fault is None
    assert second.at - first.at >= 1.0
    assert store.runs.prediction(prepared.run_id, many[0]).attempts == 2


async def test_retry_after_as_an_http_date_is_honoured(store, db_path, server, many):
    from email.utils import formatdate

    server.faults.append(Fault("status", 503, {"Retry-After": formatdate(time.time() + 3, usegmt=True)}))
    prepared, progress, _ = await run_it(store, db_path, api_request(server, claim_ids=many[:1]))
    first, second = server.requests[:2]
    assert first.fault == "status" and second.fault is None
    assert second.at - first.at >= 1.0  # the date (whole seconds), not the 0.5 s backoff
    assert store.runs.prediction(prepared.run_id, many[0]).attempts == 2


async def test_when_tries_run_out_the_error_is_kept_and_resume_retries_it(store, db_path, server, many):
    server.faults.extend([Fault.status_code(502)] * 2)
    request = api_request(server, claim_ids=many[:1], params={"attempts": 2})
    prepared, progress, _ = await run_it(store, db_path, request)
    failed = store.runs.prediction(prepared.run_id, many[0])
    assert failed.status == "error" and "HTTP 502" in failed.error and "gave up after 2 attempts" in failed.error
    assert progress.error == 1 and store.runs.pending_claim_ids(prepared.run_id) == many[:1]
    again, progress, _ = await run_it(store, db_path, request)
    assert again.run_id == prepared.run_id and again.resumed
    fixed = store.runs.prediction(prepared.run_id, many[0])
    assert (fixed.status, fixed.attempts, fixed.error) == ("ok", 3, None)
    assert (progress.ok, progress.error) == (1, 0)


async def test_a_refused_key_stops_the_run_as_failed(store, db_path, server, many):
    server.faults.append(Fault("echo_auth", 401))
    prepared, progress, events = await run_it(store, db_path, api_request(server, concurrency=1))
    assert events[-1].status == "failed" and "HTTP 401" in events[-1].message
    assert KEY not in events[-1].message
    assert store.runs.get(prepared.run_id).status == "failed"
    assert progress.error == 1 and progress.missing == 29
    assert len(server.requests) == 1


async def test_the_key_never_reaches_the_database_or_exports(store, db_path, server, many, tmp_path):
    server.faults.extend([Fault("echo_auth", 400), Fault("echo_auth", 400)])
    prepared, progress, _ = await run_it(store, db_path, api_request(server))
    assert progress.error == 2
    errors = [p.error for p in predictions(store, prepared.run_id) if p.error]
    assert all("bad credential Bearer [redacted]" in e for e in errors)
    export = tmp_path / "out.jsonl"
    export_predictions(store, store.runs.list(), "", "jsonl", export)
    store.db.conn.execute("PRAGMA wal_checkpoint(FULL)")
    for path in [db_path, db_path.with_name(db_path.name + "-wal"), export]:
        if path.exists():
            assert KEY.encode() not in path.read_bytes(), path


async def test_a_finished_configuration_reruns_from_the_cache(store, db_path, server, many):
    first, _, _ = await run_it(store, db_path, api_request(server))
    hits = len(server.requests)
    second, progress, _ = await run_it(store, db_path, api_request(server))
    assert second.run_id != first.run_id and not second.resumed
    assert second.run.name == first.run.name + "-2"
    assert progress.cached == progress.total == progress.ok == 30
    assert progress.tokens_in == progress.tokens_out == 0  # nothing spent: the cache answered
    assert store.runs.progress(second.run_id).tokens_in == 0
    assert len(server.requests) == hits  # nothing was sent
    third, progress, _ = await run_it(store, db_path, api_request(server, use_cache=False))
    assert third.run.name == first.run.name + "-3"
    assert progress.cached == 0 and len(server.requests) == hits + 30


async def test_a_different_configuration_is_not_answered_from_the_cache(store, db_path, server, many):
    await run_it(store, db_path, api_request(server))
    hits = len(server.requests)
    _, progress, _ = await run_it(store, db_path, api_request(server, params={"temperature": 0.5}))
    assert progress.cached == 0 and len(server.requests) == hits + 30


async def test_cancel_stops_between_items_and_the_same_request_resumes(store, db_path, many, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with LoopbackServer("openai", latency=0.05) as slow:
        request = api_request(slow, concurrency=1)
        prepared, progress, events = await run_it(store, db_path, request, cancel_after=3)
        assert events[-1].status == "cancelled" == store.runs.get(prepared.run_id).status
        done_before = {p.claim_id for p in predictions(store, prepared.run_id)}
        assert 3 <= len(done_before) < 30
        again, progress, _ = await run_it(store, db_path, request)
    assert again.run_id == prepared.run_id and len(again.pending_claim_ids) == 30 - len(done_before)
    rows = predictions(store, prepared.run_id)
    assert sorted(p.claim_id for p in rows) == sorted(many) and progress.ok == 30
    answered_twice = len(slow.requests) - 30
    assert answered_twice <= 1  # at most the call in flight when cancelled


async def test_the_run_row_records_its_configuration(store, db_path, server, many):
    prepared, _, _ = await run_it(store, db_path, api_request(server, filter="label:Refuted", params={"seed": 7}))
    run = store.runs.get(prepared.run_id)
    assert run.model == "openai:gpt-test" and run.model_identity == {
        "backend": "openai",
        "model": "gpt-test",
        "base_url": server.url,
    }
    assert run.prompt_name == "jsfactcheck" and len(run.prompt_hash) == 64 and run.setting == "claim"
    assert run.params["seed"] == 7 and run.params["max_tokens"] == 512
    assert run.subset_filter == 'dataset:"many" label:Refuted'
    assert store.runs.claim_ids(run.id) == store.claims.ids("dataset:many label:Refuted")
    assert set(run.versions) == {"factcheck-workbench", "llama-cpp-python", "openai", "anthropic", "claims-sha256"}
    assert len(run.versions["claims-sha256"]) == 64  # the content hash of its claims, for comparing runs
    assert run.started_at and run.finished_at and run.status == "finished"


def test_setup_errors_come_before_any_work(store, server, many, tmp_path):
    load_mini(store, tmp_path)
    cases = [
        (api_request(server, dataset="nope"), "no dataset 'nope'; datasets: many, mini"),
        (api_request(server, filter="label:"), "label: needs a value"),
        (api_request(server, filter="ext:zzz"), "no claims match"),
        (
            api_request(server, dataset="mini", setting="claim+pages"),
            "setting claim+pages cannot be used: 2 of 4 selected claims have no candidate pages",
        ),
        (api_request(server, dataset="mini", setting="claim+time+qr"), "2 of 4 selected claims have no question"),
        (api_request(server, prompt="realfactbench"), "template 'realfactbench' answers true, false, unknown"),
        (api_request(server, prompt="nothing"), "no prompt template 'nothing'"),
        (api_request(server, setting="claim+web"), "unknown setting 'claim+web'"),
        (api_request(server, params={"tempratur": "1"}), "unknown --param 'tempratur'"),
        (api_request(server, params={"n_ctx": 2048}), "n_ctx only applies to gguf models"),
        (api_request(server, params={"max_tokens": "many"}), "max_tokens=many is not a valid int"),
        (api_request(server, claim_ids=[99999]), "no claim with id 99999"),
        (
            api_request(server, model="gguf:/no/such/model.gguf", base_url=None, params={}),
            "no GGUF file at /no/such/model.gguf",
        ),
        (api_request(server, model="claude:x"), "cannot read model 'claude:x'"),
        (RunRequest(resume="ghost"), "nothing to resume: no run 'ghost'"),
        (RunRequest(filter="dataset:many dataset:mini"), "no claims match"),
    ]
    runs_before = len(store.runs.list())
    for request, message in cases:
        with pytest.raises(RunSetupError) as caught:
            prepare_run(store, request)
        assert message in str(caught.value), request
    assert len(store.runs.list()) == runs_before


def test_a_missing_key_is_reported_before_any_work(store, many, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(RunSetupError, match="no API key for openai: set OPENAI_API_KEY"):
        prepare_run(store, RunRequest(model="openai:gpt-4o-mini", dataset="many"))
    assert store.runs.list() == []


async def test_resume_refuses_a_run_whose_template_changed(store, db_path, server, many, tmp_path, monkeypatch):
    folder = tmp_path / "prompts"
    folder.mkdir()
    from workbench.prompting import BUILTIN_DIR

    mine = folder / "mine.toml"
    mine.write_text((BUILTIN_DIR / "jsfactcheck.toml").read_text())
    monkeypatch.setenv("WORKBENCH_PROMPTS_DIR", str(folder))
    prepared = prepare_run(store, api_request(server, prompt="mine"))
    mine.write_text(mine.read_text().replace("You check facts.", "You check facts carefully."))
    with pytest.raises(RunSetupError, match="configuration changed since it started"):
        prepare_run(store, RunRequest(resume=prepared.run.name))
    assert prepare_run(store, api_request(server, prompt="mine")).run_id != prepared.run_id


def test_claims_scored_in_different_label_spaces_are_not_mixed(demo_store, server):
    mixed = demo_store.claims.ids("dataset:demo")[:1] + demo_store.claims.ids("dataset:demo-realfact")[:1]
    with pytest.raises(RunSetupError, match="different label spaces: demo \\(jsfactcheck\\); demo-realfact"):
        prepare_run(demo_store, api_request(server, dataset=None, claim_ids=mixed))


def test_auto_picks_the_template_of_the_label_space(demo_store, server):
    prepared = prepare_run(demo_store, api_request(server, dataset="demo-realfact", prompt="auto"))
    assert prepared.template.name == "realfactbench" and prepared.allowed_verdicts == ["true", "false", "unknown"]


async def test_an_anthropic_model_runs_through_the_messages_api(store, db_path, many, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with LoopbackServer("anthropic") as server:
        server.faults.append(Fault.status_code(529, retry_after=0.1))
        request = RunRequest(
            model="anthropic:claude-test", base_url=server.url, dataset="many", claim_ids=many[:5], concurrency=2
        )
        prepared, progress, _ = await run_it(store, db_path, request)
    assert (progress.ok, progress.error) == (5, 0)
    assert all(a.path == "/v1/messages" and a.body["system"].startswith("You check facts.") for a in server.requests)
    assert prepared.run.model_identity == {"backend": "anthropic", "model": "claude-test", "base_url": server.url}
