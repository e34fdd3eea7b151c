"""Choosing tau against people's contamination labels.

Labels are manual flags: kind "contaminated" (a person judged the claim contaminated)
and kind "not-contaminated" (store.CHECKED_CLEAN: checked, not contaminated). For tau
from 0 to 1 in steps of 0.01 the pipeline's flag (s >= tau) is compared with the
labels of the scorable labelled claims; the agreement is the share that match
(accuracy). The best tau has the highest agreement; when several do, the widest run of
neighbouring tied taus is reported and its middle chosen. At the best tau, Cohen's kappa
of flag against label (chance-corrected, from the same agreement code as triage); and
when two or more people labelled the same claims, how far they agree with each other.

Each person's marks are their own (flags carry who made them): a claim one person marked
contaminated and another clean is left out of the sweep as conflicting, and counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from store import CHECKED_CLEAN, Store
from workbench.contamination.flagging import CONTAMINATED
from workbench.metrics.agreement import MISSING, Estimate, cohen_kappa
from workbench.metrics.triage_agreement import LabelMatrix, TriageAgreement, triage_agreement

STEPS = 100  # tau = 0.00, 0.01, ..., 1.00


@dataclass
class Labels:
    """People's labels: claim id -> contaminated?, and claims labelled both ways."""

    by_claim: dict[int, bool]
    conflicting: list[int] = field(default_factory=list)
    by_person: dict[str, dict[int, bool]] = field(default_factory=dict)
    """Each person's own labels (a claim they marked both ways left out of theirs)."""


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
    kappa: Estimate | None = None
    """Cohen's kappa of the flag at the best tau against people's labels."""

    @property
    def is_tie(self) -> bool:
        return self.tied[0] != self.tied[1] or self.other_ties > 0

    def to_dict(self) -> dict:
        k = self.kappa
        return {
            **self.__dict__,
            "tied": list(self.tied),
            "table": [{"tau": t, "agreement": a} for t, a in zip(self.taus, self.agreement)],
            "kappa": None if k is None else {"value": k.value, "low": k.low, "high": k.high, "undefined": k.undefined},
        }


def manual_labels(store: Store) -> Labels:
    """Manual contaminated / not-contaminated flags; a claim with both is left out."""
    positive = store.annotations.flagged_claim_ids(CONTAMINATED, source="manual")
    negative = store.annotations.flagged_claim_ids(CHECKED_CLEAN, source="manual")
    both = positive & negative
    labels = {claim_id: True for claim_id in positive - both}
    labels.update({claim_id: False for claim_id in negative - both})
    marks: dict[str, dict[int, set[bool]]] = {}
    for claim_id, who, kind in store.annotations.manual_marks([CONTAMINATED, CHECKED_CLEAN]):
        marks.setdefault(who, {}).setdefault(claim_id, set()).add(kind == CONTAMINATED)
    by_person = {who: {c: next(iter(v)) for c, v in claims.items() if len(v) == 1} for who, claims in marks.items()}
    return Labels(labels, sorted(both), by_person)


def people_agreement(labels: Labels, resamples: int = 1000, seed: int = 0) -> TriageAgreement:
    """How far the people who labelled contamination agree, on the claims two or more of
    them labelled (contaminated as one yes/no category; the triage agreement code)."""
    names = sorted(labels.by_person)
    claims = sorted({c for person in labels.by_person.values() for c in person})
    masks = np.full((len(claims), len(names)), MISSING, dtype=np.int64)
    row = {c: i for i, c in enumerate(claims)}
    for column, name in enumerate(names):
        for claim_id, contaminated in labels.by_person[name].items():
            masks[row[claim_id], column] = int(contaminated)
    return triage_agreement(
        LabelMatrix(names, [CONTAMINATED], masks, np.array(claims, dtype=np.int64)), resamples, seed
    )


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
    confusion = _confusion(judged, best)
    return SweepResult(
        taus,
        agreement,
        len(judged),
        sum(label for _, label in judged),
        best,
        agreement[middle],
        (taus[low], taus[high]),
        others,
        confusion,
        _kappa(confusion),
    )


def _kappa(c: dict[str, int]) -> Estimate:
    """Cohen's kappa of people's label (rows) against the flag (columns) at the best tau."""
    table = np.array([[c["flagged_contaminated"], c["missed_contaminated"]], [c["flagged_clean"], c["passed_clean"]]])
    return cohen_kappa(table)


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
        key = ("flagged_" if flagged else ("missed_" if label else "passed_")) + ("contaminated" if label else "clean")
        counts[key] += 1
    return counts
