"""The AVerImaTeC scores (FEVER-9, 2026): pure arithmetic on a judge's counts.

Per claim, as the organisers' scorer computes them:

    question recall      = reference questions the predicted ones match / reference questions
    evidence recall      = reference evidence items the predicted ones cover / reference items
    justification recall = reference justification facts supported / reference facts
    verdict              = 1 when the predicted label equals the gold label

each recall capped at 1. The verdict and the justification count only for a claim whose
evidence recall is above the threshold (0.4, compared with `>`): the gated verdict accuracy is
the AVerImaTeC score. Every figure is a mean over all claims of the run.

The organisers' scorer reads an unreadable judge reply as a count of 0 (recall 0) and caps an
over-count at 1. Here such a judgment is a failure kept apart: `official` counts it as their
scorer does, `readable` leaves the claim out, and the failure rate is given beside them. A claim
whose prediction has nothing for a part (no questions, no evidence, no justification) is a real
0, not a failure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from workbench.metrics.ev2r import Counted


@dataclass(frozen=True)
class TaskConstants:
    """The task's constants, in one place, with where each comes from."""

    evidence_threshold: float = 0.4
    """Published: the organisers' score notebook gates verdict and justification on evidence
    recall > 0.4 (strictly greater)."""
    recall_cap: float = 1.0
    """Published: their compute_scores clips precision and recall to [0, 1]."""
    max_evidence: int | None = None
    """Assumed: their offline scorer reads every predicted evidence item (no cap found)."""
    image_match: int = 9
    """Published, not used here: their separate image check scores matched image pairs 0-10 and
    keeps a match at 9 or more; our judge sees the images with the text in one pass."""


TASK = TaskConstants()
NOTHING = "nothing predicted"
"""A part's outcome when the prediction holds nothing for it: recall 0, no judge asked."""
FAILED = "failed"
"""A part's outcome when the judge gave no readable counts (after its retries)."""


@dataclass(frozen=True)
class Judged:
    """A readable judgment of one part of one claim."""

    supported: int
    """Reference items (or facts) the prediction covers."""
    total: int
    """Reference items (questions, evidence items) or reference facts (justification)."""
    over_counted: bool = False
    """More covered than there are: a failure for our figures, capped at 1 by theirs."""

    @property
    def recall(self) -> float:
        return min(self.supported / self.total, TASK.recall_cap) if self.total else 0.0


PartOutcome = Judged | str


@dataclass(frozen=True)
class ClaimAverimatec:
    """One claim's judged parts and whether its verdict was right."""

    verdict_correct: bool
    questions: PartOutcome
    evidence: PartOutcome
    justification: PartOutcome


def recall(outcome: PartOutcome) -> float:
    """A part's recall as the organisers count it: failures and nothing predicted are 0."""
    if outcome == FAILED:
        return 0.0
    return outcome.recall if isinstance(outcome, Judged) else 0.0


def failed(outcome: PartOutcome) -> bool:
    """Whether a part's judgment is a failure for our figures (unreadable or over-counted)."""
    return outcome == FAILED or (isinstance(outcome, Judged) and outcome.over_counted)


def passes(claim: ClaimAverimatec, threshold: float = TASK.evidence_threshold) -> bool:
    """Whether the claim's evidence recall is above the gate."""
    return recall(claim.evidence) > threshold


@dataclass(frozen=True)
class AverimatecSummary:
    """A run's AVerImaTeC figures."""

    claims: int
    question_recall: Counted
    evidence_recall: Counted
    verdict_accuracy: Counted
    """Gated: a right verdict counts only above the evidence threshold (the AVerImaTeC score)."""
    justification_recall: Counted
    """Gated like the verdict."""
    plain_verdict_accuracy: float | None
    """Right verdicts over all claims, without the gate."""
    threshold: float = TASK.evidence_threshold


def _counted(values: Sequence[float], failures: Sequence[bool]) -> Counted:
    kept = [v for v, f in zip(values, failures) if not f]
    mean = lambda found: sum(found) / len(found) if found else None  # noqa: E731
    return Counted(mean(values), mean(kept), sum(failures), len(values))


def summarise(claims: Sequence[ClaimAverimatec], threshold: float = TASK.evidence_threshold) -> AverimatecSummary:
    """The run's figures from its claims' judged parts."""
    gate = [passes(c, threshold) for c in claims]
    evidence_failed = [failed(c.evidence) for c in claims]
    both_failed = [f or failed(c.justification) for f, c in zip(evidence_failed, claims)]
    return AverimatecSummary(
        claims=len(claims),
        question_recall=_counted([recall(c.questions) for c in claims], [failed(c.questions) for c in claims]),
        evidence_recall=_counted([recall(c.evidence) for c in claims], evidence_failed),
        verdict_accuracy=_counted([float(c.verdict_correct and g) for c, g in zip(claims, gate)], evidence_failed),
        justification_recall=_counted(
            [recall(c.justification) if g else 0.0 for c, g in zip(claims, gate)], both_failed
        ),
        plain_verdict_accuracy=sum(c.verdict_correct for c in claims) / len(claims) if claims else None,
        threshold=threshold,
    )
