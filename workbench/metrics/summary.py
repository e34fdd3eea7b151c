"""One run's (or one slice's) scores in a single read-only record."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from workbench.metrics.confusion import (
    Confusion,
    OutcomeCoder,
    accuracy,
    mcc,
    parse_failure_rate,
    per_class,
    unknown_rate,
)


@dataclass(frozen=True)
class ClassScores:
    """Precision, recall, F1 and support (gold items) of one gold class."""

    label: str
    precision: float
    recall: float
    f1: float
    support: int


@dataclass(frozen=True)
class Baselines:
    """What chance-level fact-checkers would score on the same gold distribution."""

    uniform_accuracy: float
    uniform_macro_f1: float
    majority_class: str | None
    majority_accuracy: float
    majority_macro_f1: float


def baselines(gold_counts: Sequence[int], classes: Sequence[str]) -> Baselines:
    """Uniform-random and always-majority baselines for these gold class counts.

    Uniform: each class predicted with probability 1/K, so class k's expected precision
    is its gold share p_k and its recall 1/K (large-sample values). Majority: always the
    most frequent class (first in class order on ties). NaN when there are no items.
    """
    counts = np.asarray(gold_counts, dtype=np.float64)
    k, total = len(classes), counts.sum()
    if total == 0:
        return Baselines(np.nan, np.nan, None, np.nan, np.nan)
    shares = counts / total
    denominators = shares + 1.0 / k
    uniform_f1 = 2.0 * shares * (1.0 / k) / denominators
    top = int(np.argmax(counts))
    p_max = float(shares[top])
    return Baselines(
        uniform_accuracy=1.0 / k,
        uniform_macro_f1=float(uniform_f1.mean()),
        majority_class=classes[top],
        majority_accuracy=p_max,
        majority_macro_f1=(2.0 * p_max / (1.0 + p_max)) / k,
    )


@dataclass(frozen=True)
class MetricSummary:
    """Every score the workbench shows for a run or slice.

    Rates over scored items are NaN when nothing is scored; MCC is 0.0 when undefined
    (as scikit-learn returns).
    """

    classes: tuple[str, ...]
    abstain_label: str | None
    scored: int
    correct: int
    abstentions: int
    parse_failures: int
    errors: int
    missing: int
    excluded: int
    accuracy: float
    macro_f1: float
    mcc: float
    unknown_rate: float
    parse_failure_rate: float
    error_rate: float
    coverage: float
    per_class: tuple[ClassScores, ...]
    confusion: Confusion
    baselines: Baselines

    def for_class(self, label: str) -> ClassScores:
        """The scores of one gold class."""
        return self.per_class[self.classes.index(label)]


def summarise_counts(confusion: Confusion, errors: int = 0, missing: int = 0, excluded: int = 0) -> MetricSummary:
    """Score a confusion count, plus the items that were not scored."""
    return _summaries(confusion.counts[np.newaxis], [confusion], [(errors, missing, excluded)])[0]


def summarise_slot_counts(slot_counts: Sequence[int], coder: OutcomeCoder) -> MetricSummary:
    """Score a tally made with OutcomeCoder slots (live counters, panels)."""
    return summarise_slot_tallies(np.asarray(slot_counts)[np.newaxis], coder)[0]


def summarise_slot_tallies(tallies: np.ndarray, coder: OutcomeCoder) -> list[MetricSummary]:
    """summarise_slot_counts for a stack of tallies (one row per slice), scored at once."""
    tallies = np.asarray(tallies, dtype=np.int64)
    k, m = len(coder.classes), len(coder.columns)
    counts = tallies[:, : k * m].reshape(len(tallies), k, m)
    confusions = [Confusion(coder.classes, coder.abstain_label, c) for c in counts]
    others = tallies[:, [coder.error_slot, coder.missing_slot, coder.excluded_slot]].tolist()
    return _summaries(counts, confusions, others)


def _summaries(counts: np.ndarray, confusions: list[Confusion], others: list) -> list[MetricSummary]:
    """Every score of each (K, M) count in the stack `counts`; others: (errors, missing,
    excluded) per count."""
    if not confusions:
        return []
    first = confusions[0]
    classes, abstain_col = first.classes, first.abstain_column
    precision, recall, f1, support = per_class(counts)
    no_abstain = abstain_col is None
    columns = {
        "scored": counts.sum((-2, -1)),
        "correct": np.diagonal(counts[:, :, : len(classes)], axis1=-2, axis2=-1).sum(-1),
        "abstentions": np.zeros(len(counts), np.int64) if no_abstain else counts[:, :, abstain_col].sum(-1),
        "parse_failures": counts[:, :, -1].sum(-1),
        "accuracy": accuracy(counts),
        "macro_f1": f1.mean(-1),  # what macro_f1(counts) computes, without a second per_class
        "mcc": mcc(counts),
        "unknown_rate": unknown_rate(counts, abstain_col),
        "parse_failure_rate": parse_failure_rate(counts),
    }
    rows = [dict(zip(columns, values)) for values in zip(*(c.tolist() for c in columns.values()))]
    per_class_rows = zip(precision.tolist(), recall.tolist(), f1.tolist(), support.tolist())
    return [
        _summary(confusion, row, other, scores)
        for confusion, row, other, scores in zip(confusions, rows, others, per_class_rows)
    ]


def _summary(confusion: Confusion, row: dict, other: Sequence[int], scores: tuple) -> MetricSummary:
    errors, missing, excluded = (int(n) for n in other)
    attempted = row["scored"] + errors + missing
    precision, recall, f1, support = scores
    return MetricSummary(
        classes=confusion.classes,
        abstain_label=confusion.abstain_label,
        errors=errors,
        missing=missing,
        excluded=excluded,
        error_rate=errors / attempted if attempted else np.nan,
        coverage=row["scored"] / attempted if attempted else np.nan,
        per_class=tuple(map(ClassScores, confusion.classes, precision, recall, f1, support)),
        confusion=confusion,
        baselines=baselines(support, confusion.classes),
        **row,
    )


def summarise(
    gold: Iterable[str],
    predicted: Iterable[str],
    classes: Sequence[str],
    abstain_label: str | None = None,
    errors: int = 0,
    missing: int = 0,
    excluded: int = 0,
) -> MetricSummary:
    """Score paired gold labels and predicted values.

    A prediction is a gold class, the abstain label, or PARSE_FAILURE. Items whose
    prediction is API_ERROR or MISSING, and items whose gold label is outside the
    classes, are counted (added to errors / missing / excluded) but not scored.
    """
    coder = OutcomeCoder(classes, abstain_label)
    tally = np.bincount(coder.slots(gold, predicted), minlength=coder.slot_count)
    tally[coder.error_slot] += errors
    tally[coder.missing_slot] += missing
    tally[coder.excluded_slot] += excluded
    return summarise_slot_counts(tally, coder)
