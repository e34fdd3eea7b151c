"""Explanation quality (EQ): means of 0-10 judge scores, their intervals, paired
differences between runs, and agreement between two judges (or a judge and people).

A mean depends on the scores only through how many items took each distinct value, so the
bootstrap draws those counts from the multinomial over the observed shares, as the
confusion-matrix bootstrap does (workbench.metrics.resampling): the same estimator as
resampling the items, at a cost independent of their number.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from workbench.metrics.agreement import Estimate, cohen_kappa, pair_table
from workbench.metrics.resampling import PairedComparison

SCORE_BINS = 11
"""The EQ distribution: 0, 1, ..., 10 (a fractional score falls in its whole number's bin)."""
_TIE_SLACK = 1e-12


@dataclass(frozen=True)
class MeanInterval:
    """A mean score, its percentile bootstrap interval and how many scores it averages."""

    mean: float
    low: float
    high: float
    n: int


@dataclass(frozen=True)
class Agreement:
    """How two sets of scores of the same explanations agree."""

    n: int
    spearman: float | None
    """Spearman's rank correlation (ties get their average rank); None when either side is
    constant or fewer than two items are shared."""
    mean_abs_diff: float | None
    within_one: float | None
    """Share of items the two scores put at most 1 point apart."""
    weighted_kappa: Estimate | None = None
    """Cohen's kappa with quadratic weights over the scores given (the same code as people's
    agreement on categories, workbench.metrics.agreement), with its bootstrap interval."""


def mean_interval(
    scores: Sequence[float], resamples: int = 1000, seed: int = 0, level: float = 0.95
) -> MeanInterval | None:
    """The mean with a percentile bootstrap interval (None without scores; without
    resamples the interval is the mean itself)."""
    values = np.asarray(scores, dtype=np.float64)
    if len(values) == 0:
        return None
    mean = float(values.mean())
    if resamples <= 0:
        return MeanInterval(mean, mean, mean, len(values))
    distinct, counts = np.unique(values, return_counts=True)
    draws = np.random.default_rng(seed).multinomial(len(values), counts / len(values), size=resamples)
    means = draws @ distinct / len(values)
    low, high = _percentiles(means, level)
    return MeanInterval(mean, low, high, len(values))


def paired_mean_difference(
    a: Sequence[float], b: Sequence[float], resamples: int = 1000, seed: int = 0, level: float = 0.95
) -> PairedComparison | None:
    """mean(b) - mean(a) over the same items, its interval and two-sided p (the share of
    resampled differences, centred on the observed one, at least as far from zero)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if len(a) != len(b):
        raise ValueError("both runs' scores must be of the same items")
    if len(a) == 0:
        return None
    delta = float(b.mean() - a.mean())
    if resamples <= 0:
        return PairedComparison(delta, delta, delta, 1.0)
    pairs, counts = np.unique(np.stack([a, b], axis=1), axis=0, return_counts=True)
    draws = np.random.default_rng(seed).multinomial(len(a), counts / len(a), size=resamples)
    deltas = draws @ (pairs[:, 1] - pairs[:, 0]) / len(a)
    low, high = _percentiles(deltas, level)
    extreme = np.abs(deltas - delta) >= abs(delta) - _TIE_SLACK
    return PairedComparison(delta, low, high, float(extreme.mean()))


def independent_mean_difference(
    a: Sequence[float], b: Sequence[float], resamples: int = 1000, seed: int = 0, level: float = 0.95
) -> PairedComparison | None:
    """mean(b) - mean(a) for two separate groups, each resampled on its own (a multinomial
    over its distinct values); interval and two-sided p as for the paired tests."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if len(a) == 0 or len(b) == 0:
        return None
    delta = float(b.mean() - a.mean())
    if resamples <= 0:
        return PairedComparison(delta, delta, delta, 1.0)
    rng = np.random.default_rng(seed)
    means = []
    for values in (a, b):
        distinct, counts = np.unique(values, return_counts=True)
        means.append(rng.multinomial(len(values), counts / len(values), size=resamples) @ distinct / len(values))
    deltas = means[1] - means[0]
    low, high = _percentiles(deltas, level)
    extreme = np.abs(deltas - delta) >= abs(delta) - _TIE_SLACK
    return PairedComparison(delta, low, high, float(extreme.mean()))


def score_histogram(scores: Sequence[float]) -> list[int]:
    """How many scores fall in each whole point 0..10."""
    values = np.clip(np.floor(np.asarray(scores, dtype=np.float64)), 0, SCORE_BINS - 1).astype(np.int64)
    return np.bincount(values, minlength=SCORE_BINS).tolist()


def agreement(x: Sequence[float], y: Sequence[float], resamples: int = 1000, seed: int = 0) -> Agreement:
    """Agreement of two scorings of the same items, in order."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if len(x) != len(y):
        raise ValueError("both scorings must be of the same items")
    if len(x) == 0:
        return Agreement(0, None, None, None, Estimate.none("no item scored by both"))
    gaps = np.abs(x - y)
    return Agreement(
        len(x), _spearman(x, y), float(gaps.mean()), float((gaps <= 1.0).mean()), weighted_kappa(x, y, resamples, seed)
    )


def weighted_kappa(x: np.ndarray, y: np.ndarray, resamples: int = 1000, seed: int = 0) -> Estimate:
    """Quadratically weighted Cohen's kappa of two 0-10 scorings of the same items."""
    values = np.unique(np.concatenate([x, y]))
    table = pair_table(np.searchsorted(values, x), np.searchsorted(values, y), len(values))
    return cohen_kappa(table, values, resamples, seed)


def _spearman(x: np.ndarray, y: np.ndarray) -> float | None:
    if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return None
    rx, ry = average_ranks(x), average_ranks(y)
    return float(np.corrcoef(rx, ry)[0, 1])


def average_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1..n, ties sharing the average of the ranks they span."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    ends = np.r_[starts[1:], len(values)]
    ranks = np.empty(len(values), dtype=np.float64)
    for start, end in zip(starts.tolist(), ends.tolist()):
        ranks[order[start:end]] = (start + 1 + end) / 2.0
    return ranks


def _percentiles(values: np.ndarray, level: float) -> tuple[float, float]:
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(values, [tail, 100.0 - tail])
    return float(low), float(high)
