"""Migration of issue 33: claims sort by importance in its meaning (Main, Sub, Irrelevant),
not alphabetically. Never edit one that has shipped.

The browser reads pages by keyset over (sort key, id); sorting by an expression needs an
index on that very expression, or every page scans the table (half a second a page on a
million claims)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from store.importance import importance_rank
from store.migration_registry import migration

if TYPE_CHECKING:
    from sqlite_utils import Database


@migration
def m021_importance_order(db: Database) -> None:
    """An index on (importance rank, id) for the browser's sort by importance."""
    db.execute(f"CREATE INDEX claims_importance_rank ON claims({importance_rank('importance')}, id)")
