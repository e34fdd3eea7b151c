"""Importance in its meaning: Main, then Sub, then Irrelevant (a claim's `importance`)."""

from __future__ import annotations

from typing import Literal, get_args

Importance = Literal["Main", "Sub", "Irrelevant"]
"""Declared here, where sorting reads it without the records (store.records names it too)."""

LEVELS: tuple[str, ...] = get_args(Importance)


def importance_rank(column: str) -> str:
    """SQL: 1 for Main, 2 for Sub, 3 for Irrelevant, NULL for none (sorted first, as before).
    An index on this very expression (m019) keeps the browser's pages quick."""
    cases = " ".join(f"WHEN '{level}' THEN {n}" for n, level in enumerate(LEVELS, 1))
    return f"(CASE {column} {cases} END)"
