"""What can be wrong with a database path, said in one line that names the path."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

BUSY_TIMEOUT_MS = int(os.environ.get("WORKBENCH_BUSY_TIMEOUT_MS") or 10_000)
"""How long a statement waits for another process's write lock before giving up."""


class DatabaseProblem(Exception):
    """The database file cannot be used; the message names the path and what is wrong."""

    def __init__(self, path: str | Path, what: str):
        self.path, self.what = str(path), what
        super().__init__(f"{path}: {what}")


def check_path(path: Path) -> None:
    """DatabaseProblem for a path that cannot hold the database, before SQLite tries it."""
    if path.is_dir():
        raise DatabaseProblem(path, "is a folder, not a database file (pass --db FOLDER/NAME.db)")
    folder = path.absolute().parent
    if not folder.is_dir():
        raise DatabaseProblem(path, f"the folder {folder} does not exist")
    if path.exists():
        if not os.access(path, os.R_OK):
            raise DatabaseProblem(path, "cannot be read (no read permission)")
        if not os.access(path, os.W_OK):
            raise DatabaseProblem(path, read_only_text())
    elif not os.access(folder, os.W_OK):
        raise DatabaseProblem(path, f"cannot be created: no write permission in {folder}")


def missing_database_text(path: str | Path) -> str:
    """What opening the workbench on a file that does not exist says (`workbench tui`,
    `workbench serve` and `python -m workbench.tui` alike): the file is not created."""
    import shlex  # only to say what to type

    return (
        f"no database at {path}; import a file first (workbench import FILE), try"
        f" `workbench --db {shlex.quote(str(path))} demo`, or pass --db"
    )


def read_only_text() -> str:
    return (
        "is read-only (no write permission); the workbench records runs, flags and schema"
        " upgrades in it: copy it somewhere writable, or change its permissions"
    )


def describe(error: BaseException) -> str | None:
    """What a SQLite error says about the database file, or None if it says nothing about it."""
    if not isinstance(error, sqlite3.Error):
        return None
    text = str(error).lower()
    if "file is not a database" in text or "malformed" in text:
        return "is not a SQLite database (or is damaged); a workbench database is one SQLite file"
    if "locked" in text or "busy" in text:
        return (
            f"is locked by another process, which has held it for longer than"
            f" {BUSY_TIMEOUT_MS / 1000:g} s (a run or an import in another terminal?); try again when it is done"
        )
    if "readonly" in text or "read-only" in text:
        return read_only_text()
    if "unable to open" in text:
        return "cannot be opened (its folder or its -wal/-shm files are not writable?)"
    if "disk i/o" in text or "disk is full" in text or "database or disk is full" in text:
        return f"cannot be written: {error}"
    return None


def as_problem(error: BaseException, path: str | Path) -> DatabaseProblem | None:
    """A DatabaseProblem for a SQLite error about the file at `path` (None for others)."""
    if isinstance(error, DatabaseProblem):
        return error
    what = describe(error)
    return DatabaseProblem(path, what) if what else None
