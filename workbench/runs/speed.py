"""A run's speed from its stored times (apart from the engine, so listing runs stays light)."""

from __future__ import annotations

from datetime import datetime


def items_per_second(done: int, started_at: str | None, finished_at: str | None) -> float | None:
    """A finished run's speed from its stored times (second resolution)."""
    if not started_at or not finished_at or not done:
        return None
    seconds = datetime.fromisoformat(finished_at.rstrip("Z")) - datetime.fromisoformat(started_at.rstrip("Z"))
    return done / max(seconds.total_seconds(), 1.0)
