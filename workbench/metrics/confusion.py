"""Confusion counts and the metric formulas computed from them.

A confusion matrix here has one row per gold class and one column per predicted value:
the gold classes (same order as the rows), then the abstain label if the dataset has
one, then PARSE_FAILURE last. Every formula takes an integer array of shape (..., K, M),
so the same code scores one run or a stack of bootstrap resamples.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

PARSE_FAILURE = "<parse failure>"
"""The predicted value for an answer whose verdict could not be read."""

API_ERROR = "<api error>"
"""An outcome, not a prediction: the model call failed. Lowers coverage, not scored."""

MISSING = "<missing>"
"""An outcome, not a prediction: no answer recorded yet. Lowers coverage, not scored."""


def predicted_values(classes: Sequence[str], abstain_label: str | None) -> tuple[str, ...]:
    """The confusion matrix's columns: the classes, the abstain label if any, PARSE_FAILURE."""
    abstain = (abstain_label,) if abstain_label is not None else ()
    return (*classes, *abstain, PARSE_FAILURE)


def _check_label_space(classes: Sequence[str], abstain_label: str | None) -> None:
    if len(classes) < 1:
        raise ValueError("a label space needs at least one gold class")
    if len(set(classes)) != len(classes):
        raise ValueError(f"gold classes repeat a name: {list(classes)}")
    if abstain_label in classes:
        raise ValueError(f"abstain label {abstain_label!r} is also a gold class")


class OutcomeCoder:
    """Turns (gold, outcome) pairs into slot numbers for counting.

    Slots 0 .. K*M-1 are confusion cells (row-major); then one slot each for API errors,
    missing predictions and items whose gold label is outside the classes ("excluded").
    Live counters and batch panels share this so both count the same way.
    """

    def __init__(self, classes: Sequence[str], abstain_label: str | None = None):
        _check_label_space(classes, abstain_label)
        self.classes = tuple(classes)
        self.abstain_label = abstain_label
        self.columns = predicted_values(self.classes, abstain_label)
        cells = len(self.classes) * len(self.columns)
        self.error_slot, self.missing_slot, self.excluded_slot = cells, cells + 1, cells + 2
        self.slot_count = cells + 3
        self._slots: dict[tuple[str, str], int] = {}
        for row, gold in enumerate(self.classes):
            for col, pred in enumerate(self.columns):
                self._slots[gold, pred] = row * len(self.columns) + col
            self._slots[gold, API_ERROR] = self.error_slot
            self._slots[gold, MISSING] = self.missing_slot

    def slot(self, gold: str, outcome: str) -> int:
        """The slot for one item; ValueError for an outcome outside the label space."""
        found = self._slots.get((gold, outcome))
        if found is not None:
            return found
        if gold not in self.classes:
            return self.excluded_slot
        raise ValueError(
            f"prediction {outcome!r} is not one of {list(self.columns)} (an unreadable answer should be PARSE_FAILURE)"
        )

    def slots(self, gold: Iterable[str], outcomes: Iterable[str]) -> np.ndarray:
        """Slot numbers for paired lists (must be the same length)."""
        gold, outcomes = list(gold), list(outcomes)
        if len(gold) != len(outcomes):
            raise ValueError(f"{len(gold)} gold labels but {len(outcomes)} predictions")
        found = list(map(self._slots.get, zip(gold, outcomes)))  # one dict lookup per item
        if None in found:  # excluded gold labels, or an outcome to complain about
            found = [self.slot(g, o) if s is None else s for s, g, o in zip(found, gold, outcomes)]
        return np.array(found, dtype=np.int64)


