"""Confidence intervals and run-vs-run tests by resampling items.

The bootstrap is vectorised: one matrix of resampled item indices, and one bincount
over (resample, confusion cell) numbers gives every resample's confusion matrix at once.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import binomtest

from workbench.metrics.confusion import OutcomeCoder, accuracy, macro_f1

MetricOfCounts = Callable[[np.ndarray], np.ndarray]
"""A metric of a (..., K, M) confusion stack, e.g. accuracy or macro_f1."""

DEFAULT_METRICS: Mapping[str, MetricOfCounts] = {"accuracy": accuracy, "macro_f1": macro_f1}

# Resamples drawn per block: bounds the index matrix's memory on big runs. Part of
# the reproducibility contract (a different block size draws a different stream).
_BLOCK = 250

# Deltas that should tie with the observed one can differ in the last bits.
_TIE_SLACK = 1e-12


@dataclass(frozen=True)
class Interval:
    """A point estimate and its percentile bootstrap interval."""

    estimate: float
    low: float
    high: float


@dataclass(frozen=True)
class PairedComparison:
    """Metric of run B minus run A on the same items, its interval and two-sided p."""

    delta: float
    low: float
    high: float
    p_value: float


@dataclass(frozen=True)
class McNemarResult:
    """b = items A got right and B wrong, c = the reverse; exact two-sided p."""

    b: int
    c: int
    p_value: float


@dataclass(frozen=True)
class Corrections:
    """How B changes A's answers: CoR = share of A's wrong items that B gets right."""

    correction_rate: float | None
    a_wrong: int
    a_right_b_wrong: list[Hashable]
    a_wrong_b_right: list[Hashable]


def _cells(gold, predicted, coder: OutcomeCoder) -> np.ndarray:
    """Confusion-cell numbers of scored items; gold outside the classes is dropped."""
    slots = coder.slots(gold, predicted)
    if np.any((slots == coder.error_slot) | (slots == coder.missing_slot)):
        raise ValueError("API errors and missing predictions are not scored items")
    return slots[slots != coder.excluded_slot]


def resampled_confusions(
    cells: np.ndarray, shape: tuple[int, int], resamples: int, seed: int
) -> np.ndarray:
    """Bootstrap confusion stack (resamples, K, M) from per-item confusion-cell numbers."""
    return _resample_many([cells], shape, resamples, seed)[0]


def _resample_many(
    cell_arrays: Sequence[np.ndarray], shape: tuple[int, int], resamples: int, seed: int
) -> list[np.ndarray]:
    """Resample items once and count each run's cells on the same draw (for pairing)."""
    n = len(cell_arrays[0])
    if n == 0:
        raise ValueError("cannot resample an empty set of items")
    rng = np.random.default_rng(seed)
    width = shape[0] * shape[1]
    stacks = [np.empty((resamples, *shape), dtype=np.int64) for _ in cell_arrays]
    for start in range(0, resamples, _BLOCK):
        rows = min(_BLOCK, resamples - start)
        picks = rng.integers(0, n, size=(rows, n))
        # One bincount per run: cell + width * resample row keeps resamples apart.
        offsets = (np.arange(rows) * width)[:, None]
        for cells, stack in zip(cell_arrays, stacks):
            flat = np.bincount((cells[picks] + offsets).ravel(), minlength=rows * width)
            stack[start : start + rows] = flat.reshape(rows, *shape)
    return stacks


def _percentiles(values: np.ndarray, level: float) -> tuple[float, float]:
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(values, [tail, 100.0 - tail])
    return float(low), float(high)


