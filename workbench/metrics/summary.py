"""One run's (or one slice's) scores in a single read-only record."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from workbench.metrics.confusion import (
    Confusion,
    OutcomeCoder,
    accuracy,
    macro_f1,
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


def summarise_counts(
    confusion: Confusion, errors: int = 0, missing: int = 0, excluded: int = 0
) -> MetricSummary:
    """Score a confusion count, plus the items that were not scored."""
    counts = confusion.counts
    precision, recall, f1, support = per_class(counts)
    abstain_col = confusion.abstain_column
    scored = confusion.scored
    attempted = scored + errors + missing
    return MetricSummary(
        classes=confusion.classes,
        abstain_label=confusion.abstain_label,
        scored=scored,
        correct=int(np.trace(counts[:, : len(confusion.classes)])),
        abstentions=int(counts[:, abstain_col].sum()) if abstain_col is not None else 0,
        parse_failures=int(counts[:, -1].sum()),
        errors=errors,
        missing=missing,
        excluded=excluded,
        accuracy=float(accuracy(counts)),
        macro_f1=float(macro_f1(counts)),
        mcc=float(mcc(counts)),
        unknown_rate=float(unknown_rate(counts, abstain_col)),
        parse_failure_rate=float(parse_failure_rate(counts)),
        error_rate=errors / attempted if attempted else np.nan,
        coverage=scored / attempted if attempted else np.nan,
        per_class=tuple(
            ClassScores(label, float(p), float(r), float(f), int(s))
            for label, p, r, f, s in zip(confusion.classes, precision, recall, f1, support)
        ),
        confusion=confusion,
        baselines=baselines(support, confusion.classes),
    )


def summarise_slot_counts(slot_counts: Sequence[int], coder: OutcomeCoder) -> MetricSummary:
    """Score a tally made with OutcomeCoder slots (live counters, panels)."""
    return summarise_counts(
        Confusion.from_slot_counts(slot_counts, coder),
        errors=int(slot_counts[coder.error_slot]),
        missing=int(slot_counts[coder.missing_slot]),
        excluded=int(slot_counts[coder.excluded_slot]),
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
