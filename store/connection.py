"""Opening the SQLite file the way every part of the workbench needs it.

The store reads through the standard library's sqlite3 connection itself (importing
sqlite-utils would load numpy with it: longer than a reading command takes). Writes that are
one statement commit at once (the connection is in SQLite's autocommit mode, as sqlite-utils
expects); several writes together go through sqlite-utils' own `atomic()` over the same
connection, and the migrations through its `Migrations`.
"""

from __future__ import annotations

import sqlite3
import threading
import weakref
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from store.problems import BUSY_TIMEOUT_MS, DatabaseProblem, as_problem, check_path

if TYPE_CHECKING:
    import sqlite_utils


class TrackedConnection(sqlite3.Connection):
    """sqlite3's connection, which a process can find again to close as it ends (the built-in
    type takes no weak reference). `shared`: opened with closed_elsewhere."""

    shared = False

    def close(self) -> None:
        super().close()
        with _OPEN_LOCK:
            _OPEN.discard(self)


_OPEN: weakref.WeakSet[TrackedConnection] = weakref.WeakSet()
_OPEN_LOCK = threading.Lock()
"""Worker threads open and close theirs while the main thread may be reading the set."""

MMAP_BYTES = 1 << 30
"""How much of the file SQLite may map into memory (a big database is read through the map)."""


def open_database(path: str | Path, closed_elsewhere: bool = False) -> sqlite3.Connection:
    """Open (or create) the database file with WAL, foreign keys and a busy timeout.

    A path that cannot hold the database (a folder, a missing folder, a file that is not
    SQLite, no permission, a lock held too long) is a DatabaseProblem naming it.
    One connection per thread: sqlite3 connections refuse to cross threads, which is
    what we want (a TUI worker opens its own). `closed_elsewhere`: the connection is still
    used by one thread only, but another may close it once that thread has ended.
    """
    path = Path(path)
    check_path(path)
    conn = None
    try:
        # isolation_level=None: SQLite's autocommit (a lone write commits; BEGIN opens a transaction).
        conn = sqlite3.connect(
            path, check_same_thread=not closed_elsewhere, isolation_level=None, factory=TrackedConnection
        )
        conn.shared = closed_elsewhere
        with _OPEN_LOCK:
            _OPEN.add(conn)
        conn.execute("PRAGMA recursive_triggers = ON")  # as sqlite-utils sets it (the schema was made so)
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        # WAL lets the TUI read while a run in another process writes.
        conn.execute("PRAGMA journal_mode = WAL")
        # NORMAL in WAL mode survives a killed process (kill -9 loses nothing committed);
        # only an OS crash or power loss can drop the last transactions.
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        # Reads of big runs scan hundreds of thousands of claim rows: mapped pages spare a
        # copy per page (the join of a 300,000-claim run: 58 -> 49 ms). Address space only.
        conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # reads the header
    except sqlite3.Error as error:
        if conn is not None:
            conn.close()
        problem = as_problem(error, path)
        if problem is None:
            raise
        raise problem from None
    return conn


def close_open_databases() -> bool:
    """Close every connection this process opened and still holds, so SQLite moves the WAL
    into the file and removes it (a file copied after the process ends is then whole).
    False when one cannot be closed here: another thread still owns it, or may still be
    using it (a TUI worker's: closing it under a query would fail the query)."""
    closed_all = True
    with _OPEN_LOCK:
        still_open = list(_OPEN)
    for conn in still_open:
        if conn.shared:
            closed_all = False
            continue
        try:
            conn.close()
        except sqlite3.Error:  # ProgrammingError: made in a thread that is still running
            closed_all = False
    return closed_all


def sqlite_utils_database(conn: sqlite3.Connection) -> sqlite_utils.Database:
    """sqlite-utils' Database over the store's connection (for transactions, migrations and
    its table objects); imported on the first use."""
    import sqlite_utils

    return sqlite_utils.Database(conn, recursive_triggers=False, execute_plugins=False)


def atomic(conn: sqlite3.Connection) -> AbstractContextManager:
    """Every write inside commits together, or none does; nested, a savepoint (sqlite-utils'
    `atomic()`)."""
    return sqlite_utils_database(conn).atomic()


def rows_as_dicts(cursor: sqlite3.Cursor) -> list[dict]:
    """A cursor's rows as dicts, column name -> value."""
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row)) for row in cursor]


def database_path(conn: sqlite3.Connection) -> str:
    """The file a connection is open on (for messages)."""
    rows = conn.execute("PRAGMA database_list").fetchall()
    return next((row[2] for row in rows if row[1] == "main"), "") or "the database"


def data_version(conn: sqlite3.Connection) -> int:
    """SQLite's counter that changes when another connection commits.

    The TUI polls this to notice a run writing from another terminal.
    """
    return conn.execute("PRAGMA data_version").fetchone()[0]


__all__ = [
    "BUSY_TIMEOUT_MS",
    "DatabaseProblem",
    "atomic",
    "close_open_databases",
    "data_version",
    "database_path",
    "open_database",
    "rows_as_dicts",
    "sqlite_utils_database",
]


@contextmanager
def write_lock(db: sqlite3.Connection) -> Iterator[None]:
    """A transaction that holds the write lock from its first statement (BEGIN IMMEDIATE):
    what it reads cannot change under it before it writes. Nested: a savepoint."""
    if db.in_transaction:
        with atomic(db):
            yield
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.rollback()
        raise
    db.execute("COMMIT")
