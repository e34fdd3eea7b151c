"""Assignment rounds and annotators' queues: which answers of a run each person triages,
in which order, and how far they have got.

An assignment is (answer, annotator) with a position in that annotator's queue of the
run; `done` follows the annotator's review of the answer (triggers, m015), so the next
item of a queue is one probe of the index (run, annotator, done, position).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from store.connection import write_lock
from store.filters import compile_filter
from store.records import now_iso

if TYPE_CHECKING:
    from sqlite3 import Connection


@dataclass(frozen=True)
class Round:
    """One `triage assign`: what was handed out, to whom, how."""

    id: int
    run_id: int
    filter: str
    annotators: list[str]
    overlap: float
    per_item: int
    seed: int | None
    blind: bool
    created_by: str
    created_at: str


@dataclass(frozen=True)
class QueueItem:
    prediction_id: int
    claim_id: int
    position: int
    done: bool
    blind: bool
    """Others' labels stay hidden from this annotator until they are done with it."""


@dataclass(frozen=True)
class Progress:
    assigned: int
    done: int

    @property
    def left(self) -> int:
        return self.assigned - self.done


class AssignmentStore:
    """Rounds, assignments and queues."""

    def __init__(self, db: Connection):
        self.db = db

    def create_round(
        self,
        run_id: int,
        filter_text: str,
        annotators: list[str],
        overlap: float,
        per_item: int,
        seed: int | None,
        blind: bool,
        created_by: str,
        plan: list[tuple[int, str]],
    ) -> tuple[Round, dict[str, int]]:
        """Record a round and its (prediction id, annotator) assignments in plan order; each
        annotator's new items go after what they already have. Pairs already assigned are
        left as they were. Returns the round and how many items each annotator got."""
        given: dict[str, int] = {name: 0 for name in annotators}
        with write_lock(self.db):
            cursor = self.db.execute(
                "INSERT INTO triage_rounds (run_id, filter, annotators, overlap, per_item, seed, blind, created_by,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    run_id,
                    filter_text,
                    json.dumps(annotators, ensure_ascii=False),
                    overlap,
                    per_item,
                    seed,
                    int(blind),
                    created_by,
                    now_iso(),
                ],
            )
            round_id = cursor.lastrowid
            next_position = {name: self._last_position(run_id, name) + 1 for name in annotators}
            existing = set(
                self.db.execute(
                    "SELECT prediction_id, annotator FROM triage_assignments WHERE run_id = ?", [run_id]
                ).fetchall()
            )
            rows = []
            for prediction_id, annotator in plan:
                if (prediction_id, annotator) in existing:
                    continue
                rows.append(
                    (prediction_id, annotator, run_id, round_id, next_position[annotator], prediction_id, annotator)
                )
                next_position[annotator] += 1
            self.db.executemany(
                "INSERT OR IGNORE INTO triage_assignments (prediction_id, annotator, run_id, round_id, position, done)"
                " VALUES (?, ?, ?, ?, ?, coalesce((SELECT reviewed FROM triage_reviews"
                " WHERE prediction_id = ? AND annotator = ?), 0))",
                rows,
            )
            for annotator, count in self.db.execute(
                "SELECT annotator, count(*) FROM triage_assignments WHERE round_id = ? GROUP BY annotator", [round_id]
            ):
                given[annotator] = count
        return self.round(round_id), given

    def _last_position(self, run_id: int, annotator: str) -> int:
        row = self.db.execute(
            "SELECT max(position) FROM triage_assignments WHERE run_id = ? AND annotator = ?", [run_id, annotator]
        ).fetchone()
        return -1 if row[0] is None else row[0]

    def answers_matching(self, run_id: int, filter_text: str) -> list[tuple[int, int]]:
        """(prediction id, claim id) of a run's answers on the claims matching a filter, by
        claim id (FilterError for a filter that does not compile)."""
        compiled = compile_filter(filter_text, self.db)
        rows = self.db.execute(
            f"SELECT p.id, p.claim_id FROM predictions p JOIN claims c ON c.id = p.claim_id"
            f" WHERE p.run_id = ? AND ({compiled.where}) ORDER BY p.claim_id",
            [run_id, *compiled.params],
        )
        return rows.fetchall()

    def round(self, round_id: int) -> Round:
        row = self.db.execute("SELECT * FROM triage_rounds WHERE id = ?", [round_id]).fetchone()
        return _round(row)

    def rounds(self, run_id: int) -> list[Round]:
        return [
            _round(row) for row in self.db.execute("SELECT * FROM triage_rounds WHERE run_id = ? ORDER BY id", [run_id])
        ]

    def assigned_prediction_ids(self, run_id: int) -> set[int]:
        """Answers of a run someone has been assigned."""
        return {
            r[0]
            for r in self.db.execute("SELECT DISTINCT prediction_id FROM triage_assignments WHERE run_id = ?", [run_id])
        }

    def has_queue(self, run_id: int, annotator: str) -> bool:
        return (
            self.db.execute(
                "SELECT 1 FROM triage_assignments WHERE run_id = ? AND annotator = ? LIMIT 1", [run_id, annotator]
            ).fetchone()
            is not None
        )

    def queued_runs(self, annotator: str) -> list[int]:
        """Runs in which the annotator has items assigned, newest first."""
        return [
            r[0]
            for r in self.db.execute(
                "SELECT DISTINCT run_id FROM triage_assignments WHERE annotator = ? ORDER BY run_id DESC", [annotator]
            )
        ]

    def queue(
        self, run_id: int, annotator: str, after_position: int | None = None, limit: int = 200, only_left: bool = False
    ) -> list[QueueItem]:
        """A page of an annotator's queue in position order (keyset after `after_position`)."""
        sql = (
            "SELECT a.prediction_id, p.claim_id, a.position, a.done, r.blind FROM triage_assignments a"
            " JOIN predictions p ON p.id = a.prediction_id JOIN triage_rounds r ON r.id = a.round_id"
            " WHERE a.run_id = ? AND a.annotator = ?"
        )
        params: list = [run_id, annotator]
        if only_left:
            sql += " AND a.done = 0"
        if after_position is not None:
            sql, params = sql + " AND a.position > ?", params + [after_position]
        rows = self.db.execute(sql + " ORDER BY a.position LIMIT ?", params + [limit])
        return [QueueItem(p, c, pos, bool(done), bool(blind)) for p, c, pos, done, blind in rows]

    def next_item(self, run_id: int, annotator: str, after_position: int = -1) -> QueueItem | None:
        """The first item after `after_position` the annotator has not done (then from the
        start of the queue), or None when everything is done."""
        for start in (after_position, -1):
            row = self.db.execute(
                "SELECT a.prediction_id, p.claim_id, a.position, a.done, r.blind FROM triage_assignments a"
                " JOIN predictions p ON p.id = a.prediction_id JOIN triage_rounds r ON r.id = a.round_id"
                " WHERE a.run_id = ? AND a.annotator = ? AND a.done = 0 AND a.position > ?"
                " ORDER BY a.position LIMIT 1",
                [run_id, annotator, start],
            ).fetchone()
            if row is not None:
                return QueueItem(row[0], row[1], row[2], bool(row[3]), bool(row[4]))
        return None

    def progress(self, run_id: int, annotator: str) -> Progress:
        """How many items the annotator has been given in a run, and how many are done."""
        assigned, done = self.db.execute(
            "SELECT count(*), coalesce(sum(done), 0) FROM triage_assignments WHERE run_id = ? AND annotator = ?",
            [run_id, annotator],
        ).fetchone()
        return Progress(assigned, done)

    def progress_by_annotator(self, run_id: int) -> dict[str, Progress]:
        rows = self.db.execute(
            "SELECT annotator, count(*), coalesce(sum(done), 0) FROM triage_assignments"
            " WHERE run_id = ? GROUP BY annotator ORDER BY annotator",
            [run_id],
        )
        return {name: Progress(assigned, done) for name, assigned, done in rows}

    def assignees(self, prediction_id: int) -> dict[str, bool]:
        """Who has the answer in a queue -> whether that queue is blind."""
        rows = self.db.execute(
            "SELECT a.annotator, r.blind FROM triage_assignments a JOIN triage_rounds r"
            " ON r.id = a.round_id WHERE a.prediction_id = ?",
            [prediction_id],
        )
        return {name: bool(blind) for name, blind in rows}

    def blind_for(self, annotator: str, prediction_ids: list[int]) -> set[int]:
        """Which of these answers are in a blind queue of the annotator who is not done with them."""
        if not prediction_ids:
            return set()
        marks = ", ".join("?" * len(prediction_ids))
        rows = self.db.execute(
            f"SELECT a.prediction_id FROM triage_assignments a JOIN triage_rounds r ON r.id = a.round_id"
            f" WHERE a.annotator = ? AND r.blind = 1 AND a.done = 0 AND a.prediction_id IN ({marks})",
            [annotator, *prediction_ids],
        )
        return {r[0] for r in rows}


def _round(row) -> Round:
    (round_id, run_id, filter_text, annotators, overlap, per_item, seed, blind, created_by, created_at) = row
    return Round(
        round_id,
        run_id,
        filter_text,
        json.loads(annotators),
        overlap,
        per_item,
        seed,
        bool(blind),
        created_by,
        created_at,
    )
