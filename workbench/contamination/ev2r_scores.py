"""A run's Ev2R figures from its Ev2R judge runs: the adapter between the store's judgments
and workbench.metrics.ev2r.

    found = ev2r_of(store, run)   # None when no Ev2R judge run judged it
    found.summary.score.official, found.summary.score.readable, found.summary.pair_recall.failure_rate
"""

from __future__ import annotations

import json
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


def ev2r_runs(store: Store, run: Run, judge: str | None = None) -> dict[str, list[Run]]:
    """Each part's Ev2R judge runs of `run`, newest first (of the judge named, by model, run
    name or id)."""
    found: dict[str, list[Run]] = {part: [] for part in PARTS}
    for candidate in store.judging.task_runs(run.id, "ev2r"):
        if judge is not None and judge not in (candidate.model, candidate.name, str(candidate.id)):
            continue
        part = next((p for p in PARTS if (candidate.setting or "").startswith(PART_WORDS[p])), None)
        if part is not None:
            found[part].append(candidate)
    return found


def judge_sets(store: Store, run: Run, judge: str | None = None) -> list[dict[str, Run]]:
    """The matched sets of `run`'s Ev2R judge runs, newest first: a questions run and a pairs
    run by the same judge (model identity) with the same prompt, or made together by one
    `workbench ev2r` (its --questions-prompt-file gives the parts different prompts)."""
    found = ev2r_runs(store, run, judge)
    sets = []
    for pairs in found["pairs"]:
        same = [q for q in found["questions"] if q.model_identity == pairs.model_identity]
        match = next((q for q in same if q.prompt_hash == pairs.prompt_hash or q.id == pairs.id - 1), None)
        if match is not None:
            sets.append({"questions": match, "pairs": pairs})
    return sets


def judging(judges: dict[str, Run]) -> tuple:
    """What makes two sets' figures comparable: each part's judge identity and prompt."""
    return tuple(
        (part, json.dumps(r.model_identity, sort_keys=True), r.prompt_hash) for part, r in sorted(judges.items())
    )


def no_ev2r(store: Store, run: Run, judge: str | None = None) -> str:
    """Why `run` has no Ev2R figures: no judge run, a part not judged, or parts that do not match."""
    found = ev2r_runs(store, run, judge)
    if not any(found.values()):
        return f"run {run.name} has no Ev2R judgment; `workbench ev2r {run.name}` makes one"
    missing = [PART_WORDS[part] for part in PARTS if not found[part]]
    if missing:
        return f"run {run.name} has no Ev2R judge run of the {missing[0]} part"
    newest = {part: runs[0] for part, runs in found.items()}
    said = "; ".join(f"{PART_WORDS[p]}: {r.name} ({r.model}, prompt {r.prompt_name})" for p, r in newest.items())
    return (
        f"run {run.name}'s Ev2R judge runs of the two parts differ in judge or prompt ({said});"
        " judge both parts with one `workbench ev2r` command"
    )


def ev2r_of(
    store: Store, run: Run, judge: str | None = None, threshold: float = THRESHOLD, judges: dict[str, Run] | None = None
) -> Ev2rResult | None:
    """The run's Ev2R figures from `judges` (part -> judge run) or else its newest matched set
    of judge runs (None when there is none: `no_ev2r` says why); `threshold`: the Q+A recall
    a right verdict must exceed to score."""
    if judges is None:
        judges = next(iter(judge_sets(store, run, judge)), None)
    if judges is None or set(judges) != set(PARTS):
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
