"""The schema, as numbered migrations.

Each migration is a function applied once, inside a transaction, in order. Never
edit one that has shipped: add the next number instead. `tests/test_migrations.py`
upgrades a database made with only the first migrations and checks nothing is lost.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from store.connection import database_path, sqlite_utils_database
from store.migration_registry import KNOWN, migration, workbench_migrations
from store.problems import DatabaseProblem
from store.schema_check import applied_migrations

if TYPE_CHECKING:
    from sqlite_utils import Database

BUILTIN_FAILURE_CATEGORIES = [
    # slug, name, key, description
    ("knowledge-error", "Knowledge Error", "1", "The model lacks or misremembers a fact."),
    ("flawed-reasoning", "Flawed Reasoning", "2", "Facts right, conclusion wrong."),
    ("lost-in-complex-text", "Lost in Complex Text", "3", "Missed the point in long or dense text."),
    ("misleading-information", "Misleading Information", "4", "Taken in by misleading evidence or framing."),
    ("gold-label-disputed", "Gold label disputed", "5", "The gold label itself looks wrong."),
    ("evidence-ignored", "Evidence ignored", "6", "The answer was in the evidence shown."),
]


@migration
def m001_core_tables(db: Database) -> None:
    """Datasets, claims, evidence, runs and predictions."""
    db.executescript(
        """
        CREATE TABLE datasets (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            source_format TEXT NOT NULL,
            label_space TEXT NOT NULL,
            labels TEXT NOT NULL,
            abstain_label TEXT,
            excluded_labels TEXT NOT NULL DEFAULT '[]',
            source_path TEXT,
            imported_at TEXT NOT NULL,
            notes TEXT
        );
        CREATE TABLE claims (
            id INTEGER PRIMARY KEY,
            dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
            external_id TEXT NOT NULL,
            text TEXT NOT NULL,
            label TEXT,
            raw_label TEXT,
            question TEXT,
            response TEXT,
            claim_start INTEGER,
            claim_end INTEGER,
            reference_time TEXT,
            claim_date TEXT,
            importance TEXT CHECK (importance IN ('Main', 'Sub', 'Irrelevant')),
            task TEXT,
            domain TEXT,
            source TEXT,
            article_url TEXT,
            article_text TEXT,
            justification TEXT,
            attributes TEXT NOT NULL DEFAULT '{}',
            content_hash TEXT NOT NULL,
            UNIQUE (dataset_id, external_id)
        );
        CREATE INDEX claims_label ON claims(label, id);
        CREATE INDEX claims_importance ON claims(importance, id);
        CREATE INDEX claims_task ON claims(task, id);
        CREATE INDEX claims_domain ON claims(domain, id);
        CREATE INDEX claims_claim_date ON claims(claim_date, id);
        CREATE TABLE evidence (
            id INTEGER PRIMARY KEY,
            claim_id INTEGER NOT NULL REFERENCES claims(id) ON DELETE CASCADE,
            kind TEXT NOT NULL CHECK (kind IN ('passage', 'page', 'qa', 'article')),
            rank INTEGER NOT NULL,
            url TEXT,
            title TEXT,
            text TEXT,
            passage TEXT,
            passage_start INTEGER,
            passage_end INTEGER,
            is_cited INTEGER NOT NULL DEFAULT 0,
            question TEXT,
            answer_type TEXT,
            explanation TEXT,
            attributes TEXT NOT NULL DEFAULT '{}'
        );
        CREATE INDEX evidence_claim ON evidence(claim_id, rank);
        CREATE TABLE runs (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            kind TEXT NOT NULL DEFAULT 'verdict',
            dataset_id INTEGER REFERENCES datasets(id) ON DELETE CASCADE,
            model TEXT NOT NULL,
            model_identity TEXT NOT NULL DEFAULT '{}',
            prompt_name TEXT,
            prompt_hash TEXT,
            setting TEXT,
            params TEXT NOT NULL DEFAULT '{}',
            subset_filter TEXT,
            config_key TEXT,
            status TEXT NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending', 'running', 'finished', 'cancelled', 'failed')),
            created_at TEXT NOT NULL,
            started_at TEXT,
            finished_at TEXT,
            versions TEXT NOT NULL DEFAULT '{}',
            notes TEXT
        );
        CREATE INDEX runs_config_key ON runs(config_key);
        CREATE TABLE run_claims (
            run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            claim_id INTEGER NOT NULL REFERENCES claims(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            PRIMARY KEY (run_id, claim_id)
        ) WITHOUT ROWID;
        CREATE INDEX run_claims_claim ON run_claims(claim_id);
        CREATE TABLE predictions (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            claim_id INTEGER NOT NULL REFERENCES claims(id) ON DELETE CASCADE,
            status TEXT NOT NULL CHECK (status IN ('ok', 'abstain', 'parse_failure', 'error')),
            verdict TEXT,
            raw_verdict TEXT,
            explanation TEXT,
            raw_output TEXT,
            parsed TEXT,
            error TEXT,
            attempts INTEGER NOT NULL DEFAULT 1,
            latency_s REAL,
            tokens_in INTEGER,
            tokens_out INTEGER,
            finish_reason TEXT,
            cached INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL,
            UNIQUE (run_id, claim_id)
        );
        CREATE INDEX predictions_claim ON predictions(claim_id);
        CREATE TABLE response_cache (
            key TEXT PRIMARY KEY,
            model_identity TEXT NOT NULL,
            text TEXT NOT NULL,
            tokens_in INTEGER,
            tokens_out INTEGER,
            finish_reason TEXT,
            created_at TEXT NOT NULL
        );
        """
    )


@migration
def m002_full_text_search(db: Database) -> None:
    """FTS5 over claim text and evidence, kept in sync by triggers."""
    db.executescript(
        """
        CREATE VIRTUAL TABLE claims_fts USING fts5(
            text, content='claims', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER claims_fts_insert AFTER INSERT ON claims BEGIN
            INSERT INTO claims_fts(rowid, text) VALUES (new.id, new.text);
        END;
        CREATE TRIGGER claims_fts_delete AFTER DELETE ON claims BEGIN
            INSERT INTO claims_fts(claims_fts, rowid, text) VALUES ('delete', old.id, old.text);
        END;
        CREATE TRIGGER claims_fts_update AFTER UPDATE OF text ON claims BEGIN
            INSERT INTO claims_fts(claims_fts, rowid, text) VALUES ('delete', old.id, old.text);
            INSERT INTO claims_fts(rowid, text) VALUES (new.id, new.text);
        END;
        CREATE VIRTUAL TABLE evidence_fts USING fts5(
            title, text, content='evidence', content_rowid='id',
            tokenize='unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER evidence_fts_insert AFTER INSERT ON evidence BEGIN
            INSERT INTO evidence_fts(rowid, title, text) VALUES (new.id, new.title, new.text);
        END;
        CREATE TRIGGER evidence_fts_delete AFTER DELETE ON evidence BEGIN
            INSERT INTO evidence_fts(evidence_fts, rowid, title, text)
                VALUES ('delete', old.id, old.title, old.text);
        END;
        CREATE TRIGGER evidence_fts_update AFTER UPDATE OF title, text ON evidence BEGIN
            INSERT INTO evidence_fts(evidence_fts, rowid, title, text)
                VALUES ('delete', old.id, old.title, old.text);
            INSERT INTO evidence_fts(rowid, title, text) VALUES (new.id, new.title, new.text);
        END;
        -- Claims that existed before this migration are indexed too.
        INSERT INTO claims_fts(claims_fts) VALUES ('rebuild');
        INSERT INTO evidence_fts(evidence_fts) VALUES ('rebuild');
        """
    )


@migration
def m003_flags_and_triage(db: Database) -> None:
    """Flags (contamination and others), failure categories, triage, judgments."""
    db.executescript(
        """
        CREATE TABLE flags (
            id INTEGER PRIMARY KEY,
            claim_id INTEGER NOT NULL REFERENCES claims(id) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            source TEXT NOT NULL CHECK (source IN ('manual', 'pipeline')),
            model TEXT NOT NULL DEFAULT '',
            metric TEXT NOT NULL DEFAULT '',
            score REAL,
            threshold REAL,
            note TEXT,
            who TEXT,
            created_at TEXT NOT NULL,
            UNIQUE (claim_id, kind, source, model, metric)
        );
        CREATE INDEX flags_kind ON flags(kind, claim_id);
        CREATE TABLE failure_categories (
            id INTEGER PRIMARY KEY,
            slug TEXT NOT NULL UNIQUE,
            name TEXT NOT NULL,
            key TEXT,
            description TEXT,
            builtin INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL
        );
        CREATE TABLE triage_entries (
            id INTEGER PRIMARY KEY,
            prediction_id INTEGER NOT NULL REFERENCES predictions(id) ON DELETE CASCADE,
            category_id INTEGER NOT NULL REFERENCES failure_categories(id) ON DELETE CASCADE,
            note TEXT,
            who TEXT,
            created_at TEXT NOT NULL,
            UNIQUE (prediction_id, category_id)
        );
        CREATE INDEX triage_entries_category ON triage_entries(category_id, prediction_id);
        CREATE TABLE triage_reviews (
            prediction_id INTEGER PRIMARY KEY REFERENCES predictions(id) ON DELETE CASCADE,
            reviewed INTEGER NOT NULL DEFAULT 0,
            note TEXT,
            who TEXT,
            updated_at TEXT NOT NULL
        );
        CREATE TABLE judgments (
            id INTEGER PRIMARY KEY,
            prediction_id INTEGER NOT NULL REFERENCES predictions(id) ON DELETE CASCADE,
            judge_model TEXT NOT NULL,
            score REAL,
            rationale TEXT,
            raw_output TEXT,
            created_at TEXT NOT NULL,
            UNIQUE (prediction_id, judge_model)
        );
        """
    )
    for slug, name, key, description in BUILTIN_FAILURE_CATEGORIES:
        db.execute(
            "INSERT INTO failure_categories (slug, name, key, description, builtin, created_at)"
            " VALUES (?, ?, ?, ?, 1, datetime('now'))",
            [slug, name, key, description],
        )


@migration
def m004_contamination_scores(db: Database) -> None:
    """Per-claim contamination scores with their matched evidence pairs."""
    db.executescript(
        """
        CREATE TABLE contamination_scores (
            id INTEGER PRIMARY KEY,
            claim_id INTEGER NOT NULL REFERENCES claims(id) ON DELETE CASCADE,
            target_model TEXT NOT NULL,
            extractor_model TEXT NOT NULL,
            metric TEXT NOT NULL,
            score REAL,
            scorable INTEGER NOT NULL,
            n_oracle INTEGER NOT NULL,
            n_generated INTEGER NOT NULL,
            pairs TEXT NOT NULL DEFAULT '[]',
            article_run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
            oracle_run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
            generated_run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
            created_at TEXT NOT NULL,
            UNIQUE (claim_id, target_model, extractor_model, metric)
        );
        CREATE INDEX contamination_scores_model
            ON contamination_scores(target_model, metric, score);
        """
    )


@migration
def m005_prediction_arrival_index(db: Database) -> None:
    """Live panels poll a run's predictions by arrival time."""
    db.execute("CREATE INDEX predictions_run_created ON predictions(run_id, created_at)")


@migration
def m006_prediction_outcome_index(db: Database) -> None:
    """Scores read a run's predictions as index ranges, one per outcome (no table reads)."""
    db.execute("CREATE INDEX predictions_run_outcome ON predictions(run_id, status, verdict, claim_id)")


@migration
def m007_run_owner(db: Database) -> None:
    """Which process is executing a run, so a killed one reads "interrupted", not "running"."""
    db.execute("ALTER TABLE runs ADD COLUMN owner TEXT")


@migration
def m008_run_batches(db: Database) -> None:
    """Requests handed to a provider's batch API: which batch, for which run, and its fate.

    A row is written (status submitting) before the requests leave, so two submits of one
    run cannot race and a submit cut off mid-way is visible instead of orphaned.
    """
    db.executescript(
        """
        CREATE TABLE run_batches (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            provider TEXT NOT NULL,
            batch_id TEXT,
            requests INTEGER NOT NULL,
            status TEXT NOT NULL DEFAULT 'submitting'
                CHECK (status IN ('submitting', 'submitted', 'collected', 'failed', 'forgotten')),
            provider_status TEXT,
            note TEXT,
            submitted_at TEXT NOT NULL,
            collected_at TEXT,
            UNIQUE (run_id, batch_id)
        );
        CREATE INDEX run_batches_run ON run_batches(run_id, status);
        """
    )


# m009 onwards live in store/migrations_later.py (registered here, in order).
from store import migrations_later  # noqa: E402,F401


def schema_is_current(conn: sqlite3.Connection) -> bool:
    """True when the database has had exactly the migrations this version registers."""
    return set(applied_migrations(conn)) == set(KNOWN)


def apply_migrations(conn: sqlite3.Connection, stop_before: str | None = None) -> None:
    """Bring the schema up to date (or up to just before `stop_before`, for tests) with
    sqlite-utils' Migrations, which records each in _sqlite_migrations.

    A database a newer version has upgraded is refused: this version would misread it.
    """
    unknown = [name for name in applied_migrations(conn) if name not in KNOWN]
    if unknown:
        raise DatabaseProblem(
            database_path(conn),
            f"was upgraded by a newer version of the workbench (its schema has"
            f" {unknown[-1]}; this version knows up to {KNOWN[-1]}): upgrade the workbench",
        )
    workbench_migrations().apply(sqlite_utils_database(conn), stop_before=stop_before)
