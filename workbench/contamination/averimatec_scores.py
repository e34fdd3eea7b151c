"""A run's AVerImaTeC figures from its AVerImaTeC judge runs: the adapter between the store's
judgments and workbench.metrics.averimatec, and the figures as a plain dict (--json).

    found = averimatec_of(store, run)   # None when no judge run judged it
    found.summary.verdict_accuracy.official, found.summary.evidence_recall.failure_rate
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from store import Run, Store
from workbench.contamination.averimatec_evidence import PARTS, predicted_items, reference_items
from workbench.contamination.averimatec_runs import part_of
from workbench.contamination.averimatec_task import SHOWN
from workbench.contamination.ev2r_task import OVER_COUNTED, is_users
from workbench.metrics.averimatec import FAILED, NOTHING, TASK, AverimatecSummary, ClaimAverimatec, Judged, summarise


@dataclass(frozen=True)
class AverimatecResult:
    """A run's AVerImaTeC figures and the judge runs they come from."""

    run: Run
    judges: dict[str, Run]
    summary: AverimatecSummary
    not_judged: int
    """Claims with something to judge that a judge run has not answered yet (counted as failures)."""
    per_claim: dict[int, ClaimAverimatec]


def judge_runs(store: Store, run: Run, judge: str | None = None) -> dict[str, Run]:
    """Each part's newest AVerImaTeC judge run of `run` (of the judge named, by model, run name or id)."""
    found: dict[str, Run] = {}
    for candidate in store.judging.task_runs(run.id, "averimatec"):
        if judge is not None and judge not in (candidate.model, candidate.name, str(candidate.id)):
            continue
        part = part_of(candidate)
        if part is not None and part not in found:
            found[part] = candidate
    return found


def averimatec_of(
    store: Store, run: Run, judges: dict[str, Run] | None = None, threshold: float = TASK.evidence_threshold
) -> AverimatecResult | None:
    """The run's figures from `judges` (part -> judge run) or else its newest judge run of each
    part; None when no part was judged."""
    judges = judges if judges is not None else judge_runs(store, run)
    if not judges:
        return None
    answers = {part: {p.claim_id: p for p in store.runs.predictions(r.id)} for part, r in judges.items()}
    claims, ids, not_judged = [], [], 0
    for claim_id in store.runs.claim_ids(run.id):
        claim = store.claims.get(claim_id)
        prediction = store.runs.prediction(run.id, claim_id)
        correct = _right(prediction, claim)
        outcomes = {}
        for part in PARTS:
            reference, predicted = reference_items(claim, part), predicted_items(prediction, part)
            if not reference or not predicted:
                outcomes[part] = NOTHING
                continue
            judgment = answers.get(part, {}).get(claim_id)
            not_judged += judgment is None
            outcomes[part] = _outcome(judgment, part, len(reference))
        ids.append(claim_id)
        claims.append(ClaimAverimatec(correct, outcomes["questions"], outcomes["evidence"], outcomes["justification"]))
    return AverimatecResult(run, judges, summarise(claims, threshold), not_judged, dict(zip(ids, claims)))


def _right(prediction, claim) -> bool:
    """The organisers' verdict check: the label as written, compared without case or outer
    spaces (a synonym our parser would map, such as "False", is not the label)."""
    said = prediction.raw_verdict if prediction is not None else None
    gold = claim.raw_label or claim.label
    return isinstance(said, str) and gold is not None and said.strip().lower() == gold.strip().lower()


def _outcome(judgment, part: str, reference_count: int) -> Judged | str:
    """A judgment's counts: over the known number of reference items (questions, evidence), or
    over the facts the judge counted (justification); failures as metrics.averimatec keeps them."""
    parsed = judgment.parsed if judgment is not None and isinstance(judgment.parsed, dict) else None
    if parsed is None or "reference_supported" not in parsed:
        return FAILED
    supported = int(parsed["reference_supported"])
    total = reference_count if part != "justification" else parsed.get("reference_facts")
    if not isinstance(total, int) or total <= 0:
        return FAILED
    over = supported > total or bool(parsed.get(OVER_COUNTED))
    if judgment.status != "ok" and not over:
        return FAILED
    return Judged(supported, total, over)


def averimatec_dict(result: AverimatecResult) -> dict[str, Any]:
    """The figures as JSON-ready data: each counted both ways, with failures and their rate."""
    summary = result.summary

    def counted(figure) -> dict[str, Any]:
        return {
            "official": figure.official,
            "failures_excluded": figure.readable,
            "failures": figure.failures,
            "failure_rate": figure.failure_rate,
            "claims": figure.claims,
        }

    return {
        "run": result.run.name,
        "claims": summary.claims,
        "threshold": summary.threshold,
        "question_recall": counted(summary.question_recall),
        "evidence_recall": counted(summary.evidence_recall),
        "verdict_accuracy": counted(summary.verdict_accuracy),
        "justification_recall": counted(summary.justification_recall),
        "score": counted(summary.verdict_accuracy),
        "ungated_verdict_accuracy": summary.plain_verdict_accuracy,
        "not_judged": result.not_judged,
        "judge_runs": {part: run.name for part, run in result.judges.items()},
        "prompt": {
            part: {
                "name": run.prompt_name,
                "hash": run.prompt_hash,
                "source": "user's file" if is_users(run.prompt_name) else "ours",
            }
            for part, run in result.judges.items()
        },
        "images_shown": {part: (run.setting or "").endswith(SHOWN) for part, run in result.judges.items()},
    }
