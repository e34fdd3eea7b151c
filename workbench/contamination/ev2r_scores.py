"""A run's Ev2R figures from its Ev2R judge runs: the adapter between the store's judgments
and workbench.metrics.ev2r.

    found = ev2r_of(store, run)   # None when no Ev2R judge run judged it
    found.summary.score.official, found.summary.score.readable, found.summary.pair_recall.failure_rate
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from store import Run, Store
from workbench.contamination.ev2r_evidence import PART_WORDS, PARTS, predicted_pairs
from workbench.contamination.ev2r_task import OVER_COUNTED, is_users
from workbench.metrics.ev2r import (
    FAILED,
    NO_EVIDENCE,
    THRESHOLD,
    ClaimEv2r,
    Ev2rSummary,
    FactCounts,
    OverCounted,
    summarise,
)


@dataclass(frozen=True)
class Ev2rResult:
    """A run's Ev2R figures and the judge runs they come from."""

    run: Run
    judges: dict[str, Run]
    """Part (questions, pairs) -> the judge run read."""
    summary: Ev2rSummary
    not_judged: int
    """Claims with evidence that a judge run has not answered yet (counted among failures)."""
    capped: int
    """Claims whose answer carried more pairs than the task reads (the rest were not shown)."""
    per_claim: dict[int, ClaimEv2r]
    """Claim id -> its judged parts (for paired comparisons)."""

    def prompt(self) -> dict[str, Any]:
        """Which judge prompt each part used: its name, hash, and whether it is ours or the user's."""
        return {
            part: {
                "name": run.prompt_name,
                "hash": run.prompt_hash,
                "source": "user's file" if is_users(run.prompt_name) else "ours",
            }
            for part, run in self.judges.items()
        }


def ev2r_runs(store: Store, run: Run, judge: str | None = None) -> dict[str, Run]:
    """The newest Ev2R judge run of each part (of the judge named, by model, run name or id)."""
    found: dict[str, Run] = {}
    for candidate in store.judging.task_runs(run.id, "ev2r"):
        if judge is not None and judge not in (candidate.model, candidate.name, str(candidate.id)):
            continue
        part = next((p for p in PARTS if (candidate.setting or "").startswith(PART_WORDS[p])), None)
        if part is not None and part not in found:
            found[part] = candidate
    return found


def ev2r_of(store: Store, run: Run, judge: str | None = None, threshold: float = THRESHOLD) -> Ev2rResult | None:
    """The run's Ev2R figures (None unless both parts have a judge run); `threshold`: the Q+A
    recall a right verdict must exceed to score."""
    judges = ev2r_runs(store, run, judge)
    if set(judges) != set(PARTS):
        return None
    answers = {part: {p.claim_id: p for p in store.runs.predictions(r.id)} for part, r in judges.items()}
    claims, not_judged, capped, ids = [], 0, 0, []
    for claim_id in store.runs.claim_ids(run.id):
        ids.append(claim_id)
        claim = store.claims.get(claim_id)
        prediction = store.runs.prediction(run.id, claim_id)
        correct = prediction is not None and prediction.status == "ok" and prediction.verdict == claim.label
        pairs, carried = predicted_pairs(prediction)
        capped += carried > len(pairs)
        if not pairs:
            claims.append(ClaimEv2r(correct, NO_EVIDENCE, NO_EVIDENCE))
            continue
        outcomes = {part: _outcome(answers[part].get(claim_id)) for part in PARTS}
        not_judged += any(answers[part].get(claim_id) is None for part in PARTS)
        claims.append(ClaimEv2r(correct, outcomes["questions"], outcomes["pairs"]))
    return Ev2rResult(run, judges, summarise(claims, threshold), not_judged, capped, dict(zip(ids, claims)))


def _outcome(judgment) -> FactCounts | str:
    if judgment is None or not isinstance(judgment.parsed, dict):
        return FAILED
    try:
        counts = [int(judgment.parsed[key]) for key in FactCounts.__dataclass_fields__]
    except (KeyError, TypeError, ValueError):
        return FAILED
    if judgment.status == "ok":
        return FactCounts(*counts)
    return OverCounted(*counts) if judgment.parsed.get(OVER_COUNTED) else FAILED
