"""The history of people's labels: every change (whose label, who changed it, old and new
as JSON, when, from where), written in the transaction of the change it records. Rows
have no foreign keys: the history outlives the runs and answers it describes."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from store.records import now_iso

if TYPE_CHECKING:
    from sqlite3 import Connection


@dataclass(frozen=True)
class HistoryEntry:
    """One change to one label."""

    id: int
    claim_id: int
    prediction_id: int | None
    run_name: str | None
    kind: str
    """categories, done, note, eq score, flag, adjudication."""
    annotator: str
    """Whose label it is."""
    changed_by: str
    old: object
    new: object
    source: str
    changed_at: str


def record_change(
    db: Connection,
    prediction_id: int | None,
    kind: str,
    annotator: str,
    changed_by: str,
    old,
    new,
    source: str,
    stamp: str | None = None,
    claim_id: int | None = None,
) -> None:
    """One change to a label of an answer (prediction_id) or of a claim (claim_id)."""
    run_id = run_name = None
    if prediction_id is not None:
        row = db.execute(
            "SELECT p.claim_id, p.run_id, r.name FROM predictions p JOIN runs r ON r.id = p.run_id WHERE p.id = ?",
            [prediction_id],
        ).fetchone()
        claim_id, run_id, run_name = row
    db.execute(
        "INSERT INTO label_history (claim_id, prediction_id, run_id, run_name, kind, annotator, changed_by,"
        " old, new, source, changed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            claim_id,
            prediction_id,
            run_id,
            run_name,
            kind,
            annotator,
            changed_by,
            None if old is None else json.dumps(old, ensure_ascii=False),
            None if new is None else json.dumps(new, ensure_ascii=False),
            source,
            stamp or now_iso(),
        ],
    )


def claim_history(db: Connection, claim_id: int, limit: int = 500) -> list[HistoryEntry]:
    """A claim's label changes, newest first."""
    rows = db.execute(
        "SELECT id, claim_id, prediction_id, run_name, kind, annotator, changed_by, old, new, source, changed_at"
        " FROM label_history WHERE claim_id = ? ORDER BY id DESC LIMIT ?",
        [claim_id, limit],
    )
    return [HistoryEntry(*row[:7], _json(row[7]), _json(row[8]), *row[9:]) for row in rows]


def _json(text: str | None):
    return None if text is None else json.loads(text)
