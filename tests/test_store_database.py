"""The store's own database object over sqlite3: writes commit as the sub-stores expect,
transactions roll back whole, and a migrated database opens without sqlite-utils."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest

from store import Store, open_database
from store.migration_names import MIGRATION_NAMES, schema_is_current
from store.migrations import KNOWN, migrations


def other_connection_count(db_path, table: str = "notes") -> int:
    with sqlite3.connect(db_path) as other:
        return other.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


@pytest.fixture
def notes_db(db_path):
    db = open_database(db_path)
    db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
    yield db
    db.close()


def test_the_list_of_migration_names_matches_the_migrations():
    """A migration missing from store/migration_names.py would never be applied to a database
    that has all the others: add its name there, in order."""
    assert list(MIGRATION_NAMES) == KNOWN == [m.name for m in migrations._migrations]


def test_a_write_outside_a_transaction_is_committed_at_once(notes_db, db_path):
    notes_db.execute("INSERT INTO notes (text) VALUES (?)", ["one"])
    assert not notes_db.conn.in_transaction
    assert other_connection_count(db_path) == 1


def test_a_failed_write_leaves_no_transaction_open(notes_db, db_path):
    with pytest.raises(sqlite3.IntegrityError):
        notes_db.execute("INSERT INTO notes (text) VALUES (NULL)")
    assert not notes_db.conn.in_transaction
    notes_db.execute("INSERT INTO notes (text) VALUES ('after')")
    assert other_connection_count(db_path) == 1


def test_atomic_commits_together_or_not_at_all(notes_db, db_path):
    with notes_db.atomic():
        notes_db.execute("INSERT INTO notes (text) VALUES ('a')")
        notes_db.execute("INSERT INTO notes (text) VALUES ('b')")
        assert other_connection_count(db_path) == 0  # nothing shows before the end
    assert other_connection_count(db_path) == 2
    with pytest.raises(ZeroDivisionError):
        with notes_db.atomic():
            notes_db.execute("INSERT INTO notes (text) VALUES ('c')")
            1 / 0
    assert other_connection_count(db_path) == 2 and not notes_db.conn.in_transaction


def test_a_nested_atomic_undoes_only_its_own_writes(notes_db, db_path):
    with notes_db.atomic():
        notes_db.execute("INSERT INTO notes (text) VALUES ('kept')")
        with pytest.raises(KeyError):
            with notes_db.atomic():
                notes_db.execute("INSERT INTO notes (text) VALUES ('undone')")
                raise KeyError("x")
    assert [row["text"] for row in notes_db.query("SELECT text FROM notes")] == ["kept"]


def test_an_explicit_begin_is_left_to_its_caller(notes_db, db_path):
    notes_db.execute("BEGIN")
    notes_db.execute("INSERT INTO notes (text) VALUES ('pending')")
    assert notes_db.conn.in_transaction and other_connection_count(db_path) == 0
    notes_db.execute("ROLLBACK")
    assert other_connection_count(db_path) == 0


def test_sqlite_utils_calls_reach_the_same_connection(notes_db, db_path):
    notes_db["notes"].insert({"text": "through sqlite-utils"})
    assert "notes" in notes_db.table_names()
    assert [row["text"] for row in notes_db.query("SELECT text FROM notes")] == ["through sqlite-utils"]
    assert other_connection_count(db_path) == 1


def test_a_new_database_is_migrated_and_then_seen_as_current(db_path):
    store = Store.open(db_path)
    assert schema_is_current(store.db.conn)
    assert [m.name for m in migrations.applied(store.db)] == KNOWN
    store.close()


def test_a_database_missing_a_migration_is_not_current(db_path):
    Store.open(db_path).close()
    with sqlite3.connect(db_path) as db:
        db.execute("DELETE FROM _sqlite_migrations WHERE name = ?", [KNOWN[-1]])
        assert not schema_is_current(db)


def test_opening_a_migrated_database_to_read_imports_neither_sqlite_utils_nor_pydantic(db_path):
    Store.open(db_path).close()
    code = ("import json, sys\nfrom store import Store, PageRequest\n"
            f"store = Store.open({str(db_path)!r})\n"
            "store.claims.page(PageRequest(filter='label:Refuted', limit=5))\n"
            "store.claims.counts_by_dataset('label:Refuted')\n"
            "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(json.loads(result.stdout))
    assert {"sqlite_utils", "pydantic", "numpy"} & loaded == set()
