"""Judgments of explanations: a judge run's scores and the scores people give.

A judge run (runs.kind = 'judge', runs.target_run_id = the verdict run it scores) keeps
each judgment as a prediction: parsed = {"score": 0..10, "justification": ...}. A person's
score lives in `judgments`, keyed by the scored prediction and `person:NAME`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from store.connection import atomic, write_lock
from store.records import Run, now_iso
from store.runs import RunStore
from store.triage import TriageStore

if TYPE_CHECKING:
    from sqlite3 import Connection

PERSON_PREFIX = "person:"


@dataclass(frozen=True)
class Judged:
    """One judged explanation."""

    claim_id: int
    score: float
    outcome: str | None
    """The judged answer's outcome (predictions.outcome): correct, wrong, abstain, ..."""


@dataclass(frozen=True)
class ClaimJudgment:
    """A judgment of one run's explanation of one claim, for the claim detail."""

    target_run: str
    judge: str
    """The judge run's name, or person:NAME."""
    status: str
    """ok, parse_failure or error (a person's score is always ok)."""
    score: float | None
    justification: str | None


@dataclass(frozen=True)
class JudgeRepeat:
    """One of the K answers a judge gave about one explanation (`judge --repeats K`)."""

    run_id: int
    claim_id: int
    repeat: int
    """0 .. K-1; repeat 0 is also the judge run's prediction."""
    status: str
    """ok, parse_failure (no readable 0-10 score) or error (no answer)."""
    score: float | None
    justification: str | None = None
    raw_output: str | None = None
    error: str | None = None
    cached: bool = False


