"""Which of a run's answers can take failure categories: the wrong ones (a wrong verdict, an
abstention or an unreadable answer on a scored claim, as the `wrong` filter term says), and
which labels, made before that was checked, sit on answers that are not wrong."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlite3 import Connection

WRONG_OUTCOMES = ("wrong", "abstain", "parse_failure")
"""The outcomes (predictions.outcome) failure categories are for."""

_NOT_WRONG = f"ifnull(p.outcome, '') NOT IN ({', '.join(repr(o) for o in WRONG_OUTCOMES)})"


class AnswerOutcomeStore:
    """Answers' outcomes as triage needs them."""

    def __init__(self, db: Connection):
        self.db = db

    def outcomes(self, run_id: int, claim_ids: Iterable[int]) -> dict[int, tuple[int, str | None]]:
        """Claim id -> (the run's prediction id, its outcome), for the claims the run answered."""
        wanted = sorted(set(claim_ids))
        found: dict[int, tuple[int, str | None]] = {}
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            rows = self.db.execute(
                f"SELECT claim_id, id, outcome FROM predictions WHERE run_id = ? AND claim_id IN ({', '.join('?' * len(chunk))})",
                [run_id, *chunk],
            )
            found.update((claim_id, (prediction_id, outcome)) for claim_id, prediction_id, outcome in rows)
        return found

    def labelled_not_wrong(self, run_id: int) -> dict[int, str]:
        """Prediction id -> outcome of a run's answers that are not wrong yet carry a label
        (done, with a category, or decided): labels the failure counts leave out."""
        rows = self.db.execute(
            "SELECT p.id, ifnull(p.outcome, 'unscored') FROM predictions p WHERE p.run_id = ?"
            f" AND {_NOT_WRONG} AND (EXISTS (SELECT 1 FROM triage_reviews v WHERE v.prediction_id = p.id"
            " AND v.reviewed = 1) OR EXISTS (SELECT 1 FROM triage_entries t WHERE t.prediction_id = p.id)"
            " OR EXISTS (SELECT 1 FROM triage_adjudications a WHERE a.prediction_id = p.id))",
            [run_id],
        )
        return dict(rows.fetchall())
