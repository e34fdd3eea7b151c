"""`workbench run / runs / predictions` as a user types them, including a killed run."""

from __future__ import annotations

import json
import signal

import pytest
from click.testing import CliRunner

from store import Store
from tests.loopback_servers import LoopbackServer
from tests.run_fixtures import load_mini, many_claims, write_mini
from tests.support.processes import opened_store, workbench_process
from workbench.cli import main
from workbench.importers import import_file


@pytest.fixture
def many_db(store, db_path, tmp_path):
    import_file(store, write_mini(tmp_path, many_claims(30), name="many"), "jsonl")
    load_mini(store, tmp_path)
    return db_path


def cli(db_path, *args):
    result = CliRunner().invoke(main, ["--db", str(db_path), *args], terminal_width=100)
    return result


@pytest.mark.parametrize(
    "args, message",
    [
        (["--model", "gpt4"], "cannot read model 'gpt4': write SCHEME:NAME"),
        (["--model", "gguf:/nowhere/m.gguf"], "no GGUF file at /nowhere/m.gguf"),
        (["--model", "openai:gpt-4o-mini"], "no API key for openai: set OPENAI_API_KEY"),
        (["--model", "anthropic:claude-x"], "no API key for anthropic: set ANTHROPIC_API_KEY"),
        (["--model", "openai-compatible:x"], "needs --base-url"),
        (["--setting", "claim+internet"], "unknown setting 'claim+internet'"),
        (
            ["--prompt", "fancy"],
            "no prompt template 'fancy'; available: averitec, jsfactcheck, jsfactcheck-claim-first, jsfactcheck-ja, realfactbench",
        ),
        (["--dataset", "mini", "--setting", "claim+full"], "2 of 4 selected claims have no cited page"),
        (["--param", "temperature"], "--param wants key=value, not 'temperature'"),
        (["--param", "top_k=3"], "unknown --param 'top_k'"),
        (["--where", "label:Nonsense"], "no claims match 'label:Nonsense'"),
        (["--where", "label:"], "label: needs a value"),
        (["--resume", "nobody"], "nothing to resume: no run 'nobody'"),
        (["--dataset", "mini", "--where", "lable:x"], "unknown field 'lable'; did you mean label? (at column 1)"),
    ],
)
def test_bad_input_stops_before_any_work_with_a_clear_message(many_db, args, message):
    result = cli(many_db, "run", *args)
    assert result.exit_code == 1, result.output
    assert result.output.startswith("Error: ") and message in result.output
    assert "Traceback" not in result.output
    assert Store.open(many_db).runs.list() == []


def test_run_without_a_database_says_how_to_make_one(tmp_path):
    result = cli(tmp_path / "absent.db", "run")
    assert result.exit_code == 1 and "no database at" in result.output


def test_run_runs_and_predictions(many_db):
    with LoopbackServer("openai") as server:
        result = cli(
            many_db,
            "run",
            "--model",
            "openai-compatible:loop",
            "--base-url",
            server.url,
            "--dataset",
            "many",
            "--concurrency",
            "8",
            "--name",
            "loop",
        )
    assert result.exit_code == 0, result.output
    assert "new run loop (id 1): 30 claims, 30 to answer" in result.output
    assert "finished: 30 ok, 0 abstained, 0 unparsed, 0 errors, 0 not tried; 0 from cache" in result.output
    (summary,) = json.loads(cli(many_db, "runs", "--json").output)
    assert {k: summary[k] for k in ("name", "status", "total", "ok", "error", "missing", "cached", "tokens_in")} == {
        "name": "loop",
        "status": "finished",
        "total": 30,
        "ok": 30,
        "error": 0,
        "missing": 0,
        "cached": 0,
        "tokens_in": 330,
    }
    assert summary["items_per_second"] > 0
    table = cli(many_db, "runs").output
    assert "loop finished" in table and "openai-compatible:loop" in table
    lines = cli(many_db, "predictions", "loop", "--json").output.splitlines()
    assert len(lines) == 30 and json.loads(lines[0])["verdict"] == "Supported"
    wrong = [json.loads(line) for line in cli(many_db, "predictions", "loop", "--wrong", "--json").output.splitlines()]
    assert len(wrong) == 20 and all(w["gold"] != "Supported" for w in wrong)
    shown = cli(many_db, "predictions", "loop", "--wrong").output
    assert "20 shown of 20" in shown and "agrees." in shown


