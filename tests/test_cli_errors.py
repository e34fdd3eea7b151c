"""What a new user trips over, said in one line: every way a database path can be wrong (CLI
and TUI), closed pipes, usage errors, a broken config file, --db on every command, and the
claims footer naming every dataset its count spans."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.conftest import DEMO_DATA
from workbench.cli import main

WORKBENCH = str(Path(sys.executable).with_name("workbench"))


def run(*args, **kwargs):
    return CliRunner().invoke(main, [str(a) for a in args], **kwargs)


def run_process(*args, env=None, **kwargs):
    return subprocess.run(
        [WORKBENCH, *map(str, args)], capture_output=True, text=True, env={**os.environ, **(env or {})}, **kwargs
    )


def one_error_line(result) -> str:
    """The only line a failed command printed (stderr for a process, output for CliRunner)."""
    text = result.stderr if isinstance(result, subprocess.CompletedProcess) else result.output
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1, text
    assert "Traceback" not in text
    return lines[0]


@pytest.fixture
def demo_db(tmp_path) -> Path:
    path = tmp_path / "demo.db"
    assert run("--db", path, "demo", "--no-tui").exit_code == 0
    return path


def test_a_missing_folder_a_folder_and_a_file_that_is_not_sqlite(tmp_path):
    notes = tmp_path / "notes.db"
    notes.write_text("my notes, not a database\n")
    cases = [
        (tmp_path / "nowhere" / "x.db", "the folder", "does not exist"),
        (tmp_path, "is a folder, not a database file", ""),
        (notes, "is not a SQLite database", ""),
    ]
    for path, expected, also in cases:
        for command in (["claims"], ["datasets"], ["import", DEMO_DATA / "jsfactcheck.jsonl"]):
            result = run("--db", path, *command)
            assert result.exit_code == 1, (path, command, result.output)
            line = one_error_line(result)
            assert line.startswith(f"Error: {path}: ") and expected in line and also in line
    assert notes.read_text() == "my notes, not a database\n"  # never touched


def test_the_tui_refuses_before_taking_the_terminal(tmp_path):
    notes = tmp_path / "notes.db"
    notes.write_text("not sqlite")
    for command in (
        [WORKBENCH, "--db", str(notes), "tui"],
        [sys.executable, "-m", "workbench.tui", "--db", str(notes)],
    ):
        result = subprocess.run(command, capture_output=True, text=True, timeout=60)
        assert result.returncode == 1, result
        assert (
            one_error_line(result) == f"Error: {notes}: is not a SQLite database (or is damaged);"
            " a workbench database is one SQLite file"
        )
        assert "\x1b[" not in result.stdout  # no screen was drawn


def test_a_database_from_a_newer_version_is_refused(demo_db):
    with sqlite3.connect(demo_db) as db:
        db.execute(
            "INSERT INTO _sqlite_migrations (migration_set, name, applied_at)"
            " VALUES ('workbench', 'm999_from_the_future', 'x')"
        )
    result = run("--db", demo_db, "claims")
    assert result.exit_code == 1
    line = one_error_line(result)
    assert line.startswith(f"Error: {demo_db}: was upgraded by a newer version")
    assert "m999_from_the_future" in line and "upgrade the workbench" in line


def test_a_database_locked_longer_than_the_busy_timeout(demo_db):
    holder = sqlite3.connect(demo_db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process writing, and not letting go
    holder.execute("UPDATE claims SET label = label WHERE id = 1")
    try:
        result = run_process(
            "--db",
            demo_db,
            "import",
            DEMO_DATA / "jsfactcheck.jsonl",
            "--dataset",
            "again",
            env={"WORKBENCH_BUSY_TIMEOUT_MS": "200"},
            timeout=60,
        )
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert result.returncode == 1
    line = one_error_line(result)
    assert line.startswith(f"Error: {demo_db}: is locked by another process") and "0.2 s" in line


def _as_nobody() -> list[str] | None:
    """A command prefix that drops root (root may write any file, so read-only means nothing)."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        return None
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def test_a_read_only_database():
    prefix = _as_nobody()
    if prefix is None:
        pytest.skip("running as root without setpriv: a read-only file cannot be made here")
    folder = Path(tempfile.mkdtemp(prefix="workbench-ro-"))  # a folder every user may enter
    folder.chmod(0o755)
    db = folder / "ro.db"
    try:
        assert run("--db", db, "demo", "--no-tui").exit_code == 0
        db.chmod(0o444)
        env = {**os.environ, "HOME": str(folder), "WORKBENCH_CONFIG": str(folder / "none.toml")}
        result = subprocess.run(
            [*prefix, WORKBENCH, "--db", str(db), "claims"], capture_output=True, text=True, env=env, timeout=60
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if result.returncode != 1 and "Permission denied" in result.stderr:
        pytest.skip(f"the test user cannot run the workbench here: {result.stderr[:200]}")
    assert result.returncode == 1, result
    assert one_error_line(result).startswith(f"Error: {db}: is read-only")


def test_a_closed_pipe_ends_quietly_with_the_shells_status(demo_db):
    result = subprocess.run(
        f"'{WORKBENCH}' --db '{demo_db}' export --what claims | head -1; echo status ${{PIPESTATUS[0]}} >&2",
        shell=True,
        executable="/bin/bash",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert json.loads(result.stdout.splitlines()[0])["id"]
    assert result.stderr.strip().splitlines() == ["status 141"]


def test_a_usage_error_is_one_line(demo_db):
    for args, message in (
        (["export", "--what", "claims", "--format", "xml"], "'xml' is not one of"),
        (["expotr"], "No such command 'expotr'"),
        (["--bogus"], "No such option"),
    ):
        result = run("--db", demo_db, *args)
        assert result.exit_code == 2
        line = one_error_line(result)
        assert message in line and "--help`)" in line


def test_a_broken_config_file_stops_every_command_that_reads_it(demo_db, tmp_path, monkeypatch):
    """Every command but the reading ones, which check only the settings they read (see
    test_accept_config): a prompts_dir given makes `prompts` read the file, and stop too."""
    config = tmp_path / "bad.toml"
    config.write_text('theme = 5\nprompts_dir = "/nowhere"\n[keys]\nopenai = "sk-secret-value"\n')
    monkeypatch.setenv("WORKBENCH_CONFIG", str(config))
    for command in (
        ["prompts"],
        ["metrics", "x"],
        ["batch", "status"],
        ["contamination", "summary"],
        ["cutoffs"],
        ["import", "--dry-run", "x.jsonl"],
    ):
        result = run("--db", demo_db, *command)
        assert result.exit_code == 1, (command, result.output)
        line = one_error_line(result)
        assert str(config) in line and "theme" in line and "sk-secret" not in line
    assert run("--db", demo_db, "datasets", "--help").exit_code == 0  # help still works


def test_every_command_takes_db_after_its_name(demo_db, tmp_path):
    for command in (
        ["batch", "--db", demo_db, "status"],
        ["contamination", "--db", demo_db, "summary"],
        ["score-evidence", "--db", demo_db, "--help"],
        ["nlp-data", "--db", demo_db, "--help"],
    ):
        result = run(*command)
        assert "No such option" not in result.output, (command, result.output)


def test_the_claims_footer_names_every_dataset_its_count_spans(demo_db):
    result = run("--db", demo_db, "claims", "--where", "label:Refuted", "--limit", "2")
    assert result.exit_code == 0
    assert (
        result.output.strip()
        .splitlines()[-1]
        .endswith("matching (datasets demo, demo-averitec, demo-claimreview, demo-ja)")
    )
    one = run("--db", demo_db, "claims", "--where", "dataset:demo", "--limit", "2")
    assert one.output.strip().splitlines()[-1].endswith("matching (dataset demo)")