@dataclass(frozen=True, eq=False)
class Confusion:
    """Counts of (gold class, predicted value) for one run or slice; read-only."""

    classes: tuple[str, ...]
    abstain_label: str | None
    counts: np.ndarray  # shape (K, M), int64

    def __post_init__(self):
        counts = np.array(self.counts, dtype=np.int64)
        shape = (len(self.classes), len(self.columns))
        if counts.shape != shape:
            raise ValueError(f"confusion counts have shape {counts.shape}, expected {shape}")
        counts.setflags(write=False)
        object.__setattr__(self, "counts", counts)

    @property
    def columns(self) -> tuple[str, ...]:
        """The predicted values, in column order."""
        return predicted_values(self.classes, self.abstain_label)

    @property
    def abstain_column(self) -> int | None:
        """Column index of the abstain label, or None when the dataset has none."""
        return len(self.classes) if self.abstain_label is not None else None

    @property
    def scored(self) -> int:
        """Number of scored items."""
        return int(self.counts.sum())

    def count(self, gold: str, predicted: str) -> int:
        """How many items of this gold class got this predicted value."""
        return int(self.counts[self.classes.index(gold), self.columns.index(predicted)])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Confusion):
            return NotImplemented
        return (
            self.classes == other.classes
            and self.abstain_label == other.abstain_label
            and np.array_equal(self.counts, other.counts)
        )

    __hash__ = None  # type: ignore[assignment]

    @classmethod
    def from_labels(
        cls, gold: Iterable[str], predicted: Iterable[str], classes: Sequence[str], abstain_label: str | None = None
    ) -> Confusion:
        """Count paired labels. Gold labels outside the classes are skipped (not scored)."""
        coder = OutcomeCoder(classes, abstain_label)
        slots = coder.slots(gold, predicted)
        if np.any((slots == coder.error_slot) | (slots == coder.missing_slot)):
            raise ValueError("API errors and missing predictions are not scored items")
        return cls.from_slot_counts(np.bincount(slots, minlength=coder.slot_count), coder)

    @classmethod
    def from_slot_counts(cls, slot_counts: Sequence[int], coder: OutcomeCoder) -> Confusion:
        """Build from an OutcomeCoder's slot tally (the non-confusion slots are ignored)."""
        cells = len(coder.classes) * len(coder.columns)
        counts = np.asarray(slot_counts[:cells], dtype=np.int64)
        return cls(coder.classes, coder.abstain_label, counts.reshape(len(coder.classes), -1))

    @classmethod
    def empty(cls, classes: Sequence[str], abstain_label: str | None = None) -> Confusion:
        """No items yet."""
        width = len(predicted_values(classes, abstain_label))
        return cls(tuple(classes), abstain_label, np.zeros((len(classes), width), np.int64))


# ---- formulas on (..., K, M) count arrays -------------------------------------------


def _divide(numerator: np.ndarray, denominator: np.ndarray, empty: float) -> np.ndarray:
    """numerator / denominator, with `empty` where the denominator is 0."""
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    safe = np.where(denominator == 0, 1.0, denominator)
    return np.where(denominator == 0, empty, numerator / safe)


def _true_positives(counts: np.ndarray) -> np.ndarray:
    k = counts.shape[-2]
    return np.diagonal(counts[..., :, :k], axis1=-2, axis2=-1)


def accuracy(counts: np.ndarray) -> np.ndarray:
    """Share of scored items predicted as their gold class (NaN with no items)."""
    counts = np.asarray(counts)
    return _divide(_true_positives(counts).sum(-1), counts.sum((-2, -1)), np.nan)


def per_class(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Precision, recall, F1 and support per gold class, shape (..., K) each.

    Abstentions and parse failures are wrong answers for their row's class and never a
    positive for any class; 0/0 counts as 0 (scikit-learn's zero_division=0).
    """
    counts = np.asarray(counts)
    k = counts.shape[-2]
    tp = _true_positives(counts)
    support = counts.sum(-1)
    predicted_as = counts[..., :, :k].sum(-2)
    precision = _divide(tp, predicted_as, 0.0)
    recall = _divide(tp, support, 0.0)
    # 2tp / (support + predicted_as) is how scikit-learn computes F1; same rounding.
    f1 = _divide(2.0 * tp, support + predicted_as, 0.0)
    return precision, recall, f1, support


def macro_f1(counts: np.ndarray) -> np.ndarray:
    """Unweighted mean of the per-class F1 over all gold classes."""
    return per_class(counts)[2].mean(-1)


def mcc(counts: np.ndarray) -> np.ndarray:
    """Multi-class Matthews correlation (scikit-learn's formula); 0.0 when undefined."""
    counts = np.asarray(counts)
    k = counts.shape[-2]
    t_sum = counts.sum(-1, dtype=np.float64)
    p_sum = counts.sum(-2, dtype=np.float64)
    n = t_sum.sum(-1)
    correct = _true_positives(counts).sum(-1, dtype=np.float64)
    # Only the class columns can meet a gold row; abstain/parse columns add to p.p only.
    cov_tp = correct * n - (t_sum * p_sum[..., :k]).sum(-1)
    cov_pp = n**2 - (p_sum * p_sum).sum(-1)
    cov_tt = n**2 - (t_sum * t_sum).sum(-1)
    product = cov_pp * cov_tt
    safe = np.where(product == 0, 1.0, product)
    return np.where(product == 0, 0.0, cov_tp / np.sqrt(safe))


def unknown_rate(counts: np.ndarray, abstain_column: int | None) -> np.ndarray:
    """Abstentions / scored items (0 for a dataset without an abstain label)."""
    counts = np.asarray(counts)
    total = counts.sum((-2, -1))
    if abstain_column is None:
        return _divide(np.zeros_like(total), total, np.nan)
    return _divide(counts[..., abstain_column].sum(-1), total, np.nan)


def parse_failure_rate(counts: np.ndarray) -> np.ndarray:
    """Parse failures (the last column) / scored items."""
    counts = np.asarray(counts)
    return _divide(counts[..., -1].sum(-1), counts.sum((-2, -1)), np.nan)
