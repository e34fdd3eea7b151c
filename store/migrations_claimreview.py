"""The schema for ClaimReview benchmarks: oracle articles fetched from the review URLs,
the curation steps a dataset went through, and which claims duplicate which.

Curation itself is flags (kind `curated-out:STEP`, see store/curation.py): a step never
deletes a claim, so every filter and score can include or leave out what it removed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from store.migration_registry import migration

if TYPE_CHECKING:
    from sqlite_utils import Database


@migration
def m014_oracle_articles(db: Database) -> None:
    """Fetched articles, one row per address a claim names (claims.article_url).

    A row is the last attempt: fetched (with the main text, the final address after
    redirects, the HTTP status and the page's hash) or failed (with its cause: a 404, a
    timeout, robots.txt, not HTML, ...). Claims find their article by address, so claims of
    two datasets that name one page share its row, and fetching again skips it.
    """
    db.executescript(
        """
        CREATE TABLE articles (
            id INTEGER PRIMARY KEY,
            url TEXT NOT NULL UNIQUE,
            status TEXT NOT NULL CHECK (status IN ('fetched', 'failed')),
            cause TEXT,
            detail TEXT,
            final_url TEXT,
            http_status INTEGER,
            content_type TEXT,
            title TEXT,
            text TEXT,
            html_sha256 TEXT,
            html_bytes INTEGER,
            source TEXT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 1,
            fetched_at TEXT NOT NULL
        );
        CREATE INDEX articles_status ON articles(status, cause);
        CREATE INDEX claims_article_url ON claims(article_url);
        """
    )


@migration
def m014b_curation(db: Database) -> None:
    """Curation steps run on a dataset (with their settings and counts), and duplicate links.

    The flags are the truth of what a step removed; a step's row says how it was asked
    (the window, the language, the allow-list, the threshold, the screening run) and when,
    so the funnel can say what each row means and whether a later step is out of date.
    """
    db.executescript(
        """
        CREATE TABLE curation_steps (
            dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
            step TEXT NOT NULL,
            settings TEXT NOT NULL DEFAULT '{}',
            considered INTEGER NOT NULL,
            removed INTEGER NOT NULL,
            run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
            ran_at TEXT NOT NULL,
            PRIMARY KEY (dataset_id, step)
        ) WITHOUT ROWID;
        CREATE TABLE claim_duplicates (
            claim_id INTEGER PRIMARY KEY REFERENCES claims(id) ON DELETE CASCADE,
            kept_id INTEGER NOT NULL REFERENCES claims(id) ON DELETE CASCADE,
            similarity REAL NOT NULL,
            method TEXT NOT NULL
        );
        CREATE INDEX claim_duplicates_kept ON claim_duplicates(kept_id);
        """
    )
