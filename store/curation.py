"""Curation of a dataset, recorded as flags (migration m014b).

A curation step marks the claims it removes with a pipeline flag of kind
`curated-out:STEP` (date, language, publisher, duplicate, screen) and a note saying why;
nothing is deleted. `flagged:curated-out` matches every step's flags (a kind matches its
sub-kinds, see flag_specs), so `-flagged:curated-out` is the curated set and
`--exclude-flag curated-out` scores without what curation removed. Running a step again
replaces its flags on that dataset; clearing a step takes them off.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from store.connection import atomic
from store.records import now_iso

if TYPE_CHECKING:
    from sqlite3 import Connection

CURATED_OUT = "curated-out"
"""The flag kind every curation step's flags are a sub-kind of."""


def step_kind(step: str) -> str:
    """The flag kind of a curation step: duplicate -> curated-out:duplicate."""
    return f"{CURATED_OUT}:{step}"


@dataclass
class StepRecord:
    """How a curation step was last run on a dataset."""

    step: str
    settings: dict
    considered: int
    """Claims the step looked at (those earlier steps left in)."""
    removed: int
    run_id: int | None
    ran_at: str


@dataclass
class CurationRow:
    """What a curation step reads of a claim."""

    id: int
    external_id: str
    text: str
    claim_date: str | None
    review_date: str | None
    """reference_time: for a ClaimReview claim, the day the review was published."""
    attributes: dict


@dataclass
class DuplicateLink:
    claim_id: int
    kept_id: int
    similarity: float
    method: str


