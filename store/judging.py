"""Judgments of explanations: a judge run's scores and the scores people give.

A judge run (runs.kind = 'judge', runs.target_run_id = the verdict run it scores) keeps
each judgment as a prediction: parsed = {"score": 0..10, "justification": ...}. A person's
score lives in `judgments`, keyed by the scored prediction and `person:NAME`.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlite_utils import Database

from store.records import Run, now_iso
from store.runs import RunStore

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


class JudgingStore:
    """Judge runs and judgments."""

    def __init__(self, db: Database, runs: RunStore):
        self.db = db
        self.runs = runs

    def judge_runs(self, target_run_id: int) -> list[Run]:
        """The judge runs of a verdict run, newest first."""
        rows = self.db.execute("SELECT id FROM runs WHERE kind = 'judge' AND target_run_id = ? ORDER BY id DESC",
                               [target_run_id]).fetchall()
        return [self.runs.get(run_id) for (run_id,) in rows]

    def scores(self, judge_run_id: int) -> list[Judged]:
        """A judge run's readable scores with the outcome of each judged answer, by claim id."""
        rows = self.db.execute(
            "SELECT j.claim_id, json_extract(j.parsed, '$.score'), t.outcome FROM predictions j"
            " JOIN runs r ON r.id = j.run_id"
            " LEFT JOIN predictions t ON t.run_id = r.target_run_id AND t.claim_id = j.claim_id"
            " WHERE j.run_id = ? AND j.status = 'ok' AND json_extract(j.parsed, '$.score') IS NOT NULL"
            " ORDER BY j.claim_id", [judge_run_id])
        return [Judged(claim_id, float(score), outcome) for claim_id, score, outcome in rows]

    def person_scores(self, target_run_id: int) -> dict[str, dict[int, float]]:
        """Each person's scores of a run's explanations: NAME -> claim id -> score."""
        rows = self.db.execute(
            "SELECT substr(j.judge_model, ?), p.claim_id, j.score FROM judgments j"
            " JOIN predictions p ON p.id = j.prediction_id"
            " WHERE p.run_id = ? AND j.judge_model LIKE ? AND j.score IS NOT NULL ORDER BY p.claim_id",
            [len(PERSON_PREFIX) + 1, target_run_id, PERSON_PREFIX + "%"])
        found: dict[str, dict[int, float]] = {}
        for who, claim_id, score in rows:
            found.setdefault(who, {})[claim_id] = float(score)
        return found

    def set_person_score(self, prediction_id: int, who: str, score: float | None, note: str | None = None) -> None:
        """A person's 0-10 score of one explanation (None removes it)."""
        judge = PERSON_PREFIX + who
        with self.db.atomic():
            if score is None:
                self.db.execute("DELETE FROM judgments WHERE prediction_id = ? AND judge_model = ?",
                                [prediction_id, judge])
                return
            self.db.execute(
                "INSERT INTO judgments (prediction_id, judge_model, score, rationale, created_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (prediction_id, judge_model)"
                " DO UPDATE SET score = excluded.score, rationale = excluded.rationale,"
                " created_at = excluded.created_at", [prediction_id, judge, score, note, now_iso()])

    def for_claim(self, claim_id: int) -> list[ClaimJudgment]:
        """Every judgment of every run's explanation of a claim: judge runs, then people."""
        rows = self.db.execute(
            "SELECT t.name, r.name, j.status, json_extract(j.parsed, '$.score'),"
            " coalesce(json_extract(j.parsed, '$.justification'), j.explanation, j.error)"
            " FROM predictions j JOIN runs r ON r.id = j.run_id JOIN runs t ON t.id = r.target_run_id"
            " WHERE j.claim_id = ? AND r.kind = 'judge' ORDER BY t.id, r.id", [claim_id]).fetchall()
        rows += self.db.execute(
            "SELECT r.name, j.judge_model, 'ok', j.score, j.rationale FROM judgments j"
            " JOIN predictions p ON p.id = j.prediction_id JOIN runs r ON r.id = p.run_id"
            " WHERE p.claim_id = ? ORDER BY r.id, j.judge_model", [claim_id]).fetchall()
        return [ClaimJudgment(target, judge, status, None if score is None else float(score), reason)
                for target, judge, status, score, reason in rows]
