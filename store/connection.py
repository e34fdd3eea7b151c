"""Opening the SQLite file the way every part of the workbench needs it."""

from __future__ import annotations

from pathlib import Path

import sqlite_utils

BUSY_TIMEOUT_MS = 10_000


def open_database(path: str | Path) -> sqlite_utils.Database:
    """Open (or create) the database file with WAL, foreign keys and a busy timeout.

    One connection per thread: sqlite3 connections refuse to cross threads, which is
    what we want (a TUI worker opens its own).
    """
    db = sqlite_utils.Database(Path(path), execute_plugins=False)
    conn = db.conn
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    # WAL lets the TUI read while a run in another process writes.
    conn.execute("PRAGMA journal_mode = WAL")
    # NORMAL in WAL mode survives a killed process (kill -9 loses nothing committed);
    # only an OS crash or power loss can drop the last transactions.
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    return db


def data_version(db: sqlite_utils.Database) -> int:
    """SQLite's counter that changes when another connection commits.

    The TUI polls this to notice a run writing from another terminal.
    """
    return db.execute("PRAGMA data_version").fetchone()[0]
