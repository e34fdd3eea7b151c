"""Runs through the providers' batch APIs, against real loopback servers on 127.0.0.1 that
speak OpenAI's files + batches and Anthropic's Message Batches wire formats."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from store import Run, Store
from tests.loopback_servers import LoopbackServer
from tests.run_fixtures import many_claims, write_mini
from workbench.cli import main
from workbench.importers import import_file
from workbench.runs.engine import RunRequest, RunSetupError, prepare_run, run_blocking

KEY = "sk-batch-secret-4242"


@pytest.fixture
def batch_db(store, db_path, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    import_file(store, write_mini(tmp_path, many_claims(12), name="many"), "jsonl")
    return db_path


def cli(db_path, *args):
    return CliRunner().invoke(main, ["--db", str(db_path), *args], terminal_width=120)


def predictions(db_path, run="b") -> dict[str, tuple[str, str | None, str | None]]:
    store = Store.open(db_path)
    rows = store.db.execute(
        "SELECT c.external_id, p.status, p.verdict, p.error FROM predictions p JOIN claims c ON c.id = p.claim_id"
        " WHERE p.run_id = (SELECT id FROM runs WHERE name = ?)",
        [run],
    ).fetchall()
    store.close()
    return {ext: (status, verdict, error) for ext, status, verdict, error in rows}


def run_status(db_path, run="b") -> str:
    store = Store.open(db_path)
    status = store.runs.get(run).status
    store.close()
    return status


def submit(db_path, server, model="openai:gpt-test", *extra):
    return cli(
        db_path,
        "run",
        "--dataset",
        "many",
        "--model",
        model,
        "--base-url",
        server.url,
        "--name",
        "b",
        "--batch",
        *extra,
    )


def test_an_openai_batch_is_submitted_collected_and_cached(batch_db):
    with LoopbackServer("openai") as server:
        server.batches.refuse = lambda body: "too long" if "Bridge number 4 " in json.dumps(body) else None
        result = submit(batch_db, server)
        assert result.exit_code == 0, result.output
        assert "submitted batch batch_" in result.output and "12 requests" in result.output
        assert not server.answer_arrivals()  # nothing went to the live endpoint
        assert run_status(batch_db) == "batched"

        collected = cli(batch_db, "batch", "collect", "b")
        answers = predictions(batch_db)
        assert collected.exit_code == 1  # one claim has no answer: not complete
        assert "1 of 12 claims has no answer" in collected.output and "--resume b" in collected.output
        assert answers["c4"] == ("error", None, "batch: HTTP 400: too long")
        assert sum(status == "ok" and verdict == "Supported" for status, verdict, _ in answers.values()) == 11
        assert run_status(batch_db) == "finished"

        # A live resume asks the server only for the claim the batch failed ...
        assert cli(batch_db, "run", "--resume", "b").exit_code == 0
        assert len(server.answer_arrivals()) == 1 and predictions(batch_db)["c4"][0] == "ok"
        # ... and the same configuration again is answered from the cache the batch filled.
        again = cli(
            batch_db,
            "run",
            "--dataset",
            "many",
            "--model",
            "openai:gpt-test",
            "--base-url",
            server.url,
            "--name",
            "again",
        )
        assert again.exit_code == 0, again.output
        assert len(server.answer_arrivals()) == 1
        assert "12 from cache" in again.output
    assert KEY.encode() not in batch_db.read_bytes()


def test_a_batch_still_at_the_provider_is_waited_for_not_sent_twice(batch_db):
    with LoopbackServer("openai") as server:
        server.batches.hold = True
        assert submit(batch_db, server).exit_code == 0
        waiting = cli(batch_db, "batch", "collect", "b")
        assert waiting.exit_code == 75, waiting.output  # not done, nothing wrong: ask again later
        assert "in_progress, 0 of 12 done at the provider" in waiting.output
        as_json = json.loads(cli(batch_db, "batch", "collect", "b", "--json").stdout)
        assert as_json["waiting"][0]["provider_status"] == "in_progress" and as_json["progress"]["missing"] == 12
        assert predictions(batch_db) == {}
        for args in (["run", "--resume", "b"], ["run", "--resume", "b", "--batch"]):
            refused = cli(batch_db, *args)
            assert refused.exit_code == 1 and "waits on batch openai batch_" in refused.output
        assert not server.answer_arrivals() and len(server.batches.created) == 1
        store = Store.open(batch_db)  # the engine itself refuses too (the TUI starts runs through it)
        prepared = prepare_run(store, RunRequest(resume="b"))
        store.close()
        with pytest.raises(RunSetupError, match="waits on batch"):
            run_blocking(batch_db, prepared)
        status = cli(batch_db, "batch", "status", "--json")
        assert json.loads(status.output)[0]["status"] == "submitted"

        server.batches.hold = False
        done = cli(batch_db, "batch", "collect", "b", "--wait", "--every", "0.1")
        assert done.exit_code == 0, done.output
        assert len(predictions(batch_db)) == 12 and run_status(batch_db) == "finished"
        assert json.loads(cli(batch_db, "batch", "status", "b", "--json").stdout)[0]["status"] == "collected"


def test_a_batch_the_provider_rejects_leaves_every_claim_pending(batch_db):
    with LoopbackServer("openai") as server:
        server.batches.fail_next = "the input file is not valid JSONL"
        assert submit(batch_db, server).exit_code == 0
        failed = cli(batch_db, "batch", "collect", "b")
        assert failed.exit_code == 1
        assert "the input file is not valid JSONL" in failed.output and "still pending" in failed.output
        assert predictions(batch_db) == {} and run_status(batch_db) == "failed"
        resent = submit(batch_db, server)  # the same command sends the claims again, in a new batch
        assert resent.exit_code == 0, resent.output
        assert cli(batch_db, "batch", "collect", "b").exit_code == 0
        assert len(predictions(batch_db)) == 12


def test_an_anthropic_message_batch_with_an_errored_request(batch_db):
    with LoopbackServer("anthropic") as server:
        server.batches.refuse = lambda params: "overloaded" if "Bridge number 7 " in json.dumps(params) else None
        result = submit(batch_db, server, "anthropic:claude-test")
        assert result.exit_code == 0, result.output
        assert "submitted batch msgbatch_" in result.output
        collected = cli(batch_db, "batch", "collect", "b")
        assert "1 of 12 claims has no answer" in collected.output
        answers = predictions(batch_db)
        assert answers["c7"] == ("error", None, "batch: errored: overloaded")
        assert answers["c0"][:2] == ("ok", "Supported")
    assert KEY.encode() not in batch_db.read_bytes()


def test_cancelling_a_batch_keeps_what_was_answered_and_frees_the_rest(batch_db):
    with LoopbackServer("anthropic") as server:
        server.batches.hold = True
        assert submit(batch_db, server, "anthropic:claude-test").exit_code == 0
        cancelled = cli(batch_db, "batch", "cancel", "b")
        assert cancelled.exit_code == 0 and "asked to cancel msgbatch_" in cancelled.output
        collected = cli(batch_db, "batch", "collect", "b")
        assert "6 of 12 claims have no answer" in collected.output  # the provider ran half before stopping
        statuses = [status for status, _, _ in predictions(batch_db).values()]
        assert statuses.count("ok") == 6 and statuses.count("error") == 6
        assert "batch: canceled" in {error for _, _, error in predictions(batch_db).values()}
        server.batches.hold = False
        assert cli(batch_db, "run", "--resume", "b").exit_code == 0  # live, this time
        assert len(server.answer_arrivals()) == 6
        assert {status for status, _, _ in predictions(batch_db).values()} == {"ok"}


def test_an_expired_openai_batch_and_a_cancelled_one_give_what_they_have(batch_db):
    with LoopbackServer("openai") as server:
        server.batches.expire = True
        assert submit(batch_db, server).exit_code == 0
        assert "6 of 12 claims have no answer" in cli(batch_db, "batch", "collect", "b").output
        errors = [error for status, _, error in predictions(batch_db).values() if status == "error"]
        assert errors == ["batch: not run before the completion window ended"] * 6
        server.batches.expire, server.batches.hold = False, True
        assert submit(batch_db, server).exit_code == 0  # the six left, in a new batch
        assert "asked to cancel batch_" in cli(batch_db, "batch", "cancel", "b").output
        collected = cli(batch_db, "batch", "collect", "b")
        assert "3 of 12 claims have no answer" in collected.output and "9 ok" in collected.output


def test_a_big_run_is_split_to_fit_the_providers_limits(batch_db, monkeypatch):
    from workbench.backends.batch_api import OpenAIBatches

    monkeypatch.setattr(OpenAIBatches, "max_requests", 5)
    with LoopbackServer("openai") as server:
        result = submit(batch_db, server)
        assert result.exit_code == 0, result.output
        assert len(server.batches.created) == 3 and "12 requests" in result.output
        assert cli(batch_db, "batch", "collect", "b").exit_code == 0
        assert len(predictions(batch_db)) == 12


def test_split_lines_respects_both_limits():
    from workbench.runs.batch import split_lines

    lines = ["x" * 9] * 7  # 10 bytes each with the newline
    assert [len(c) for c in split_lines(lines, max_requests=3, max_bytes=1000)] == [3, 3, 1]
    assert [len(c) for c in split_lines(lines, max_requests=100, max_bytes=25)] == [2, 2, 2, 1]
    assert split_lines([], 3, 100) == []


@pytest.mark.parametrize("status", [400, 429])
def test_a_refused_submit_sends_nothing_and_leaves_no_trace(batch_db, status):
    with LoopbackServer("openai") as server:
        server.batches.create_status = status
        refused = submit(batch_db, server)
        assert refused.exit_code == 1 and f"HTTP {status}: injected {status} on batch create" in refused.output
        assert "the provider refused this batch" in refused.output
        assert server.batches.deleted == ["file-1"]  # the uploaded input file is removed again
        assert json.loads(cli(batch_db, "batch", "status", "--json").stdout) == []
        assert run_status(batch_db) != "batched"
        assert submit(batch_db, server).exit_code == 0  # nothing blocks a second try


@pytest.mark.parametrize("made", [True, False], ids=["the-batch-was-made", "it-was-not"])
def test_a_submit_whose_reply_was_lost_is_settled_by_asking_the_provider(batch_db, made):
    with LoopbackServer("openai") as server:
        if made:
            server.batches.lose_reply = True  # the provider made the batch, the reply never came
        else:
            server.batches.create_status = 503  # the provider made nothing
        lost = submit(batch_db, server)
        assert lost.exit_code == 1 and "may have made the batch" in lost.output
        assert f"`workbench --db {batch_db} batch collect b` asks the provider" in " ".join(lost.output.split())
        rows = json.loads(cli(batch_db, "batch", "status", "--json").stdout)
        assert [row["status"] for row in rows] == ["submitting"] and "cut off" in rows[0]["note"]
        for args in (["run", "--resume", "b"], ["run", "--resume", "b", "--batch"]):
            refused = cli(batch_db, *args)
            assert refused.exit_code == 1 and "never completed" in refused.output
        collected = cli(batch_db, "batch", "collect", "b")  # looks the tagged batch up
        if made:
            assert collected.exit_code == 0, collected.output
            assert len(predictions(batch_db)) == 12 and len(server.batches.created) == 1
        else:
            assert "never reached the provider; its claims are free again" in " ".join(collected.output.split())
            assert run_status(batch_db) == "pending"
            assert cli(batch_db, "run", "--resume", "b").exit_code == 0
            assert len(predictions(batch_db)) == 12 and not server.batches.created


def test_a_lost_anthropic_submit_waits_for_the_user_to_forget_it(batch_db):
    with LoopbackServer("anthropic") as server:
        server.batches.create_status = 503
        assert submit(batch_db, server, "anthropic:claude-test").exit_code == 1
        waiting = cli(batch_db, "batch", "collect", "b")
        said = " ".join(waiting.output.split())
        assert "cannot be asked whether it made the batch" in said and "batch forget b" in said
        assert cli(batch_db, "run", "--resume", "b").exit_code == 1
        forgot = cli(batch_db, "batch", "forget", "b")
        assert forgot.exit_code == 0 and "forgot (unconfirmed submit of" in forgot.output
        assert run_status(batch_db) == "pending"
        assert cli(batch_db, "run", "--resume", "b").exit_code == 0
        assert len(predictions(batch_db)) == 12


def test_collect_leaves_a_run_without_batches_as_it_was(batch_db):
    with LoopbackServer("openai") as server:
        result = cli(
            batch_db,
            "run",
            "--dataset",
            "many",
            "--limit",
            "2",
            "--model",
            "openai:gpt-test",
            "--base-url",
            server.url,
            "--name",
            "b",
        )
        assert result.exit_code == 0, result.output
        store = Store.open(batch_db)
        store.runs.set_status(store.runs.get("b").id, "cancelled")
        store.close()
        assert cli(batch_db, "batch", "collect", "b").exit_code == 0
        assert run_status(batch_db) == "cancelled"


def test_two_submits_of_one_run_cannot_both_reserve(batch_db):
    from store import BatchBusy

    first, second = Store.open(batch_db), Store.open(batch_db)
    run_id = first.runs.create(Run(name="r", dataset_id=1, model="openai:x"), [1, 2]).id
    first.batches.reserve(run_id, "openai", [2])
    with pytest.raises(BatchBusy):
        second.batches.reserve(run_id, "openai", [2])
    first.close(), second.close()


def test_a_local_model_has_no_batch_api(batch_db):
    result = cli(batch_db, "run", "--dataset", "many", "--limit", "1", "--batch")
    assert result.exit_code == 1
    assert "--batch needs an API model" in result.output
