"""Migrations of issue 32: search inside scripts written without spaces. Never edit one that
has shipped.

The word index (m002, FTS5 unicode61) splits text at spaces and punctuation, so a Japanese or
Chinese sentence is one "word" and 富士山 inside it is never found. A trigram index beside it
finds any substring of three or more characters (store/text_search.py says how shorter ones
are found, docs/browsing.md how that reads to a user).

Only texts holding a character of an unspaced script are indexed: a query holding one cannot
match any other text, and English claims would otherwise triple the index. The index is
contentless (it mirrors no table, so it says nothing false to 'rebuild' or 'integrity-check')
and every text is indexed with END after it, so that each occurrence of one or two characters
begins a trigram (the last characters of a text too): a short query is a range of terms.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from store.migration_progress import Progress
from store.migration_registry import migration

if TYPE_CHECKING:  # registering a migration must not import sqlite-utils (opening a database checks them)
    from sqlite_utils import Database

BATCH = 20_000
"""Rows looked at per statement: small enough that progress moves every second or so."""

UNSPACED_RANGES = [
    (0x0E00, 0x0FFF),  # Thai, Lao, Tibetan
    (0x1000, 0x109F),
    (0xA9E0, 0xA9FF),
    (0xAA60, 0xAA7F),
    (0x116D0, 0x116FF),  # Myanmar
    (0x1100, 0x11FF),
    (0xA960, 0xA97F),
    (0xAC00, 0xD7FF),  # Hangul
    (0x1780, 0x17FF),
    (0x19E0, 0x19FF),  # Khmer
    (0x2E80, 0x2FDF),  # CJK radicals
    (0x3000, 0x9FFF),  # CJK punctuation, Hiragana, Katakana, Hangul letters, CJK ideographs
    (0xA000, 0xA4CF),  # Yi
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF65, 0xFFDC),  # half-width Katakana and Hangul
    (0x16FE0, 0x16FFF),
    (0x1AFF0, 0x1B2FF),
    (0x1F200, 0x1F200),  # marks, more kana, ほか
    (0x20000, 0x3FFFF),  # CJK ideographs, extensions B onwards
]
"""Code points of the scripts store.text_search.is_unspaced names (a superset of them:
tests/test_substring_search.py checks every character it names lies here)."""

UNSPACED = "'*[" + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in UNSPACED_RANGES) + "]*'"
"""A GLOB pattern (SQL literal) matching a text that holds such a character."""

END = "char(31, 31)"
"""Two unit separators after every indexed text (the filter language refuses control
characters, so no query holds one)."""


@migration
def m018_substring_search(db: Database) -> None:
    """Trigram indexes of claim text and evidence (title, text) in unspaced scripts, kept in
    sync by triggers, with tables of their terms (fts5vocab) for one- and two-character queries.

    columnsize=0: nothing ranks by length here, and the sizes would cost a row per document.
    """
    claim = f"text GLOB {UNSPACED}"
    page = f"coalesce(title, '') || ' ' || coalesce(text, '') GLOB {UNSPACED}"
    title, text = f"coalesce(title, '') || {END}", f"coalesce(text, '') || {END}"
    script = f"""
        CREATE VIRTUAL TABLE claims_trigram USING fts5(text, content='', tokenize='trigram', columnsize=0);
        CREATE VIRTUAL TABLE claims_trigram_terms USING fts5vocab(claims_trigram, 'row');
        CREATE VIRTUAL TABLE claims_trigram_places USING fts5vocab(claims_trigram, 'instance');
        CREATE TRIGGER claims_trigram_insert AFTER INSERT ON claims WHEN new.{claim} BEGIN
            INSERT INTO claims_trigram(rowid, text) VALUES (new.id, new.text || {END});
        END;
        CREATE TRIGGER claims_trigram_delete AFTER DELETE ON claims WHEN old.{claim} BEGIN
            INSERT INTO claims_trigram(claims_trigram, rowid, text) VALUES ('delete', old.id, old.text || {END});
        END;
        CREATE TRIGGER claims_trigram_update AFTER UPDATE OF text ON claims BEGIN
            INSERT INTO claims_trigram(claims_trigram, rowid, text)
                SELECT 'delete', old.id, old.text || {END} WHERE old.{claim};
            INSERT INTO claims_trigram(rowid, text) SELECT new.id, new.text || {END} WHERE new.{claim};
        END;
        CREATE VIRTUAL TABLE evidence_trigram USING fts5(title, text, content='', tokenize='trigram', columnsize=0);
        CREATE VIRTUAL TABLE evidence_trigram_terms USING fts5vocab(evidence_trigram, 'row');
        CREATE VIRTUAL TABLE evidence_trigram_places USING fts5vocab(evidence_trigram, 'instance');
        CREATE TRIGGER evidence_trigram_insert AFTER INSERT ON evidence BEGIN
            INSERT INTO evidence_trigram(rowid, title, text)
                SELECT new.id, {_of("new", title)}, {_of("new", text)} WHERE {_of("new", page)};
        END;
        CREATE TRIGGER evidence_trigram_delete AFTER DELETE ON evidence BEGIN
            INSERT INTO evidence_trigram(evidence_trigram, rowid, title, text)
                SELECT 'delete', old.id, {_of("old", title)}, {_of("old", text)} WHERE {_of("old", page)};
        END;
        CREATE TRIGGER evidence_trigram_update AFTER UPDATE OF title, text ON evidence BEGIN
            INSERT INTO evidence_trigram(evidence_trigram, rowid, title, text)
                SELECT 'delete', old.id, {_of("old", title)}, {_of("old", text)} WHERE {_of("old", page)};
            INSERT INTO evidence_trigram(rowid, title, text)
                SELECT new.id, {_of("new", title)}, {_of("new", text)} WHERE {_of("new", page)};
        END;
        """
    db.executescript(script)
    # What existed before is indexed in id ranges (one statement would be silent for minutes
    # on a big database), saying how far it has got.
    _index_existing(db, "claims", f"claims_trigram(rowid, text) SELECT id, text || {END}", claim, "claims")
    _index_existing(
        db,
        "evidence",
        f"evidence_trigram(rowid, title, text) SELECT id, {title}, {text}",
        page,
        "evidence passages and pages",
    )


def _of(row: str, expression: str) -> str:
    """`expression` over the trigger's old or new row."""
    return expression.replace("coalesce(", f"coalesce({row}.")


def _index_existing(db: Database, table: str, insert: str, condition: str, what: str) -> None:
    low, total = db.execute(f"SELECT min(id), count(*) FROM {table}").fetchone()
    if not total:
        return
    progress = Progress(f"indexing {what} for search inside Japanese and Chinese text", total)
    start, done = low, 0
    while start is not None:
        # The id BATCH rows on (ids may have gaps): each statement looks at BATCH rows.
        after = db.execute(
            f"SELECT id FROM {table} WHERE id >= ? ORDER BY id LIMIT 1 OFFSET ?", [start, BATCH]
        ).fetchone()
        bound = "AND id < ?" if after else ""
        db.execute(
            f"INSERT INTO {insert} FROM {table} WHERE id >= ? {bound} AND {condition}",
            [start, after[0]] if after else [start],
        )
        done = min(total, done + BATCH)
        progress.advance(done)
        start = after[0] if after else None
    progress.finish()
