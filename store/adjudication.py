"""Adjudication: the final categories of an answer, decided by an adjudicator over the
team's labels. A decision is versioned; deciding over a decision one has not seen is
refused (AdjudicationConflict), so two adjudicators never overwrite each other.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from store.connection import write_lock
from store.records import now_iso


@dataclass(frozen=True)
class Adjudication:
    """The final categories of an answer, decided by an adjudicator."""

    prediction_id: int
    category_ids: frozenset[int]
    note: str | None
    adjudicator: str
    version: int
    """1 for the first decision, then one more each time it is decided again."""
    decided_at: str


class AdjudicationConflict(Exception):
    """Someone decided the item after the adjudicator read it: nothing was written."""

    def __init__(self, current: Adjudication):
        super().__init__(
            f"{current.adjudicator} decided this item meanwhile (decision {current.version}, {current.decided_at})"
        )
        self.current = current


class AdjudicationMixin:
    """TriageStore's adjudication part: reads and writes triage_adjudications."""

    def adjudication(self, prediction_id: int) -> Adjudication | None:
        row = self.db.execute(
            "SELECT prediction_id, categories, note, adjudicator, version, decided_at"
            " FROM triage_adjudications WHERE prediction_id = ?",
            [prediction_id],
        ).fetchone()
        return _adjudication(row) if row else None

    def adjudications(self, run_id: int) -> dict[int, Adjudication]:
        """Every decision on a run's answers, by prediction id."""
        rows = self.db.execute(
            "SELECT a.prediction_id, a.categories, a.note, a.adjudicator, a.version, a.decided_at"
            " FROM triage_adjudications a JOIN predictions p ON p.id = a.prediction_id WHERE p.run_id = ?",
            [run_id],
        )
        return {row[0]: _adjudication(row) for row in rows}

    def adjudicate(
        self,
        prediction_id: int,
        category_ids: Iterable[int],
        note: str | None,
        adjudicator: str,
        seen_version: int | None,
        *,
        source: str = "tui",
    ) -> Adjudication:
        """Record the final categories. `seen_version` is the decision the adjudicator read
        (None: none yet); if someone decided since, AdjudicationConflict carries their
        decision and nothing is written: the adjudicator looks again, then decides."""
        wanted = frozenset(category_ids)
        with write_lock(self.db):
            current = self.adjudication(prediction_id)
            if (current.version if current else None) != seen_version:
                raise AdjudicationConflict(current)
            version = (current.version if current else 0) + 1
            stamp = now_iso()
            self.db.execute(
                "INSERT INTO triage_adjudications (prediction_id, categories, note, adjudicator, version, decided_at)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (prediction_id) DO UPDATE SET categories = excluded.categories,"
                " note = excluded.note, adjudicator = excluded.adjudicator, version = excluded.version,"
                " decided_at = excluded.decided_at",
                [prediction_id, json.dumps(sorted(wanted)), note, adjudicator, version, stamp],
            )
            old = (
                None
                if current is None
                else {"categories": self._names(current.category_ids), "note": current.note, "by": current.adjudicator}
            )
            self.record_history(
                prediction_id,
                "adjudication",
                adjudicator,
                adjudicator,
                old,
                {"categories": self._names(wanted), "note": note},
                source,
                stamp,
            )
        return self.adjudication(prediction_id)


def _adjudication(row) -> Adjudication:
    prediction_id, categories, note, adjudicator, version, decided_at = row
    return Adjudication(prediction_id, frozenset(json.loads(categories)), note, adjudicator, version, decided_at)
