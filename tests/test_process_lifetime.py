"""A `workbench` process spares its garbage collector the objects it starts with and the walk
over all of them as it exits (workbench/cli/process.py), and still leaves its database whole:
every connection is closed before the exit, so SQLite folds the WAL into the file."""

from __future__ import annotations

import re
import shutil
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from store.connection import close_open_databases, open_database
from tests.support.reading import demo_with_a_search  # noqa: F401  (a fixture)

ROOT = Path(__file__).resolve().parents[1]
WORKBENCH = [sys.executable, "-c", "import sys; from workbench.cli import main; sys.exit(main())"]
"""The console script's own lines: main() called as the whole process."""


def left_beside(db: Path) -> list[str]:
    """The files SQLite keeps beside an open database (its WAL and shared memory)."""
    return sorted(path.name for path in db.parent.glob(db.name + "-*"))


@pytest.fixture
def copied_demo(demo_with_a_search, tmp_path):  # noqa: F811
    db = tmp_path / "demo.db"
    shutil.copy(demo_with_a_search, db)
    return db


@pytest.mark.parametrize("command", [["show", "1"], ["claims"], ["runs"], ["predictions", "demo-checker"]])
def test_a_reading_command_leaves_no_wal_beside_the_database(copied_demo, command):
    result = subprocess.run(
        [*WORKBENCH, "--db", str(copied_demo), *command], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()
    assert left_beside(copied_demo) == []


def test_a_closed_pipe_and_a_writing_command_leave_the_database_whole(copied_demo, tmp_path):
    reader_gone = subprocess.Popen([*WORKBENCH, "--db", str(copied_demo), "claims"], stdout=subprocess.PIPE, cwd=ROOT)
    reader_gone.stdout.close()  # as `workbench claims | head -0`: the first write finds no reader
    assert reader_gone.wait(120) == 141
    assert left_beside(copied_demo) == []

    fresh = tmp_path / "fresh.db"
    made = subprocess.run(
        [*WORKBENCH, "--db", str(fresh), "demo", "--no-tui"], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert made.returncode == 0, made.stderr
    assert left_beside(fresh) == []
    # The file alone holds what the command wrote (nothing waits in a WAL).
    with sqlite3.connect(fresh) as copy:
        assert copy.execute("SELECT count(*) FROM claims").fetchone()[0] > 50


COUNTING = """
import atexit, gc, sys
from workbench.cli import main
collections = []
gc.callbacks.append(lambda phase, info: phase == "start" and collections.append(info["generation"]))
atexit.register(lambda: print("collections:", len(collections), "frozen:", gc.get_freeze_count(), file=sys.stderr))
main()
"""
"""The process's collections from the command line's start (importing click before it
collects about fifteen times, 2 ms) to the exit."""


@pytest.mark.parametrize("command", [["show", "1"], ["claims"]])
def test_a_reading_command_runs_without_a_garbage_collection(copied_demo, command):
    """With CPython's default thresholds `show 1` collected about thirty times before it had
    printed (and walked every object once more as it exited: that last walk is not counted
    here, the WAL test above shows the exit stays whole without it)."""
    result = subprocess.run(
        [sys.executable, "-c", COUNTING, "--db", str(copied_demo), *command],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    collections, frozen = re.search(r"collections: (\d+) frozen: (\d+)", result.stderr).groups()
    assert collections == "0"
    assert int(frozen) > 10_000  # at the exit, so its collection skips them


def test_connections_are_closed_as_the_process_ends_unless_a_thread_may_still_use_one(tmp_path):
    """In a process of its own: the test session's other connections are not this test's to close."""
    code = "import sys; from pathlib import Path; import tests.test_process_lifetime as t; t.closing(Path(sys.argv[1]))"
    result = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr


def closing(tmp_path: Path) -> None:
    first, second = open_database(tmp_path / "a.db"), open_database(tmp_path / "b.db")
    second.close()
    assert close_open_databases() is True
    with pytest.raises(sqlite3.ProgrammingError, match="closed"):
        first.execute("SELECT 1")

    opened, finish = threading.Event(), threading.Event()
    owned = {}

    def worker():
        owned["conn"] = open_database(tmp_path / "c.db")
        opened.set()
        finish.wait(30)
        owned["conn"].close()

    thread = threading.Thread(target=worker)
    thread.start()
    opened.wait(30)
    try:
        assert close_open_databases() is False  # left to its thread (and the collector)
    finally:
        finish.set()
        thread.join(30)
    assert close_open_databases() is True

    shared = open_database(tmp_path / "d.db", closed_elsewhere=True)  # a TUI worker's
    assert close_open_databases() is False  # it may still be under a query in its thread
    shared.execute("SELECT 1")
    shared.close()
    assert close_open_databases() is True
