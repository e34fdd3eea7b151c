"""Intervals and paired tests that resample clusters of claims, and what a benchmark can resolve.

Claims of one question (or response, source article, agency) share their context and their
errors, so resampling claims as if independent gives intervals that are too narrow. The
cluster bootstrap draws whole clusters with replacement, as many as there are, and counts
every claim of each drawn cluster. Only each cluster's confusion counts matter, and clusters
with the same counts are interchangeable, so the draw is a multinomial over the distinct
count vectors ("types") weighted by how many clusters share each: the cost depends on the
number of types, not of claims. When every cluster is one claim this is exactly the claim
bootstrap of workbench.metrics.resampling, and it is computed by that code (same figures).

Resolution: the smallest difference a benchmark of this size could detect with power
`power` at level `alpha` is (z(1 - alpha/2) + z(power)) times the standard error of the
paired difference; the standard error comes from the discordance actually observed
(closed form for accuracy, the bootstrap's spread for any metric).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from statistics import NormalDist

import numpy as np

from workbench.metrics.confusion import macro_f1
from workbench.metrics.resampling import (
    DEFAULT_METRICS,
    Interval,
    MetricOfCounts,
    PairedComparison,
    _percentiles,
    bootstrap_cis_from_cells,
    paired_comparison,
    paired_deltas_from_joint,
)

_HASH_SALTS = (0x9E3779B97F4A7C15, 0x2545F4914F6CDD1D)
"""A cluster's count vector is keyed by two independent hashes, 128 bits together, so
distinct vectors share a key with negligible probability."""


def cluster_numbers(keys: Sequence) -> np.ndarray:
    """Each claim's cluster as a number 0..C-1 (claims with the same key share one)."""
    keys = np.asarray(keys)
    if keys.dtype.kind not in "iu":  # mixed or text keys: equal when they read alike (3 and "3")
        keys = np.asarray([str(k) for k in keys])
    return _renumbered(keys)[0]


def cluster_count(clusters: Sequence) -> int:
    """How many distinct clusters the items fall in."""
    return _renumbered(clusters)[1]


def _cluster_vectors(clusters: np.ndarray, columns: Sequence[np.ndarray], widths: Sequence[int]):
    """Distinct per-cluster count vectors and how many clusters have each.

    `columns[r]` holds each claim's cell in part r (one part per run), `widths[r]` its
    number of cells. Returns (types: (T, sum(widths)) counts, multiplicity: (T,)).
    """
    offsets = np.cumsum([0, *widths[:-1]])
    total = int(sum(widths))
    clusters, count = _renumbered(clusters)
    pairs = np.concatenate([clusters * total + offset + column for column, offset in zip(columns, offsets)])
    entries, counts = _counted(pairs, count * total)
    owner, cell = entries // total, entries % total
    keys = []
    entry = cell.astype(np.uint64) * np.uint64(1 << 40) + counts.astype(np.uint64)
    for salt in _HASH_SALTS:  # a hash of each cluster's sparse vector: its entries' hashes summed
        term = _mix(entry + np.uint64(salt))
        keys.append(_sum_uint64(owner, term, count))
    # Types in the order of their keys (as np.unique over the key pairs lists them, which the
    # draws depend on), each one's vector taken from one of its clusters.
    if count == 0:
        return np.zeros((0, total), dtype=np.int64), np.zeros(0, dtype=np.int64)
    order = np.lexsort(keys[::-1])
    ordered = [key[order] for key in keys]
    starts = np.flatnonzero(np.r_[True, (ordered[0][1:] != ordered[0][:-1]) | (ordered[1][1:] != ordered[1][:-1])])
    vectors = np.zeros((count, total), dtype=np.int64)
    vectors[owner, cell] = counts
    return vectors[order[starts]], np.diff(np.r_[starts, count])


def _renumbered(clusters: np.ndarray) -> tuple[np.ndarray, int]:
    """Each item's cluster as 0..C-1 in the order of the numbers given, and C (a count of
    the numbers present when they are small, as cluster fields' codes are; else a sort)."""
    clusters = np.asarray(clusters).ravel()
    if clusters.dtype.kind in "iu" and len(clusters) and 0 <= clusters.min() and clusters.max() < 4 * len(clusters):
        present = np.bincount(clusters) > 0
        rank = np.cumsum(present) - 1
        return rank[clusters].astype(np.int64), int(rank[-1]) + 1
    ids, numbers = np.unique(clusters, return_inverse=True)
    return numbers.ravel().astype(np.int64), len(ids)


