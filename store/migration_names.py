"""The names of every migration this version has, so opening a database can tell with sqlite3
alone that there is nothing to migrate (the migrations themselves need sqlite-utils, which
takes longer to import than a command takes to run).

Add a new migration's name here, in order, when you add the migration:
tests/test_migration_names.py fails until this list matches the registered migrations.
"""

from __future__ import annotations

import sqlite3

MIGRATION_SET = "workbench"
"""The migration set's name in sqlite-utils' _sqlite_migrations table."""

MIGRATION_NAMES = (
    "m001_core_tables",
    "m002_full_text_search",
    "m003_flags_and_triage",
    "m004_contamination_scores",
    "m005_prediction_arrival_index",
    "m006_prediction_outcome_index",
    "m007_run_owner",
    "m008_run_batches",
    "m009_prediction_outcomes",
    "m010_judged_runs",
    "m011_claim_images",
    "m012_search",
    "m013_document_addresses",
    "m014_oracle_articles",
    "m014b_curation",
    "m015_team_triage",
    "m016_answer_timings",
    "m016b_run_engine",
    "m016c_answer_seconds_index",
    "m017_search_images",
    "m018_substring_search",
)


def schema_is_current(conn: sqlite3.Connection) -> bool:
    """True when the database has had exactly the migrations this version knows: nothing to
    apply, nothing from a newer version to refuse (either is for store.migrations to do)."""
    try:
        rows = conn.execute("SELECT name FROM _sqlite_migrations WHERE migration_set = ?",
                            [MIGRATION_SET]).fetchall()
    except sqlite3.OperationalError:  # no such table: a new database
        return False
    return {name for (name,) in rows} == set(MIGRATION_NAMES)
