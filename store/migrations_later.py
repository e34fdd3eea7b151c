"""The schema, continued: migrations from m009 on (store/migrations.py holds the first eight
and applies them all, in order). Never edit one that has shipped: add the next number with
@migration, after the last one registered."""

from __future__ import annotations

from typing import TYPE_CHECKING

from store.migration_registry import migration

if TYPE_CHECKING:
    from sqlite_utils import Database


def _outcome_of(status: str, verdict: str, claim_id: str) -> str:
    """SQL for a prediction's outcome against its claim's gold label (see m009)."""
    scored = "EXISTS (SELECT 1 FROM json_each(d.labels) WHERE json_each.value = {})"
    return f"""(SELECT CASE
        WHEN {status} = 'error' THEN 'error'
        WHEN c.label IS NULL OR NOT {scored.format("c.label")} THEN 'unscored'
        WHEN {status} = 'ok' AND {verdict} = c.label THEN 'correct'
        WHEN {status} = 'abstain' OR ({status} = 'ok' AND {verdict} = d.abstain_label) THEN 'abstain'
        WHEN {status} = 'ok' AND {scored.format(verdict)} THEN 'wrong'
        ELSE 'parse_failure' END
        FROM claims c JOIN datasets d ON d.id = c.dataset_id WHERE c.id = {claim_id})"""


@migration
def m009_prediction_outcomes(db: Database) -> None:
    """Each prediction's outcome, kept by triggers in the transaction that writes it.

    correct / wrong / abstain / parse_failure on a claim whose gold label is a scored class
    (an ok verdict naming the abstain label is an abstention; one outside the label space
    cannot be read), unscored when the gold label is not one, error for API errors. Filters
    such as `run:X wrong` then read an index range instead of judging every prediction.
    """
    new = _outcome_of("new.status", "new.verdict", "new.claim_id")
    each = _outcome_of("predictions.status", "predictions.verdict", "predictions.claim_id")
    db.executescript(
        f"""
        ALTER TABLE predictions ADD COLUMN outcome TEXT;
        UPDATE predictions SET outcome = {each};
        CREATE INDEX predictions_run_outcome_claim ON predictions(run_id, outcome, claim_id);
        CREATE TRIGGER predictions_outcome_insert AFTER INSERT ON predictions BEGIN
            UPDATE predictions SET outcome = {new} WHERE id = new.id;
        END;
        CREATE TRIGGER predictions_outcome_update AFTER UPDATE OF status, verdict, claim_id ON predictions BEGIN
            UPDATE predictions SET outcome = {new} WHERE id = new.id;
        END;
        CREATE TRIGGER claims_outcome_label AFTER UPDATE OF label, dataset_id ON claims BEGIN
            UPDATE predictions SET outcome = {each} WHERE claim_id = new.id;
        END;
        CREATE TRIGGER datasets_outcome_space AFTER UPDATE OF labels, abstain_label ON datasets BEGIN
            UPDATE predictions SET outcome = {each}
            WHERE claim_id IN (SELECT id FROM claims WHERE dataset_id = new.id);
        END;
        """
    )


@migration
def m010_judged_runs(db: Database) -> None:
    """A judge run names the run whose explanations it scores."""
    db.executescript(
        """
        ALTER TABLE runs ADD COLUMN target_run_id INTEGER REFERENCES runs(id) ON DELETE CASCADE;
        CREATE INDEX runs_target ON runs(target_run_id);
        """
    )