def _counted(values: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """np.unique(values, return_counts=True) for values in 0..bound-1 (counted, not sorted,
    when the bound is small)."""
    if bound > 4 * len(values):
        return np.unique(values, return_counts=True)
    tally = np.bincount(values, minlength=bound)
    entries = np.flatnonzero(tally)
    return entries, tally[entries]


def _mix(values: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser: a well-spread 64-bit hash of each value (wrapping arithmetic)."""
    with np.errstate(over="ignore"):
        z = values ^ (values >> np.uint64(30))
        z = z * np.uint64(0xBF58476D1CE4E5B9)
        z = z ^ (z >> np.uint64(27))
        z = z * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def _sum_uint64(owner: np.ndarray, term: np.ndarray, size: int) -> np.ndarray:
    """Per-owner sums of uint64 terms, wrapping modulo 2**64 (bincount would go through float)."""
    sums = np.zeros(size, dtype=np.uint64)
    np.add.at(sums, owner, term)
    return sums


_DRAWS_AT_ONCE = 1 << 18
"""Cluster indices drawn per step (1 MB of int32): a 16 MB matrix took 1.6x as long."""


def _draw_clusters(types: np.ndarray, multiplicity: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """(resamples, width) counts: each resample draws as many clusters as there are,
    uniformly with replacement, and adds up the drawn clusters' count vectors.

    Clusters are drawn as indices (a multinomial over thousands of kinds, one binomial per
    kind, is slower than the indices themselves), counted, then multiplied out: per kind
    when many clusters share one, per cluster when most are alike in nothing (the lookup
    of each draw's kind then costs more than it saves)."""
    clusters = int(multiplicity.sum())
    if clusters == 0:
        raise ValueError("cannot resample an empty set of items")
    rng = np.random.default_rng(seed)
    kinds = len(multiplicity)
    per_cluster = kinds * 2 > clusters
    groups = clusters if per_cluster else kinds
    kind_of = None if per_cluster else np.repeat(np.arange(kinds, dtype=np.int32), multiplicity)
    # BLAS multiplies floats; the counts are integers, exact while every sum stays below the
    # float's integer limit (2**24 in single precision, which halves the work).
    largest = int(types.sum(axis=1).max()) * clusters
    exact = np.float32 if largest < 2**24 else np.float64
    weights = (np.repeat(types, multiplicity, axis=0) if per_cluster else types).astype(exact)
    stack = np.empty((resamples, types.shape[1]), dtype=np.int64)
    # A few resamples at a time: the index matrix stays in the processor's cache between
    # drawing, offsetting and counting (the draws are the same whatever the step).
    step = max(1, _DRAWS_AT_ONCE // clusters)
    for start in range(0, resamples, step):
        rows = min(step, resamples - start)
        picks = rng.integers(0, clusters, size=(rows, clusters), dtype=np.int32)
        if kind_of is not None:
            picks = kind_of[picks]
        picks += (np.arange(rows, dtype=np.int32) * groups)[:, None]  # keeps the resamples' counts apart
        counts = np.bincount(picks.ravel(), minlength=rows * groups).reshape(rows, groups)
        stack[start : start + rows] = np.rint(counts.astype(exact) @ weights).astype(np.int64)
    return stack


def clustered_bootstrap_cis(
    cells: np.ndarray,
    clusters: np.ndarray | None,
    shape: tuple[int, int],
    metrics: Mapping[str, MetricOfCounts] = DEFAULT_METRICS,
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> dict[str, Interval]:
    """Percentile intervals for each metric, resampling clusters of items.

    `cells`: each scored item's confusion cell (row * M + col); `clusters`: each item's
    cluster number (None, or all distinct: the claim bootstrap, with its exact figures).
    """
    cells = np.asarray(cells, dtype=np.int64)
    if clusters is None or _all_distinct(clusters):
        return bootstrap_cis_from_cells(cells, shape, metrics, resamples, seed, level)
    size = shape[0] * shape[1]
    types, multiplicity = _cluster_vectors(np.asarray(clusters), [cells], [size])
    stack = _draw_clusters(types, multiplicity, resamples, seed).reshape(resamples, *shape)
    observed = np.bincount(cells, minlength=size).reshape(shape)
    result = {}
    for name, metric in metrics.items():
        low, high = _percentiles(metric(stack), level)
        result[name] = Interval(float(metric(observed)), low, high)
    return result


def clustered_paired_bootstrap(
    cells_a: np.ndarray,
    cells_b: np.ndarray,
    clusters: np.ndarray | None,
    shape: tuple[int, int],
    metric: MetricOfCounts = macro_f1,
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[PairedComparison, float]:
    """Paired bootstrap of metric(B) - metric(A), resampling clusters; and the standard
    deviation of the resampled deltas (the delta's standard error, for resolution)."""
    found = clustered_paired_bootstraps(cells_a, cells_b, clusters, shape, {"metric": metric}, resamples, seed, level)
    return found["metric"]


def clustered_paired_bootstraps(
    cells_a: np.ndarray,
    cells_b: np.ndarray,
    clusters: np.ndarray | None,
    shape: tuple[int, int],
    metrics: Mapping[str, MetricOfCounts],
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> dict[str, tuple[PairedComparison, float]]:
    """clustered_paired_bootstrap for several metrics; the clusters are drawn once for all
    (each metric's claim bootstrap draws as today's paired_bootstrap does: the same figures)."""
    cells_a = np.asarray(cells_a, dtype=np.int64)
    cells_b = np.asarray(cells_b, dtype=np.int64)
    if len(cells_a) != len(cells_b):
        raise ValueError("both runs must cover the same items")
    size = shape[0] * shape[1]
    found = {}
    if clusters is None or _all_distinct(clusters):  # the claim bootstrap, exactly
        joint = np.bincount(cells_a * size + cells_b, minlength=size * size).reshape(size, size)
        for name, metric in metrics.items():
            delta, deltas = paired_deltas_from_joint(joint, shape, metric, resamples, seed)
            found[name] = paired_comparison(delta, deltas, level), float(np.std(deltas, ddof=1))
        return found
    types, multiplicity = _cluster_vectors(np.asarray(clusters), [cells_a, cells_b], [size, size])
    drawn = _draw_clusters(types, multiplicity, resamples, seed)
    stack_a, stack_b = drawn[:, :size].reshape(resamples, *shape), drawn[:, size:].reshape(resamples, *shape)
    counts_a = np.bincount(cells_a, minlength=size).reshape(shape)
    counts_b = np.bincount(cells_b, minlength=size).reshape(shape)
    for name, metric in metrics.items():
        delta = float(metric(counts_b) - metric(counts_a))
        deltas = metric(stack_b) - metric(stack_a)
        found[name] = paired_comparison(delta, deltas, level), float(np.std(deltas, ddof=1))
    return found


def _all_distinct(clusters) -> bool:
    return cluster_count(clusters) == len(clusters)


def accuracy_delta_standard_error(
    right_a: Sequence[bool], right_b: Sequence[bool], clusters: Sequence | None = None
) -> float:
    """Standard error of accuracy(B) - accuracy(A) on the same items, from the discordant
    pairs: with d = right_b - right_a per item, the variance of the mean of d; with clusters,
    the cluster-robust (sandwich) form sum_g (D_g - n_g * mean)^2 * C / (C - 1) / n^2."""
    d = np.asarray(right_b, dtype=np.float64) - np.asarray(right_a, dtype=np.float64)
    n = len(d)
    if n < 2:
        return math.nan
    mean = float(d.mean())
    if clusters is None:
        return math.sqrt(max(float(np.mean(d * d)) - mean * mean, 0.0) / n)
    numbers = cluster_numbers(clusters)
    count = int(numbers.max()) + 1
    if count < 2:
        return math.nan
    totals = np.bincount(numbers, weights=d, minlength=count)
    sizes = np.bincount(numbers, minlength=count)
    spread = float(np.sum((totals - sizes * mean) ** 2))
    return math.sqrt(spread * count / (count - 1)) / n


def detectable_difference(standard_error: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest true difference a two-sided test at `alpha` detects with probability
    `power`, given the difference's standard error: (z(1 - alpha/2) + z(power)) * SE."""
    normal = NormalDist()
    return (normal.inv_cdf(1.0 - alpha / 2.0) + normal.inv_cdf(power)) * standard_error


def resolution_words(comparison: PairedComparison) -> str | None:
    """What to say when the interval of the difference spans zero (None otherwise)."""
    if comparison.low <= 0.0 <= comparison.high:
        return "these runs cannot be told apart at this size"
    return None
