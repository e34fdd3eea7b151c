"""The store on real SQLite files: migrations, paging, flags with undo, runs and predictions."""

from __future__ import annotations

import json
import sqlite3

import pytest

from store import PageRequest, Prediction, Run, Store, open_database
from store.connection import sqlite_utils_database
from store.migrations import KNOWN, applied_migrations, apply_migrations
from workbench.importers import import_file
from workbench.importers.reading import BadInput


def make_claims(store, tmp_path, n: int, name: str = "gen") -> None:
    labels = ["Supported", "Refuted", "NotEnoughInfo"]
    rows = [{"_dataset": {"name": name, "label_space": "jsfactcheck"}}]
    rows += [
        {
            "id": i,
            "claim": f"claim number {i}",
            "label": labels[i % 3],
            "importance": None if i % 5 == 0 else ("Main" if i % 2 else "Sub"),
        }
        for i in range(n)
    ]
    path = tmp_path / f"{name}.jsonl"
    path.write_text("\n".join(json.dumps({k: v for k, v in r.items() if v is not None}) for r in rows))
    import_file(store, path)


def test_database_is_wal_with_foreign_keys(db_path):
    store = Store.open(db_path)
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert store.db.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000


def test_a_new_database_records_every_migration_and_reopening_it_writes_nothing(db_path):
    """sqlite-utils' _sqlite_migrations table holds the workbench's migrations in order (as
    databases made by earlier versions hold them); an up-to-date file opened again is only
    read: another connection sees no commit."""
    Store.open(db_path).close()
    with sqlite3.connect(db_path) as watcher:
        names = [
            row[0]
            for row in watcher.execute(
                "SELECT name FROM _sqlite_migrations WHERE migration_set = 'workbench' ORDER BY id"
            )
        ]
        assert names == KNOWN
        before = watcher.execute("PRAGMA data_version").fetchone()[0]
        store = Store.open(db_path)
        store.claims.page(PageRequest(limit=5))
        store.close()
        assert watcher.execute("PRAGMA data_version").fetchone()[0] == before


def test_upgrade_from_the_first_migration_keeps_data_and_indexes_it(db_path):
    names = list(KNOWN)
    old = open_database(db_path)
    apply_migrations(old, stop_before=names[1])
    assert {"claims_fts", "flags"} & set(sqlite_utils_database(old).table_names()) == set()
    old.execute(
        "INSERT INTO datasets (name, source_format, label_space, labels, imported_at)"
        " VALUES ('old', 'jsonl', 'jsfactcheck', '[\"Supported\"]', '2024-01-01')"
    )
    old.execute(
        "INSERT INTO claims (dataset_id, external_id, text, label, content_hash)"
        " VALUES (1, 'x', 'an old claim about lighthouses', 'Supported', 'h')"
    )
    old.close()

    store = Store.open(db_path)
    assert applied_migrations(store.conn) == names
    assert store.claims.count("lighthouses") == 1  # the FTS index covers rows from before it existed
    assert len(store.annotations.categories()) == 6
    assert store.claims.get(1).text == "an old claim about lighthouses"


def test_keyset_pages_walk_forwards_backwards_and_to_the_end(store, tmp_path):
    make_claims(store, tmp_path, 250)
    request = PageRequest(sort="importance", limit=40)
    seen, after = [], None
    while True:
        page = store.claims.page(PageRequest(sort="importance", limit=40, after=after))
        if not page:
            break
        seen += [r.id for r in page]
        after = (page[-1].sort_value, page[-1].id)
    assert len(seen) == 250 and len(set(seen)) == 250
    expected = [r[0] for r in store.db.execute("SELECT id FROM claims ORDER BY importance, id")]
    assert seen == expected
    last = store.claims.last_page(request)
    assert [r.id for r in last] == expected[-40:]
    before = store.claims.page(PageRequest(sort="importance", limit=40, before=(last[0].sort_value, last[0].id)))
    assert [r.id for r in before] == expected[-80:-40]
    descending = store.claims.page(PageRequest(sort="importance", descending=True, limit=300))
    assert [r.id for r in descending] == expected[::-1]
    jump = store.claims.page_from(request, expected[100])
    assert jump[0].id == expected[100]


