"""A mark on a claim, as the store reads and writes it (store.records)."""

from __future__ import annotations

from typing import Literal

from store.records import record


@record
class Flag:
    """A mark on a claim: contaminated, checked-not-contaminated, or a user's own kind."""

    id: int | None = None
    claim_id: int
    kind: str
    source: Literal["manual", "pipeline"] = "manual"
    model: str = ""
    metric: str = ""
    score: float | None = None
    threshold: float | None = None
    note: str | None = None
    who: str | None = None
    created_at: str | None = None
