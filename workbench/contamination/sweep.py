"""Choosing tau against people's contamination labels.

Labels are manual flags: kind "contaminated" (a person judged the claim contaminated)
and kind "not-contaminated" (store.CHECKED_CLEAN: checked, not contaminated). For tau
from 0 to 1 in steps of 0.01 the pipeline's flag (s >= tau) is compared with the
labels of the scorable labelled claims; the agreement is the share that match
(accuracy). The best tau has the highest agreement; when several do, the widest run of
neighbouring tied taus is reported and its middle chosen.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from store import CHECKED_CLEAN, Store
from workbench.contamination.flagging import CONTAMINATED

STEPS = 100  # tau = 0.00, 0.01, ..., 1.00


@dataclass
class Labels:
    """People's labels: claim id -> contaminated?, and claims labelled both ways."""

    by_claim: dict[int, bool]
    conflicting: list[int] = field(default_factory=list)


@dataclass
class SweepResult:
    taus: list[float]
    agreement: list[float]
    labelled: int
    """Scorable claims with a label (the denominator)."""
    positives: int
    best_tau: float
    best_agreement: float
    tied: tuple[float, float]
    """The run of neighbouring taus that share the best agreement (lowest, highest)."""
    other_ties: int
    """Best-agreement taus outside that run."""
    confusion: dict[str, int]
    """At the best tau: flagged_contaminated, flagged_clean, missed_contaminated, passed_clean."""

    @property
    def is_tie(self) -> bool:
        return self.tied[0] != self.tied[1] or self.other_ties > 0

    def to_dict(self) -> dict:
        return {**self.__dict__, "tied": list(self.tied), "table": [
            {"tau": t, "agreement": a} for t, a in zip(self.taus, self.agreement)]}


def manual_labels(store: Store) -> Labels:
    """Manual contaminated / not-contaminated flags; a claim with both is left out."""
    positive = store.annotations.flagged_claim_ids(CONTAMINATED, source="manual")
    negative = store.annotations.flagged_claim_ids(CHECKED_CLEAN, source="manual")
    both = positive & negative
    labels = {claim_id: True for claim_id in positive - both}
    labels.update({claim_id: False for claim_id in negative - both})
    return Labels(labels, sorted(both))


def sweep(scores: dict[int, float], labels: dict[int, bool]) -> SweepResult:
    """Agreement of (s >= tau) with the labels for every tau on the 0.01 grid."""
    judged = [(scores[c], label) for c, label in labels.items() if c in scores]
    if not judged:
        raise ValueError("no labelled claim has a score")
    taus = [i / STEPS for i in range(STEPS + 1)]
    agreement = [sum((s >= tau) == label for s, label in judged) / len(judged) for tau in taus]
    low, high, others = _best_run(agreement)
    middle = (low + high) // 2
    best = taus[middle]
    return SweepResult(taus, agreement, len(judged), sum(label for _, label in judged), best, agreement[middle],
                       (taus[low], taus[high]), others, _confusion(judged, best))


def _best_run(agreement: list[float]) -> tuple[int, int, int]:
    """(first, last) index of the widest run of best values, and how many best lie outside."""
    top = max(agreement)
    best = [i for i, a in enumerate(agreement) if a == top]
    runs: list[list[int]] = []
    for index in best:
        if runs and index == runs[-1][1] + 1:
            runs[-1][1] = index
        else:
            runs.append([index, index])
    low, high = max(runs, key=lambda run: run[1] - run[0])  # the first (lowest) of equally wide runs
    return low, high, len(best) - (high - low + 1)


def _confusion(judged: list[tuple[float, bool]], tau: float) -> dict[str, int]:
    counts = {"flagged_contaminated": 0, "flagged_clean": 0, "missed_contaminated": 0, "passed_clean": 0}
    for score, label in judged:
        flagged = score >= tau
        key = ("flagged_" if flagged else ("missed_" if label else "passed_")) + (
            "contaminated" if label else "clean")
        counts[key] += 1
    return counts
