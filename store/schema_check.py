"""Whether a database has had every migration of this version, told with sqlite3 alone.

Every command that opens the database asks; the migrations' own modules (about 5 ms of a
reading command's start-up) are imported only when the answer is no (store.migrate).
"""

from __future__ import annotations

import sqlite3

MIGRATION_SET = "workbench"
"""The migration set's name in sqlite-utils' _sqlite_migrations table."""

THIS_VERSION = (
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
    "m019_answer_spending_index",
    "m020_run_budget",
    "m021_importance_order",
)
"""The registered migrations' names, in order (tests/test_schema_check.py keeps this equal to
store.migration_registry.KNOWN: add a new migration's name here too). Were it behind, opening
would only be slower: a database that does not match it is checked against the registry."""


def applied_migrations(conn: sqlite3.Connection) -> list[str]:
    """The workbench's migrations the database has had, in the order applied (read from
    sqlite-utils' _sqlite_migrations table with sqlite3; none for a new database)."""
    try:
        rows = conn.execute(
            "SELECT name FROM _sqlite_migrations WHERE migration_set = ? ORDER BY rowid", [MIGRATION_SET]
        ).fetchall()
    except sqlite3.OperationalError:  # no such table: a new database
        return []
    return [name for (name,) in rows]


def has_this_version(conn: sqlite3.Connection) -> bool:
    """True when the database has had exactly this version's migrations (no registry needed)."""
    return set(applied_migrations(conn)) == set(THIS_VERSION)