def test_model_output_is_printed_literally(many_db):
    def hostile(body):
        return '{"verdict": "Refuted", "explanation": "[bold red]x[/] \\u001b[31mred"}'

    with LoopbackServer("openai", answer=hostile) as server:
        cli(many_db, "run", "--model", "openai-compatible:loop", "--base-url", server.url, "--dataset", "mini")
    shown = cli(many_db, "predictions", "1").output
    assert "[bold red]x[/]" in shown and "\\x1b[31mred" in shown and "\x1b" not in shown
    stored = json.loads(cli(many_db, "predictions", "1", "--json").output.splitlines()[0])
    assert stored["explanation"] == "[bold red]x[/] \x1b[31mred"  # kept raw in the database


def test_a_killed_run_resumes_without_losing_or_repeating_answers(many_db):
    with LoopbackServer("openai", latency=0.15) as server:
        command = [
            "run",
            "--model",
            "openai-compatible:slow",
            "--base-url",
            server.url,
            "--dataset",
            "many",
            "--concurrency",
            "2",
            "--name",
            "crash",
        ]
        process = workbench_process(many_db, *command)
        try:
            assert server.wait_served(8), "the run never got going"
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait()
        assert process.returncode == -signal.SIGKILL
        with opened_store(many_db) as store:  # read after the kill: nothing can land in between
            before = {p.claim_id: p for p in store.runs.predictions(1)}
        assert before, "nothing was committed before the kill"
        assert len(before) < 30, "the run finished before the kill: nothing was left to resume"
        listed = json.loads(cli(many_db, "runs", "--json").stdout)
        assert listed[0]["status"] == "interrupted"  # not "running" forever
        result = cli(many_db, "run", "--resume", "crash")
    assert result.exit_code == 0, result.output
    assert f"continuing run crash (id 1): 30 claims, {30 - len(before)} to answer" in result.output
    with opened_store(many_db) as store:
        after = store.runs.predictions(1)
        assert sorted(p.claim_id for p in after) == store.claims.ids("dataset:many")  # one each
        kept = {p.claim_id: p for p in after}
        for claim_id, prediction in before.items():
            assert kept[claim_id] == prediction  # committed before the kill, untouched since
        assert store.runs.get(1).status == "finished"


def test_ctrl_c_cancels_cleanly_and_says_how_to_resume(many_db):
    with LoopbackServer("openai", latency=0.1) as server:
        process = workbench_process(
            many_db,
            "run",
            "--model",
            "openai-compatible:slow",
            "--base-url",
            server.url,
            "--dataset",
            "many",
            "--concurrency",
            "1",
            "--name",
            "stopme",
        )
        assert server.wait_served(3)
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=30)
        assert process.returncode == 130, output
        assert f"cancelled; continue with: workbench --db {many_db} run --resume stopme\n" in output
        assert "Traceback" not in output
        with opened_store(many_db) as store:
            assert store.runs.get("stopme").status == "cancelled"
        again = cli(
            many_db,
            "run",
            "--model",
            "openai-compatible:slow",
            "--base-url",
            server.url,
            "--dataset",
            "many",
            "--concurrency",
            "8",
        )
    assert "continuing run stopme" in again.output and again.exit_code == 0


def test_a_run_whose_claims_all_fail_exits_non_zero(many_db, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    # Nothing listens on port 9: the server cannot be reached, so the run stops and says why.
    result = cli(
        many_db,
        "run",
        "--dataset",
        "mini",
        "--limit",
        "2",
        "--model",
        "openai:gpt-4o-mini",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--param",
        "attempts=1",
    )
    assert result.exit_code == 1, result.output
    assert "connection refused by 127.0.0.1:9" in result.output and "--resume" in result.output


def test_auto_prompt_on_a_label_space_without_a_template_says_what_to_do(store, db_path, tmp_path):
    path = tmp_path / "own.jsonl"
    path.write_text(
        '{"_dataset": {"name": "own", "label_space": {"name": "mine", "labels": ["yes", "no"]}}}\n'
        '{"id": 1, "claim": "x", "label": "yes"}\n'
    )
    import_file(store, path)
    result = cli(db_path, "run", "--dataset", "own", "--prompt", "auto")
    assert result.exit_code == 1
    assert "no template for the 'mine' label space" in result.output
