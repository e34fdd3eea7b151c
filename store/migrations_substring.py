"""Migrations of issue 32: search inside scripts written without spaces. Never edit one that
has shipped.

The word index (m002, FTS5 unicode61) splits text at spaces and punctuation, so a Japanese or
Chinese sentence is one "word" and 富士山 inside it is never found. A trigram index beside it
finds any substring of three or more characters; shorter ones are a scan (store/substring.py
says why, docs/browsing.md how that reads to a user).
"""

from __future__ import annotations

from sqlite_utils import Database

from store.migration_progress import Progress
from store.migration_registry import migration

BATCH = 20_000
"""Rows indexed per statement: small enough that progress moves every second or so."""


@migration
def m018_substring_search(db: Database) -> None:
    """Trigram indexes of claim text and evidence (title, text), kept in sync by triggers.

    columnsize=0: nothing ranks by length here, and the sizes would cost a row per document.
    """
    db.executescript(
        """
        CREATE VIRTUAL TABLE claims_trigram USING fts5(
            text, content='claims', content_rowid='id', tokenize='trigram', columnsize=0
        );
        CREATE TRIGGER claims_trigram_insert AFTER INSERT ON claims BEGIN
            INSERT INTO claims_trigram(rowid, text) VALUES (new.id, new.text);
        END;
        CREATE TRIGGER claims_trigram_delete AFTER DELETE ON claims BEGIN
            INSERT INTO claims_trigram(claims_trigram, rowid, text) VALUES ('delete', old.id, old.text);
        END;
        CREATE TRIGGER claims_trigram_update AFTER UPDATE OF text ON claims BEGIN
            INSERT INTO claims_trigram(claims_trigram, rowid, text) VALUES ('delete', old.id, old.text);
            INSERT INTO claims_trigram(rowid, text) VALUES (new.id, new.text);
        END;
        CREATE VIRTUAL TABLE evidence_trigram USING fts5(
            title, text, content='evidence', content_rowid='id', tokenize='trigram', columnsize=0
        );
        CREATE TRIGGER evidence_trigram_insert AFTER INSERT ON evidence BEGIN
            INSERT INTO evidence_trigram(rowid, title, text) VALUES (new.id, new.title, new.text);
        END;
        CREATE TRIGGER evidence_trigram_delete AFTER DELETE ON evidence BEGIN
            INSERT INTO evidence_trigram(evidence_trigram, rowid, title, text)
                VALUES ('delete', old.id, old.title, old.text);
        END;
        CREATE TRIGGER evidence_trigram_update AFTER UPDATE OF title, text ON evidence BEGIN
            INSERT INTO evidence_trigram(evidence_trigram, rowid, title, text)
                VALUES ('delete', old.id, old.title, old.text);
            INSERT INTO evidence_trigram(rowid, title, text) VALUES (new.id, new.title, new.text);
        END;
        """
    )
    # What existed before is indexed in id ranges (one 'rebuild' would be silent for minutes
    # on a big database), saying how far it has got.
    _index_existing(db, "claims", "claims_trigram", "text", "claims")
    _index_existing(db, "evidence", "evidence_trigram", "title, text", "evidence passages and pages")


def _index_existing(db: Database, table: str, index: str, columns: str, what: str) -> None:
    low, high, total = db.execute(f"SELECT min(id), max(id), count(*) FROM {table}").fetchone()
    if not total:
        return
    progress = Progress(f"indexing {what} for search inside Japanese and Chinese text", total)
    start, done = low, 0
    while start is not None:
        # The id BATCH rows on (ids may have gaps): each statement indexes BATCH rows.
        after = db.execute(f"SELECT id FROM {table} WHERE id >= ? ORDER BY id LIMIT 1 OFFSET ?",
                           [start, BATCH]).fetchone()
        stop = after[0] if after else high + 1
        db.execute(f"INSERT INTO {index}(rowid, {columns}) SELECT id, {columns} FROM {table}"
                   f" WHERE id >= ? AND id < ?", [start, stop])
        done = min(total, done + BATCH)
        progress.advance(done)
        start = after[0] if after else None
    progress.finish()