def bootstrap_cis(
    gold: Sequence[str],
    predicted: Sequence[str],
    classes: Sequence[str],
    abstain_label: str | None = None,
    metrics: Mapping[str, MetricOfCounts] = DEFAULT_METRICS,
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> dict[str, Interval]:
    """Percentile bootstrap intervals (95% by default) for each named metric.

    The same seed gives the same intervals. Gold labels outside the classes are dropped.
    """
    coder = OutcomeCoder(classes, abstain_label)
    cells = _cells(gold, predicted, coder)
    shape = (len(coder.classes), len(coder.columns))
    return bootstrap_cis_from_cells(cells, shape, metrics, resamples, seed, level)


def bootstrap_cis_from_cells(
    cells: np.ndarray,
    shape: tuple[int, int],
    metrics: Mapping[str, MetricOfCounts] = DEFAULT_METRICS,
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> dict[str, Interval]:
    """`bootstrap_cis` for items already coded as confusion-cell numbers (row * M + col).

    Same draws as `bootstrap_cis` for the same items, seed and resamples.
    """
    cells = np.asarray(cells, dtype=np.int64)
    observed = np.bincount(cells, minlength=shape[0] * shape[1]).reshape(shape)
    stack = resampled_confusions(cells, shape, resamples, seed)
    result = {}
    for name, metric in metrics.items():
        low, high = _percentiles(metric(stack), level)
        result[name] = Interval(float(metric(observed)), low, high)
    return result


def paired_bootstrap(
    gold: Sequence[str],
    predicted_a: Sequence[str],
    predicted_b: Sequence[str],
    classes: Sequence[str],
    abstain_label: str | None = None,
    metric: MetricOfCounts = macro_f1,
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> PairedComparison:
    """Paired bootstrap of metric(B) - metric(A) over the same items.

    p = share of resampled deltas, centred on the observed delta, at least as far from
    zero as the observed delta (two-sided). Identical runs give delta 0 and p = 1.
    """
    if not len(gold) == len(predicted_a) == len(predicted_b):
        raise ValueError("both runs must cover the same items as the gold labels")
    coder = OutcomeCoder(classes, abstain_label)
    cells_a, cells_b = _cells(gold, predicted_a, coder), _cells(gold, predicted_b, coder)
    shape = (len(coder.classes), len(coder.columns))
    return paired_bootstrap_from_cells(cells_a, cells_b, shape, metric, resamples, seed, level)


def paired_bootstrap_from_cells(
    cells_a: np.ndarray,
    cells_b: np.ndarray,
    shape: tuple[int, int],
    metric: MetricOfCounts = macro_f1,
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> PairedComparison:
    """`paired_bootstrap` for two runs' confusion-cell numbers on the same items, in order."""
    cells_a = np.asarray(cells_a, dtype=np.int64)
    cells_b = np.asarray(cells_b, dtype=np.int64)
    if len(cells_a) != len(cells_b):
        raise ValueError("both runs must cover the same items")
    size = shape[0] * shape[1]
    observed = metric(np.bincount(cells_b, minlength=size).reshape(shape)) - metric(
        np.bincount(cells_a, minlength=size).reshape(shape)
    )
    delta = float(observed)
    stack_a, stack_b = _resample_many([cells_a, cells_b], shape, resamples, seed)
    deltas = metric(stack_b) - metric(stack_a)
    low, high = _percentiles(deltas, level)
    extreme = np.abs(deltas - delta) >= abs(delta) - _TIE_SLACK
    return PairedComparison(delta, low, high, float(extreme.mean()))


def _correctness(gold, predicted_a, predicted_b, classes):
    if not len(gold) == len(predicted_a) == len(predicted_b):
        raise ValueError("both runs must cover the same items as the gold labels")
    keep = [classes is None or g in classes for g in gold]
    right_a = [k and a == g for k, g, a in zip(keep, gold, predicted_a)]
    right_b = [k and b == g for k, g, b in zip(keep, gold, predicted_b)]
    return keep, right_a, right_b


def mcnemar(
    gold: Sequence[str],
    predicted_a: Sequence[str],
    predicted_b: Sequence[str],
    classes: Sequence[str] | None = None,
) -> McNemarResult:
    """McNemar's exact test of two runs' accuracy on the same items.

    With `classes`, items whose gold label is outside them are left out.
    """
    keep, right_a, right_b = _correctness(gold, predicted_a, predicted_b, classes)
    b = sum(k and ra and not rb for k, ra, rb in zip(keep, right_a, right_b))
    c = sum(k and rb and not ra for k, ra, rb in zip(keep, right_a, right_b))
    return mcnemar_from_counts(b, c)


def mcnemar_from_counts(b: int, c: int) -> McNemarResult:
    """McNemar's exact test from the discordant counts: b = A right and B wrong, c = the
    reverse. p = two-sided binomial test of b against Binomial(b + c, 1/2); 1 when b + c = 0."""
    if b + c == 0:
        return McNemarResult(0, 0, 1.0)
    return McNemarResult(int(b), int(c), float(binomtest(int(b), int(b + c), 0.5).pvalue))


def corrections(
    item_ids: Sequence[Hashable],
    gold: Sequence[str],
    predicted_a: Sequence[str],
    predicted_b: Sequence[str],
    classes: Sequence[str] | None = None,
) -> Corrections:
    """Correction rate of B over A, and the item ids where the two runs disagree on
    correctness. CoR is None when A got nothing wrong."""
    if len(item_ids) != len(gold):
        raise ValueError(f"{len(item_ids)} item ids but {len(gold)} gold labels")
    keep, right_a, right_b = _correctness(gold, predicted_a, predicted_b, classes)
    rows = list(zip(item_ids, keep, right_a, right_b))
    a_wrong = sum(k and not ra for _, k, ra, _ in rows)
    fixed = [i for i, k, ra, rb in rows if k and rb and not ra]
    broken = [i for i, k, ra, rb in rows if k and ra and not rb]
    rate = len(fixed) / a_wrong if a_wrong else None
    return Corrections(rate, a_wrong, broken, fixed)
