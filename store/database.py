"""The database object the sub-stores hold: a standard-library sqlite3 connection with the few
calls they make, so reading needs nothing beyond sqlite3.

The calls behave as sqlite-utils' `Database` does (the store was written against it): a write
run through `execute` outside a transaction commits at once, `atomic()` is a transaction (a
savepoint when nested), `query` yields rows as dicts. Anything else sqlite-utils offers (its
table objects, inserts, the migrations) goes to a sqlite-utils `Database` over the same
connection, made on first use: importing sqlite-utils costs more than most commands' work.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import sqlite_utils

_OPENERS = ("BEGIN", "SAVEPOINT")
"""Statements that open a transaction on purpose (not one to commit behind the caller)."""

_SAVEPOINTS = itertools.count(1)


class Database:
    """One sqlite3 connection (one per thread), as the sub-stores use it."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self._sqlite_utils: sqlite_utils.Database | None = None

    def execute(self, sql: str, parameters: Any = None) -> sqlite3.Cursor:
        """Run one statement; a write outside a transaction is committed before this returns."""
        conn = self.conn
        was_open = conn.in_transaction
        try:
            cursor = conn.execute(sql, () if parameters is None else parameters)
        except BaseException:
            if not was_open and conn.in_transaction:  # the failed write's implicit transaction
                conn.rollback()
            raise
        if not was_open and conn.in_transaction and cursor.description is None \
                and not sql.lstrip().upper().startswith(_OPENERS):
            conn.commit()
        return cursor

    def query(self, sql: str, params: Any = None) -> Iterator[dict]:
        """The rows of a SELECT as dicts, column name -> value."""
        cursor = self.execute(sql, params)
        names = [column[0] for column in cursor.description]
        return (dict(zip(names, row)) for row in cursor)

    @contextmanager
    def atomic(self) -> Iterator[Database]:
        """Every write inside commits together, or none does; nested, a savepoint."""
        conn = self.conn
        if conn.in_transaction:
            savepoint = f"store_atomic_{next(_SAVEPOINTS)}"
            conn.execute(f"SAVEPOINT {savepoint}")
            try:
                yield self
            except BaseException:
                if conn.in_transaction:  # a RAISE(ROLLBACK) trigger may have ended it already
                    conn.execute(f"ROLLBACK TO SAVEPOINT {savepoint}")
                    conn.execute(f"RELEASE SAVEPOINT {savepoint}")
                raise
            conn.execute(f"RELEASE SAVEPOINT {savepoint}")
            return
        conn.execute("BEGIN")
        try:
            yield self
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self.conn.close()

    @property
    def sqlite_utils(self) -> sqlite_utils.Database:
        """sqlite-utils' Database over this connection (migrations, table objects)."""
        if self._sqlite_utils is None:
            import sqlite_utils

            self._sqlite_utils = sqlite_utils.Database(self.conn, execute_plugins=False)
        return self._sqlite_utils

    def __getattr__(self, name: str):
        if name.startswith("_"):  # ours, or what copy and pickle probe for: never sqlite-utils'
            raise AttributeError(name)
        return getattr(self.sqlite_utils, name)

    def __getitem__(self, table: str):
        return self.sqlite_utils[table]


def sqlite_utils_database(db) -> sqlite_utils.Database:
    """sqlite-utils' Database for `db` (ours, or one already)."""
    return db.sqlite_utils if isinstance(db, Database) else db
