"""Item 4 of issue 20: every command a message suggests works as written. Each test makes a
command fail (or stop) the way a user meets it, takes the command its message suggests, and
runs it exactly as printed, in a fresh process, as a person pasting it into the shell."""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.loopback_servers import Fault, LoopbackServer
from tests.run_fixtures import many_claims, write_mini
from tests.support.judging import add_answers, scripted_judge
from tests.support.processes import workbench_process
from workbench.cli import main
from workbench.importers import import_file

WORKBENCH = str(Path(sys.executable).with_name("workbench"))


def cli(*args: str):
    return CliRunner().invoke(main, list(args), terminal_width=200)


def hinted_commands(output: str) -> list[str]:
    """The commands a message suggests: in backquotes, or after "continue with:"."""
    text = " ".join(output.split())  # a terminal may have wrapped it
    found = re.findall(r"`(workbench [^`]+)`", text)
    found += [m.strip() for m in re.findall(r"continue with: (workbench .+?)$", output, re.M)]
    return found


def run_as_written(command: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """The command as a person would paste it: split as the shell splits, `workbench` the
    installed script."""
    words = shlex.split(command)
    assert words[0] == "workbench"
    return subprocess.run(
        [WORKBENCH, *words[1:]], capture_output=True, text=True, timeout=timeout, env=dict(os.environ)
    )


@pytest.fixture
def many_db(store, db_path, tmp_path) -> Path:
    import_file(store, write_mini(tmp_path, many_claims(12), name="many"), "jsonl")
    return db_path


def test_a_failed_judge_run_through_a_server_suggests_the_command_that_retries_it(store, many_db):
    """The hint keeps --base-url (and every option that chose the judge run): run as printed,
    it finishes the judgments instead of asking for --base-url."""
    add_answers(store, "sys-a", right_every=2, count=12)
    with LoopbackServer("openai", answer=scripted_judge) as server:
        server.faults.extend([Fault.status_code(500)] * 3)
        failed = cli(
            "--db",
            str(many_db),
            "judge",
            "sys-a",
            "--judge",
            "openai-compatible:qwen",
            "--base-url",
            server.url,
            "--param",
            "attempts=1",
            "--concurrency",
            "1",
        )
        assert failed.exit_code == 1, failed.output
        (hint,) = hinted_commands(failed.output)
        assert "--base-url" in hint and "--db" in hint
        again = run_as_written(hint)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "finished: 12 ok" in " ".join(again.stdout.split())


def test_a_cancelled_run_says_the_command_that_continues_it(many_db):
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
            "a name with spaces",
        )
        assert server.wait_served(2)
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=60)
        assert process.returncode == 130, output
        (hint,) = hinted_commands(output)
        again = run_as_written(hint)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "continuing run a name with spaces" in " ".join(again.stdout.split())


@pytest.mark.parametrize(
    "command",
    [
        ["predictions", "no-such-run"],
        ["batch", "collect", "no-such-run"],
        ["score-evidence", "--run", "no-such-run"],
        ["reformulations", "no-such-run", "--judge", "gguf:default"],
        ["run", "--resume", "no-such-run"],
        ["import-knowledge", "/etc/hostname", "--dataset", "no-such-set"],
    ],
)
def test_a_misspelled_name_suggests_a_listing_that_runs(many_db, command):
    failed = cli("--db", str(many_db), *command)
    assert failed.exit_code == 1, failed.output
    (hint,) = hinted_commands(failed.output)
    listing = run_as_written(hint)
    assert listing.returncode == 0, listing.stdout + listing.stderr
    listed = " ".join(listing.stdout.split())
    assert listed.startswith(f"no runs yet: `workbench --db {many_db} run` starts one") or "many" in listed


def test_a_batch_submitted_says_how_to_collect_it_and_that_works(many_db, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback")
    with LoopbackServer("openai") as server:
        submitted = cli(
            "--db",
            str(many_db),
            "run",
            "--model",
            "openai:gpt-test",
            "--base-url",
            server.url,
            "--dataset",
            "many",
            "--batch",
            "--name",
            "b",
        )
        assert submitted.exit_code == 0, submitted.output
        (hint,) = hinted_commands(submitted.output)
        collected = run_as_written(hint)
    assert collected.returncode == 0, collected.stdout + collected.stderr
    assert "run b: 12 ok" in " ".join(collected.stdout.split())


def test_a_hint_keeps_the_users_db_only_when_it_was_given(many_db, monkeypatch):
    """Through $WORKBENCH_DB the shell already knows the database: the hint stays short."""
    monkeypatch.setenv("WORKBENCH_DB", str(many_db))
    failed = cli("predictions", "no-such-run")
    assert hinted_commands(failed.output) == ["workbench runs"]
    failed = cli("predictions", "no-such-run", "--db", str(many_db))
    assert hinted_commands(failed.output) == [f"workbench --db {many_db} runs"]


def test_a_missing_file_is_the_same_error_for_import_and_import_knowledge(many_db, tmp_path):
    """Both are a file the user can fix (exit 1, the path and what is wrong), not a command
    typed wrong (exit 2)."""
    missing = tmp_path / "missing.jsonl"
    claims = cli("--db", str(many_db), "import", str(missing))
    documents = cli("--db", str(many_db), "import-knowledge", str(missing), "--dataset", "many")
    assert claims.exit_code == documents.exit_code == 1
    assert claims.output == documents.output == f"Error: {missing}: no such file\n"


def test_the_datasets_listing_suggests_a_curate_command_that_runs(tmp_path):
    """The funnel hint under `datasets` carries the --db given: pasted, it shows the funnel."""
    db_path = tmp_path / "demo.db"
    assert cli("--db", str(db_path), "demo", "--no-tui").exit_code == 0
    listed = cli("--db", str(db_path), "datasets")
    assert hinted_commands(listed.output) == [f"workbench --db {db_path} curate demo-claimreview"]
    shown = run_as_written(hinted_commands(listed.output)[0])
    assert shown.returncode == 0 and "curation of demo-claimreview" in shown.stdout
