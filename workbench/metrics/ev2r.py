"""Ev2R recall and the AVeriTeC 2025 score (FEVER-8): pure arithmetic on a judge's counts.

For each claim a judge splits the predicted and the reference evidence into atomic facts and
counts which facts of each side the other side supports, once for the questions only and once
for the question-answer pairs. Then

    precision = predicted facts supported / predicted facts
    recall    = reference facts supported / reference facts

and a claim scores 1 when its verdict is right and its Q+A recall is above the threshold
(0.5; the organisers' scorer compares with `>`, so exactly 0.5 scores 0).

The organisers' scorer counts a judge reply it cannot read as recall 0 and score 0, the same
as wrong evidence, and divides whatever counts it reads (a judge that supports more facts
than there are gives a recall above 1). Here a failed judgment is kept apart: `official`
figures count it as the scorer does (0 when unreadable, the uncapped share when
over-counted), `readable` figures leave those claims out, and the failure rate is given
beside them. A claim without predicted evidence is a real 0, not a failure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

THRESHOLD = 0.5
"""The Q+A recall a claim must exceed for its right verdict to count (the 2025 task's level)."""
MAX_PAIRS = 10
"""Predicted question-answer pairs the task reads per claim; later ones are dropped."""


@dataclass(frozen=True)
class FactCounts:
    """What the judge counted for one claim and one part (questions, or question-answer pairs)."""

    predicted_facts: int
    predicted_supported: int
    """Predicted facts the reference evidence supports."""
    reference_facts: int
    reference_supported: int
    """Reference facts the predicted evidence supports."""

    @property
    def precision(self) -> float:
        return self.predicted_supported / self.predicted_facts

    @property
    def recall(self) -> float:
        return self.reference_supported / self.reference_facts


@dataclass(frozen=True)
class OverCounted(FactCounts):
    """Counts with more facts supported than there are: a failure for our figures, while the
    organisers' scorer divides them anyway (a share above 1)."""


NO_EVIDENCE = "no evidence"
"""A part's outcome when the claim has no predicted evidence: recall 0, nothing to judge."""
FAILED = "failed"
"""A part's outcome when the judge gave no readable counts (after its retries)."""

PartOutcome = FactCounts | str


@dataclass(frozen=True)
class ClaimEv2r:
    """One claim's judged parts and whether its verdict was right."""

    verdict_correct: bool
    questions: PartOutcome
    pairs: PartOutcome


def part_recall(outcome: PartOutcome) -> float:
    """The recall a part contributes as the organisers count it: an unreadable reply and no
    evidence are 0, over-counted facts give their uncapped share."""
    return outcome.recall if isinstance(outcome, FactCounts) else 0.0


def failed(outcome: PartOutcome) -> bool:
    """Whether the judgment is a failure for our figures (unreadable, or over-counted)."""
    return outcome == FAILED or isinstance(outcome, OverCounted)


def _readable(outcome: PartOutcome) -> bool:
    return isinstance(outcome, FactCounts) and not isinstance(outcome, OverCounted)


def claim_score(claim: ClaimEv2r, threshold: float = THRESHOLD) -> float:
    """1.0 when the verdict is right and the Q+A recall is above the threshold, else 0.0."""
    return 1.0 if claim.verdict_correct and part_recall(claim.pairs) > threshold else 0.0


@dataclass(frozen=True)
class Counted:
    """One figure counted both ways, with the failures between them."""

    official: float | None
    """Mean over every claim, a failed judgment counted as the organisers' scorer counts it."""
    readable: float | None
    """Mean over the claims with a readable judgment (failures left out)."""
    failures: int
    claims: int

    @property
    def failure_rate(self) -> float | None:
        return self.failures / self.claims if self.claims else None


@dataclass(frozen=True)
class Ev2rSummary:
    """A run's Ev2R figures and its AVeriTeC 2025 score."""

    claims: int
    question_recall: Counted
    pair_recall: Counted
    score: Counted
    question_precision: float | None
    """Mean over readable judgments of claims with evidence (precision is undefined without)."""
    pair_precision: float | None
    verdict_accuracy: float | None
    no_evidence: int
    """Claims whose prediction carries no evidence (recall 0 for them, no judge asked)."""
    threshold: float = THRESHOLD


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _counted(values: Sequence[float], failed: Sequence[bool]) -> Counted:
    kept = [v for v, f in zip(values, failed) if not f]
    return Counted(_mean(values), _mean(kept), sum(failed), len(values))


def summarise(claims: Sequence[ClaimEv2r], threshold: float = THRESHOLD) -> Ev2rSummary:
    """The run's figures from its claims' judged parts."""
    q_failed = [failed(c.questions) for c in claims]
    qa_failed = [failed(c.pairs) for c in claims]
    return Ev2rSummary(
        claims=len(claims),
        question_recall=_counted([part_recall(c.questions) for c in claims], q_failed),
        pair_recall=_counted([part_recall(c.pairs) for c in claims], qa_failed),
        score=_counted([claim_score(c, threshold) for c in claims], qa_failed),
        question_precision=_mean([c.questions.precision for c in claims if _readable(c.questions)]),
        pair_precision=_mean([c.pairs.precision for c in claims if _readable(c.pairs)]),
        verdict_accuracy=_mean([float(c.verdict_correct) for c in claims]),
        no_evidence=sum(c.pairs == NO_EVIDENCE for c in claims),
        threshold=threshold,
    )