def test_flag_undo_restores_exactly(store, tmp_path):
    make_claims(store, tmp_path, 5)
    ids = [1, 2, 3]
    store.annotations.flag([1], "contaminated", note="first", who="ana")
    change = store.annotations.flag(ids, "contaminated", note="bulk", who="ana")
    assert len(change.added_ids) == 2  # claim 1 already had ana's flag (another person's would be their own)
    assert store.claims.count("flagged:contaminated") == 3
    store.annotations.undo(change)
    assert store.claims.count("flagged:contaminated") == 1
    removal = store.annotations.unflag([1], "contaminated")
    assert store.claims.count("flagged:contaminated") == 0
    store.annotations.undo(removal)
    assert [f.note for f in store.annotations.flags_for(1)] == ["first"]


def test_predictions_are_unique_per_run_and_claim_and_errors_are_retried(store, tmp_path):
    make_claims(store, tmp_path, 4)
    run = store.runs.create(Run(name="r", model="gguf:default", dataset_id=1), [4, 3, 2, 1])
    assert store.runs.claim_ids(run.id) == [4, 3, 2, 1]
    store.runs.record(Prediction(run_id=run.id, claim_id=4, status="error", error="HTTP 500"))
    store.runs.record(Prediction(run_id=run.id, claim_id=3, status="parse_failure", raw_output="???"))
    assert store.runs.pending_claim_ids(run.id) == [4, 2, 1]
    store.runs.record(Prediction(run_id=run.id, claim_id=4, status="ok", verdict="Supported", attempts=3))
    progress = store.runs.progress(run.id)
    assert (progress.total, progress.ok, progress.parse_failure, progress.error, progress.missing) == (4, 1, 1, 0, 2)
    assert store.db.execute("SELECT count(*) FROM predictions").fetchone()[0] == 2
    with pytest.raises(sqlite3.IntegrityError):
        store.db.execute(
            "INSERT INTO predictions (run_id, claim_id, status, created_at) VALUES (?, 4, 'ok', 'x')", [run.id]
        )


def test_deleting_a_dataset_takes_its_claims_runs_and_flags(store, tmp_path):
    make_claims(store, tmp_path, 3)
    run = store.runs.create(Run(name="r", model="m", dataset_id=1), [1, 2])
    store.runs.record(Prediction(run_id=run.id, claim_id=1, status="ok", verdict="Supported"))
    store.annotations.flag([1], "contaminated")
    assert store.datasets.delete("gen")
    for table in ("claims", "evidence", "runs", "predictions", "flags", "claims_fts"):
        assert store.db.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0, table


def test_imports_index_text_in_bulk_and_leave_the_triggers_in_place(store, tmp_path):
    make_claims(store, tmp_path, 30)
    triggers = {r[0] for r in store.db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    assert {"claims_fts_insert", "evidence_fts_insert"} <= triggers
    assert store.claims.count('"number 17"') == 1
    # A claim written later, outside an import, is indexed by the trigger.
    store.db.execute(
        "INSERT INTO claims (dataset_id, external_id, text, content_hash)"
        " VALUES (1, 'late', 'a late lighthouse claim', 'h')"
    )
    store.db.conn.commit()
    assert store.claims.count("lighthouse") == 1
    # A failed import restores the triggers with everything else.
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1, "claim": "a", "label": "Refuted"}\n{"id": 1, "claim": "b", "label": "Refuted"}\n')
    with pytest.raises(BadInput):  # one id twice
        import_file(store, bad)
    after = {r[0] for r in store.db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    assert after == triggers


def test_ids_and_labels_are_what_the_whole_claims_hold(demo_store):
    ids = demo_store.claims.ids("")
    found = demo_store.claims.ids_and_labels([*ids, ids[0]])  # a repeated id is read once
    assert found == {i: (c.external_id, c.label) for i in ids for c in [demo_store.claims.get(i)]}
