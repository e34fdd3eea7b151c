"""Confidence intervals and run-vs-run tests by resampling items.

Resampling n scored items with replacement and counting them into a confusion matrix is
the same, in distribution, as drawing that matrix from the multinomial over the observed
cell shares; accuracy, macro-F1 and every metric here depend on the items only through
that matrix. So the bootstrap draws the matrices directly (one multinomial per resample
over the occupied cells; for two runs on the same items, over their joint cells), at a
cost independent of n. `resampled_confusions_by_items` keeps the item-level definition,
which the tests check the draw against by distribution and bench/ times as the baseline.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from workbench.metrics.confusion import OutcomeCoder, accuracy, macro_f1

MetricOfCounts = Callable[[np.ndarray], np.ndarray]
"""A metric of a (..., K, M) confusion stack, e.g. accuracy or macro_f1."""

DEFAULT_METRICS: Mapping[str, MetricOfCounts] = {"accuracy": accuracy, "macro_f1": macro_f1}

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


def resampled_confusions(counts: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """Bootstrap confusion stack (resamples, K, M) from one observed confusion matrix."""
    counts = np.asarray(counts, dtype=np.int64)
    return _draw_joint(counts.ravel(), [np.arange(counts.size)], counts.shape, resamples, seed)[0]


def _draw_joint(
    joint: np.ndarray, cell_of: Sequence[np.ndarray], shape: tuple[int, int], resamples: int, seed: int
) -> list[np.ndarray]:
    """Draw `resamples` multinomial count vectors over the joint cells, then fold them
    into one confusion stack per run (`cell_of[r][j]`: run r's cell of joint cell j)."""
    n = int(joint.sum())
    if n == 0:
        raise ValueError("cannot resample an empty set of items")
    occupied = np.flatnonzero(joint)  # empty cells stay empty; drawing them costs time only
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(n, joint[occupied] / n, size=resamples)
    size = shape[0] * shape[1]
    stacks = []
    for cells in cell_of:
        fold = np.zeros((len(occupied), size), dtype=np.int64)
        fold[np.arange(len(occupied)), cells[occupied]] = 1
        stacks.append((draws @ fold).reshape(resamples, *shape))
    return stacks


def resampled_confusions_by_items(cells: np.ndarray, shape: tuple[int, int], resamples: int, seed: int) -> np.ndarray:
    """The bootstrap by its definition: resample the items, count their cells. Cost
    resamples x n; the reference the multinomial draw is tested and benchmarked against."""
    cells = np.asarray(cells, dtype=np.int64)
    n, width = len(cells), shape[0] * shape[1]
    if n == 0:
        raise ValueError("cannot resample an empty set of items")
    rng = np.random.default_rng(seed)
    stack = np.empty((resamples, *shape), dtype=np.int64)
    for start in range(0, resamples, 250):  # bounds the index matrix's memory
        rows = min(250, resamples - start)
        picks = rng.integers(0, n, size=(rows, n))
        offsets = (np.arange(rows) * width)[:, None]  # keeps the resamples' counts apart
        flat = np.bincount((cells[picks] + offsets).ravel(), minlength=rows * width)
        stack[start : start + rows] = flat.reshape(rows, *shape)
    return stack


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
    """`bootstrap_cis` for items already coded as confusion-cell numbers (row * M + col)."""
    cells = np.asarray(cells, dtype=np.int64)
    observed = np.bincount(cells, minlength=shape[0] * shape[1]).reshape(shape)
    return bootstrap_cis_from_counts(observed, metrics, resamples, seed, level)


def bootstrap_cis_from_counts(
    counts: np.ndarray,
    metrics: Mapping[str, MetricOfCounts] = DEFAULT_METRICS,
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> dict[str, Interval]:
    """`bootstrap_cis` from the observed (K, M) confusion matrix alone (all it depends on).

    The same counts, seed and resamples give the same intervals.
    """
    observed = np.asarray(counts, dtype=np.int64)
    stack = resampled_confusions(observed, resamples, seed)
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
    joint = np.bincount(cells_a * size + cells_b, minlength=size * size)
    return paired_bootstrap_from_joint(joint.reshape(size, size), shape, metric, resamples, seed, level)


def paired_bootstrap_from_joint(
    joint: np.ndarray,
    shape: tuple[int, int],
    metric: MetricOfCounts = macro_f1,
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> PairedComparison:
    """`paired_bootstrap` from the joint counts: joint[i, j] = items in A's cell i and B's
    cell j (cells numbered row * M + col of the (K, M) confusion matrix).

    p = share of resampled deltas, centred on the observed delta, at least as far from
    zero as the observed delta (two-sided). Identical runs give delta 0 and p = 1.
    """
    delta, deltas = paired_deltas_from_joint(joint, shape, metric, resamples, seed)
    return paired_comparison(delta, deltas, level)


def paired_deltas_from_joint(
    joint: np.ndarray, shape: tuple[int, int], metric: MetricOfCounts, resamples: int, seed: int
) -> tuple[float, np.ndarray]:
    """The observed delta metric(B) - metric(A) and the resampled deltas of the paired
    bootstrap (what `paired_bootstrap_from_joint` summarises)."""
    joint = np.asarray(joint, dtype=np.int64)
    size = shape[0] * shape[1]
    counts_a, counts_b = joint.sum(axis=1).reshape(shape), joint.sum(axis=0).reshape(shape)
    delta = float(metric(counts_b) - metric(counts_a))
    flat = joint.ravel()
    stack_a, stack_b = _draw_joint(
        flat, [np.arange(flat.size) // size, np.arange(flat.size) % size], shape, resamples, seed
    )
    return delta, metric(stack_b) - metric(stack_a)


def paired_comparison(delta: float, deltas: np.ndarray, level: float = 0.95) -> PairedComparison:
    """The percentile interval of resampled deltas and the two-sided p of the observed one."""
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
    gold: Sequence[str], predicted_a: Sequence[str], predicted_b: Sequence[str], classes: Sequence[str] | None = None
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
    reverse. p = two-sided binomial test of b against Binomial(b + c, 1/2) (what
    scipy.stats.binomtest gives); 1 when b + c = 0."""
    b, c = int(b), int(c)
    if b == c:  # no evidence either way (b + c = 0 included)
        return McNemarResult(b, c, 1.0)
    return McNemarResult(b, c, min(1.0, 2.0 * _half_binomial_cdf(min(b, c), b + c)))


def _half_binomial_cdf(k: int, n: int) -> float:
    """P(X <= k) for X ~ Binomial(n, 1/2), k < n / 2: the largest term, P(X = k), times the
    sum of the ratios of each smaller term to it (they shrink fast; n may be in millions)."""
    below = np.arange(k, 0, -1, dtype=np.float64)  # i = k, k-1, ..., 1
    ratios = np.cumprod(below / (n - below + 1))  # P(X = i-1) / P(X = k)
    return math.exp(_log_half_pmf(k, n)) * (1.0 + float(ratios.sum()))


def _log_half_pmf(k: int, n: int) -> float:
    """log P(X = k) for X ~ Binomial(n, 1/2), by Loader's saddle-point form, which stays
    accurate to the last digits where differences of log-factorials in the millions do not."""
    if k == 0:
        return -n * math.log(2.0)
    half = n / 2.0
    return (
        _stirling_error(n)
        - _stirling_error(k)
        - _stirling_error(n - k)
        - _deviance(k, half)
        - _deviance(n - k, half)
        + 0.5 * math.log(n / (2.0 * math.pi * k * (n - k)))
    )


def _stirling_error(n: int) -> float:
    """log(n!) - log(sqrt(2 pi n) (n / e)^n)."""
    if n <= 15:
        return math.lgamma(n + 1.0) - (n + 0.5) * math.log(n) + n - 0.5 * math.log(2.0 * math.pi)
    squared = float(n) * n
    return (1.0 / 12 - (1.0 / 360 - (1.0 / 1260 - (1.0 / 1680) / squared) / squared) / squared) / n


def _deviance(x: float, mean: float) -> float:
    """x log(x / mean) + mean - x, without the cancellation when x is near the mean."""
    if abs(x - mean) >= 0.1 * (x + mean):
        return x * math.log(x / mean) + mean - x
    v = (x - mean) / (x + mean)
    total, term, j = (x - mean) * v, 2.0 * x * v, 1
    while True:
        term *= v * v
        following = total + term / (2 * j + 1)
        if following == total:
            return total
        total, j = following, j + 1


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
