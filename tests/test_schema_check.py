"""Opening a database at this version compares its migrations with a list kept beside the
registry, with sqlite3 alone: the list must name exactly the registered migrations."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from store import Store
from store.migrations import KNOWN, apply_migrations
from store.schema_check import THIS_VERSION, has_this_version

ROOT = Path(__file__).resolve().parents[1]


def test_the_list_names_every_registered_migration_in_order():
    assert list(THIS_VERSION) == KNOWN


def test_a_database_behind_is_migrated_on_open(tmp_path):
    path = tmp_path / "old.db"
    store = Store.open(path)
    store.conn.execute("DROP INDEX claims_importance_rank")  # what the last migration made
    store.conn.execute("DELETE FROM _sqlite_migrations WHERE name = ?", [KNOWN[-1]])
    assert not has_this_version(store.conn)
    store.close()
    store = Store.open(path)
    assert has_this_version(store.conn)
    assert store.conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'claims_importance_rank'").fetchone()
    store.close()


def test_opening_a_current_database_imports_no_migration(tmp_path):
    path = tmp_path / "current.db"
    Store.open(path).close()
    code = (
        "import sys; from store import Store; Store.open(sys.argv[1]).close();"
        "print(sorted(m for m in sys.modules if m.startswith('store.migration')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    assert out.strip() == "[]"


def test_a_new_database_gets_every_migration(tmp_path):
    conn = Store.open(tmp_path / "new.db").conn
    assert has_this_version(conn)
    apply_migrations(conn)  # nothing left to apply
    assert has_this_version(conn)
