"""Migrations of issue 33: a run keeps its budget. Never edit one that has shipped."""

from __future__ import annotations

from typing import TYPE_CHECKING

from store.migration_registry import migration

if TYPE_CHECKING:
    from sqlite_utils import Database


@migration
def m020_run_budget(db: Database) -> None:
    """The --max-cost a run was started (or last resumed) with, in US dollars: a resumed run
    keeps its budget, counting what it spent before. NULL: no budget."""
    db.executescript("ALTER TABLE runs ADD COLUMN max_cost REAL;")