class JudgingStore:
    """Judge runs and judgments."""

    def __init__(self, db: Connection, runs: RunStore):
        self.db = db
        self.runs = runs
        self.team = TriageStore(db)

    def judge_runs(self, target_run_id: int) -> list[Run]:
        """The judge runs of a verdict run, newest first."""
        rows = self.db.execute(
            "SELECT id FROM runs WHERE kind = 'judge' AND target_run_id = ? ORDER BY id DESC", [target_run_id]
        ).fetchall()
        return [self.runs.get(run_id) for (run_id,) in rows]

    def task_runs(self, target_run_id: int, kind: str) -> list[Run]:
        """The runs of one kind (e.g. ev2r) that judge a verdict run, newest first."""
        rows = self.db.execute(
            "SELECT id FROM runs WHERE kind = ? AND target_run_id = ? ORDER BY id DESC", [kind, target_run_id]
        ).fetchall()
        return [self.runs.get(run_id) for (run_id,) in rows]

    def scores(self, judge_run_id: int) -> list[Judged]:
        """A judge run's readable scores with the outcome of each judged answer, by claim id."""
        rows = self.db.execute(
            "SELECT j.claim_id, json_extract(j.parsed, '$.score'), t.outcome FROM predictions j"
            " JOIN runs r ON r.id = j.run_id"
            " LEFT JOIN predictions t ON t.run_id = r.target_run_id AND t.claim_id = j.claim_id"
            " WHERE j.run_id = ? AND j.status = 'ok' AND json_extract(j.parsed, '$.score') IS NOT NULL"
            " ORDER BY j.claim_id",
            [judge_run_id],
        )
        return [Judged(claim_id, float(score), outcome) for claim_id, score, outcome in rows]

    def person_scores(self, target_run_id: int) -> dict[str, dict[int, float]]:
        """Each person's scores of a run's explanations: NAME -> claim id -> score."""
        rows = self.db.execute(
            "SELECT substr(j.judge_model, ?), p.claim_id, j.score FROM judgments j"
            " JOIN predictions p ON p.id = j.prediction_id"
            " WHERE p.run_id = ? AND j.judge_model LIKE ? AND j.score IS NOT NULL ORDER BY p.claim_id",
            [len(PERSON_PREFIX) + 1, target_run_id, PERSON_PREFIX + "%"],
        )
        found: dict[str, dict[int, float]] = {}
        for who, claim_id, score in rows:
            found.setdefault(who, {})[claim_id] = float(score)
        return found

    def set_person_score(
        self, prediction_id: int, who: str, score: float | None, note: str | None = None, source: str = "tui"
    ) -> None:
        """A person's 0-10 score of one explanation (None removes it); the change enters the
        label history."""
        judge = PERSON_PREFIX + who
        with write_lock(self.db):
            row = self.db.execute(
                "SELECT score FROM judgments WHERE prediction_id = ? AND judge_model = ?", [prediction_id, judge]
            ).fetchone()
            old = None if row is None else row[0]
            if score is None:
                self.db.execute(
                    "DELETE FROM judgments WHERE prediction_id = ? AND judge_model = ?", [prediction_id, judge]
                )
            else:
                self.db.execute(
                    "INSERT INTO judgments (prediction_id, judge_model, score, rationale, created_at)"
                    " VALUES (?, ?, ?, ?, ?) ON CONFLICT (prediction_id, judge_model)"
                    " DO UPDATE SET score = excluded.score, rationale = excluded.rationale,"
                    " created_at = excluded.created_at",
                    [prediction_id, judge, score, note, now_iso()],
                )
            if old != score:
                self.team.record_history(prediction_id, "eq score", who, who, old, score, source)

    # -- judge repeats -------------------------------------------------------------------

    def record_repeat(self, repeat: JudgeRepeat) -> None:
        """One repeat's outcome, committed at once (asked again, it replaces the row)."""
        with atomic(self.db):
            self.db.execute(
                "INSERT OR REPLACE INTO judge_repeats (run_id, claim_id, repeat, status, score, justification,"
                " raw_output, error, cached, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    repeat.run_id,
                    repeat.claim_id,
                    repeat.repeat,
                    repeat.status,
                    repeat.score,
                    repeat.justification,
                    repeat.raw_output,
                    repeat.error,
                    int(repeat.cached),
                    now_iso(),
                ],
            )

    def repeats(self, judge_run_id: int) -> list[JudgeRepeat]:
        """Every repeat of a judge run, by claim then repeat."""
        rows = self.db.execute(
            "SELECT run_id, claim_id, repeat, status, score, justification, raw_output, error, cached"
            " FROM judge_repeats WHERE run_id = ? ORDER BY claim_id, repeat",
            [judge_run_id],
        )
        return [JudgeRepeat(*row[:8], bool(row[8])) for row in rows]

    def repeat_count(self, judge_run_id: int) -> int | None:
        """How many times the judge run asks per explanation (None: it keeps no repeats)."""
        row = self.db.execute("SELECT max(repeat) FROM judge_repeats WHERE run_id = ?", [judge_run_id]).fetchone()
        return None if row[0] is None else row[0] + 1

    def repeats_for_claim(self, claim_id: int) -> dict[str, list[JudgeRepeat]]:
        """Judge run name -> that run's repeats for one claim (for the claim detail)."""
        rows = self.db.execute(
            "SELECT r.name, j.run_id, j.claim_id, j.repeat, j.status, j.score, j.justification, j.raw_output,"
            " j.error, j.cached FROM judge_repeats j JOIN runs r ON r.id = j.run_id WHERE j.claim_id = ?"
            " ORDER BY j.run_id, j.repeat",
            [claim_id],
        )
        found: dict[str, list[JudgeRepeat]] = {}
        for row in rows:
            found.setdefault(row[0], []).append(JudgeRepeat(*row[1:9], bool(row[9])))
        return found

    def failures(self, judge_run_id: int) -> tuple[int, int]:
        """(unreadable judgments, judge errors) of a judge run: counted, never scores."""
        row = self.db.execute(
            "SELECT coalesce(sum(status = 'parse_failure'), 0), coalesce(sum(status = 'error'), 0)"
            " FROM predictions WHERE run_id = ?",
            [judge_run_id],
        ).fetchone()
        return row[0], row[1]

    def for_claim(self, claim_id: int) -> list[ClaimJudgment]:
        """Every judgment of every run's explanation of a claim: judge runs, then people."""
        rows = self.db.execute(
            "SELECT t.name, r.name, j.status, json_extract(j.parsed, '$.score'),"
            " coalesce(json_extract(j.parsed, '$.justification'), j.explanation, j.error)"
            " FROM predictions j JOIN runs r ON r.id = j.run_id JOIN runs t ON t.id = r.target_run_id"
            " WHERE j.claim_id = ? AND r.kind = 'judge' ORDER BY t.id, r.id",
            [claim_id],
        ).fetchall()
        rows += self.db.execute(
            "SELECT r.name, j.judge_model, 'ok', j.score, j.rationale FROM judgments j"
            " JOIN predictions p ON p.id = j.prediction_id JOIN runs r ON r.id = p.run_id"
            " WHERE p.claim_id = ? ORDER BY r.id, j.judge_model",
            [claim_id],
        ).fetchall()
        return [
            ClaimJudgment(target, judge, status, None if score is None else float(score), reason)
            for target, judge, status, score, reason in rows
        ]