@migration
def m011_claim_images(db: Database) -> None:
    """Images of claims: the bytes once per content (by sha256), and which claim shows which.

    A URL-only image (nothing is downloaded) has a claim_images row without a sha256.
    """
    db.executescript(
        """
        CREATE TABLE images (
            sha256 TEXT PRIMARY KEY,
            mime TEXT NOT NULL,
            bytes INTEGER NOT NULL,
            width INTEGER NOT NULL,
            height INTEGER NOT NULL,
            data BLOB NOT NULL
        );
        CREATE TABLE claim_images (
            id INTEGER PRIMARY KEY,
            claim_id INTEGER NOT NULL REFERENCES claims(id) ON DELETE CASCADE,
            rank INTEGER NOT NULL,
            source TEXT NOT NULL,
            url TEXT,
            sha256 TEXT REFERENCES images(sha256),
            caption TEXT
        );
        CREATE INDEX claim_images_claim ON claim_images(claim_id, rank);
        """
    )


@migration
def m012_search(db: Database) -> None:
    """Search runs: each step of a claim's trajectory, the results each search returned (and
    why some were dropped), searches cached by backend and query, documents a search can
    find beside the evidence (a dataset's knowledge store), and tool calls in the cache."""
    db.executescript(
        """
        CREATE TABLE search_steps (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            claim_id INTEGER NOT NULL REFERENCES claims(id) ON DELETE CASCADE,
            step INTEGER NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('search', 'read', 'answer', 'invalid', 'limit')),
            text TEXT,
            tool TEXT,
            arguments TEXT,
            query TEXT,
            note TEXT,
            created_at TEXT NOT NULL,
            UNIQUE (run_id, claim_id, step)
        );
        CREATE TABLE search_results (
            id INTEGER PRIMARY KEY,
            step_id INTEGER NOT NULL REFERENCES search_steps(id) ON DELETE CASCADE,
            rank INTEGER NOT NULL,
            url TEXT,
            title TEXT,
            snippet TEXT,
            published TEXT,
            dropped TEXT
        );
        CREATE INDEX search_results_step ON search_results(step_id, rank);
        CREATE TABLE search_cache (
            key TEXT PRIMARY KEY,
            backend TEXT NOT NULL,
            query TEXT NOT NULL,
            results TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE TABLE documents (
            id INTEGER PRIMARY KEY,
            dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
            claim_external_id TEXT,
            url TEXT,
            title TEXT,
            text TEXT NOT NULL,
            published TEXT
        );
        CREATE INDEX documents_dataset ON documents(dataset_id, claim_external_id);
        CREATE VIRTUAL TABLE documents_fts USING fts5(
            title, text, content='documents', content_rowid='id',
            tokenize='unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER documents_fts_insert AFTER INSERT ON documents BEGIN
            INSERT INTO documents_fts(rowid, title, text) VALUES (new.id, new.title, new.text);
        END;
        CREATE TRIGGER documents_fts_delete AFTER DELETE ON documents BEGIN
            INSERT INTO documents_fts(documents_fts, rowid, title, text)
                VALUES ('delete', old.id, old.title, old.text);
        END;
        ALTER TABLE response_cache ADD COLUMN tool_calls TEXT;
        """
    )


@migration
def m013_document_addresses(db: Database) -> None:
    """Documents found by address: importing a knowledge store again adds only what is new."""
    db.executescript("CREATE INDEX documents_address ON documents(dataset_id, url);")


# The later numbers, each in a module of its own. The order of these imports is the order
# they register and apply in, so it is by number, not by name (sorting is off here).
# isort: off
from store import migrations_claimreview  # noqa: E402,F401  (m014: ClaimReview articles and curation)
from store import migrations_team  # noqa: E402,F401  (m015: triage as a team)
from store import migrations_spot_checks  # noqa: E402,F401  (m016: timings, prices, engine)
from store import migrations_search_images  # noqa: E402,F401  (m017: images in search runs)
from store import migrations_substring  # noqa: E402,F401  (m018: search inside unspaced scripts)
from store import migrations_usage  # noqa: E402,F401  (m019: spending summed from one index)
from store import migrations_run_budgets  # noqa: E402,F401  (m020: a run keeps its --max-cost)
from store import migrations_importance  # noqa: E402,F401  (m021: sorting by importance in its meaning)
# isort: on