class CurationStore:
    """Curation steps, their flags and the duplicate links of one dataset at a time."""

    def __init__(self, db: Connection):
        self.db = db

    def claims(self, dataset_id: int, leaving_out: list[str] = ()) -> list[CurationRow]:
        """The dataset's claims in id order, without those flagged by the given step kinds."""
        where, params = ["c.dataset_id = ?"], [dataset_id]
        if leaving_out:
            where.append(
                f"NOT EXISTS (SELECT 1 FROM flags f WHERE f.claim_id = c.id"
                f" AND f.kind IN ({', '.join('?' * len(leaving_out))}))"
            )
            params += list(leaving_out)
        rows = self.db.execute(
            "SELECT c.id, c.external_id, c.text, c.claim_date, c.reference_time, c.attributes FROM claims c"
            f" WHERE {' AND '.join(where)} ORDER BY c.id",
            params,
        )
        return [
            CurationRow(i, ext, text, day, review, json.loads(attrs or "{}"))
            for i, ext, text, day, review, attrs in rows
        ]

    def record_step(
        self,
        dataset_id: int,
        step: str,
        removed: dict[int, str],
        settings: dict,
        considered: int,
        run_id: int | None = None,
        duplicates: list[DuplicateLink] | None = None,
    ) -> None:
        """Replace a step's flags on the dataset with `removed` (claim id -> why), and its record.

        One transaction: the funnel never shows half a step. For the duplicate step,
        `duplicates` replaces the dataset's duplicate links too.
        """
        kind, stamp = step_kind(step), now_iso()
        with atomic(self.db):
            self._delete_flags(dataset_id, kind)
            self.db.executemany(
                "INSERT OR REPLACE INTO flags (claim_id, kind, source, model, metric, note, who, created_at)"
                " VALUES (?, ?, 'pipeline', '', '', ?, 'curate', ?)",
                [(claim_id, kind, note, stamp) for claim_id, note in removed.items()],
            )
            if duplicates is not None:
                self._delete_links(dataset_id)
                self.db.executemany(
                    "INSERT INTO claim_duplicates (claim_id, kept_id, similarity, method) VALUES (?, ?, ?, ?)",
                    [(d.claim_id, d.kept_id, d.similarity, d.method) for d in duplicates],
                )
            self.db.execute(
                "INSERT OR REPLACE INTO curation_steps (dataset_id, step, settings, considered, removed, run_id,"
                " ran_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [dataset_id, step, json.dumps(settings, sort_keys=True), considered, len(removed), run_id, stamp],
            )

    def clear_step(self, dataset_id: int, step: str) -> int:
        """Take a step's flags (and record, and duplicate links) off the dataset; returns the claims freed."""
        with atomic(self.db):
            freed = self._delete_flags(dataset_id, step_kind(step))
            if step == "duplicate":
                self._delete_links(dataset_id)
            self.db.execute("DELETE FROM curation_steps WHERE dataset_id = ? AND step = ?", [dataset_id, step])
        return freed

    def steps(self, dataset_id: int) -> dict[str, StepRecord]:
        """The steps run on the dataset, by name."""
        rows = self.db.execute(
            "SELECT step, settings, considered, removed, run_id, ran_at FROM curation_steps WHERE dataset_id = ?",
            [dataset_id],
        )
        return {
            step: StepRecord(step, json.loads(settings), considered, removed, run_id, ran_at)
            for step, settings, considered, removed, run_id, ran_at in rows
        }

    def first_removals(self, dataset_id: int, kinds_in_order: list[str]) -> dict[str, int]:
        """Flag kind -> claims whose first curation flag (in `kinds_in_order`; any other
        `curated-out` kind, such as a person's, after them) is that kind."""
        order = " ".join(f"WHEN ? THEN {n}" for n in range(len(kinds_in_order)))
        rows = self.db.execute(
            f"SELECT kind, count(*) FROM (SELECT f.claim_id, f.kind, min(CASE f.kind {order} ELSE ? END) AS rank"
            " FROM flags f JOIN claims c ON c.id = f.claim_id WHERE c.dataset_id = ?"
            " AND (f.kind = ? OR f.kind LIKE ?) GROUP BY f.claim_id) GROUP BY kind",
            [*kinds_in_order, len(kinds_in_order), dataset_id, CURATED_OUT, CURATED_OUT + ":%"],
        )
        return dict(rows.fetchall())

    def kept_count(self, dataset_id: int) -> int:
        """Claims no curation flag removed."""
        return self.db.execute(
            "SELECT count(*) FROM claims c WHERE c.dataset_id = ? AND NOT EXISTS (SELECT 1 FROM flags f"
            " WHERE f.claim_id = c.id AND (f.kind = ? OR f.kind LIKE ?))",
            [dataset_id, CURATED_OUT, CURATED_OUT + ":%"],
        ).fetchone()[0]

    def unanswered(self, dataset_id: int, leaving_out: list[str], run_id: int) -> int:
        """Claims no flag of `leaving_out` removed that the run has no answer for (not screened yet)."""
        marks = ", ".join("?" * len(leaving_out)) or "NULL"
        return self.db.execute(
            "SELECT count(*) FROM claims c WHERE c.dataset_id = ? AND NOT EXISTS (SELECT 1 FROM flags f WHERE"
            f" f.claim_id = c.id AND f.kind IN ({marks})) AND NOT EXISTS (SELECT 1 FROM predictions p"
            " WHERE p.run_id = ? AND p.claim_id = c.id AND p.status != 'error')",
            [dataset_id, *leaving_out, run_id],
        ).fetchone()[0]

    def duplicates_of(self, claim_id: int) -> list[DuplicateLink]:
        """The links a claim is part of: as the one kept, or as a duplicate of another."""
        rows = self.db.execute(
            "SELECT claim_id, kept_id, similarity, method FROM claim_duplicates WHERE kept_id = ? OR claim_id = ?"
            " ORDER BY claim_id",
            [claim_id, claim_id],
        )
        return [DuplicateLink(*row) for row in rows]

    def _delete_flags(self, dataset_id: int, kind: str) -> int:
        cursor = self.db.execute(
            "DELETE FROM flags WHERE kind = ? AND source = 'pipeline'"
            " AND claim_id IN (SELECT id FROM claims WHERE dataset_id = ?)",
            [kind, dataset_id],
        )
        return cursor.rowcount

    def _delete_links(self, dataset_id: int) -> None:
        self.db.execute(
            "DELETE FROM claim_duplicates WHERE claim_id IN (SELECT id FROM claims WHERE dataset_id = ?)", [dataset_id]
        )


__all__ = ["CURATED_OUT", "CurationRow", "CurationStore", "DuplicateLink", "StepRecord", "step_kind"]
