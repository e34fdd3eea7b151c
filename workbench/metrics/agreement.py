"""Agreement between people (or a judge and people, or a judge and itself): Cohen's kappa
(weighted too), Fleiss' kappa, Krippendorff's alpha with any distance (nominal, interval,
MASI for sets), and the observed share of agreeing pairs, each with a percentile bootstrap
interval over items.

Every coefficient here depends on the items only through how many items share each
"pattern" (an item's count of coders per value; for two coders, the confusion cell), so
the data are reduced to distinct patterns with their counts and the bootstrap draws those
counts from the multinomial over the observed shares: the same estimator as resampling
items, at a cost that does not grow with their number (100,000 items take milliseconds).

A coefficient that cannot be computed says why (Estimate.undefined) instead of giving 0
or NaN: no item with two values, or chance agreement already total (everyone always gave
the same value). The formulas are in docs/triage.md; tests check them against hand-worked
examples, krippendorff, statsmodels and scikit-learn.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

LEVEL = 0.95
MISSING = -1
"""A coder who gave no value to an item (in value matrices)."""


@dataclass(frozen=True)
class Estimate:
    """A coefficient, its bootstrap interval, or why there is none."""

    value: float | None
    low: float | None = None
    high: float | None = None
    undefined: str | None = None
    """Why `value` is None (never 0 or NaN in its place)."""

    @classmethod
    def none(cls, why: str) -> Estimate:
        return cls(None, None, None, why)


@dataclass(frozen=True)
class Patterns:
    """Distinct per-item value counts (P x V) and how many items show each (P)."""

    counts: np.ndarray
    items: np.ndarray

    @property
    def total(self) -> int:
        return int(self.items.sum())


def value_patterns(codes: np.ndarray, values: int) -> Patterns:
    """Patterns of the pairable items (two or more coders) of an items x coders matrix of
    value indices 0..values-1, MISSING where a coder gave none."""
    codes = np.asarray(codes, dtype=np.int64)
    if codes.ndim != 2 or codes.size == 0:
        return Patterns(np.zeros((0, values), np.int64), np.zeros(0, np.int64))
    codes = codes[(codes != MISSING).sum(axis=1) >= 2]
    if len(codes) == 0:
        return Patterns(np.zeros((0, values), np.int64), np.zeros(0, np.int64))
    # An item's pattern is the multiset of its values: its sorted row (MISSING last).
    rows = np.sort(np.where(codes == MISSING, values, codes), axis=1)
    base = values + 1
    if base ** rows.shape[1] < 2**62:  # one integer per row: sorting those is fast
        keys = rows @ (base ** np.arange(rows.shape[1], dtype=np.int64))
        _, first, items = np.unique(keys, return_index=True, return_counts=True)
        distinct = rows[first]
    else:
        distinct, items = np.unique(rows, axis=0, return_counts=True)
    counts = (
        np.stack([(distinct == v).sum(axis=1) for v in range(values)], axis=1)
        if values
        else np.zeros((len(distinct), 0), np.int64)
    )
    return Patterns(counts.astype(np.int64), items.astype(np.int64))


@dataclass(frozen=True)
class Resampling:
    """The bootstrap of a set of items: each resample draws as many items, with
    replacement, and counts how many of each pattern it drew. Iterating gives the same
    resamples every time (a few at a time, so memory stays small); coefficients of the
    same items that share one Resampling are resampled together."""

    items: np.ndarray
    """How many items show each pattern (P)."""
    resamples: int
    seed: int

    CELLS = 1 << 22
    """About how many numbers one chunk of resamples may hold."""
    _kept: list = field(default_factory=list, compare=False, repr=False)
    """The drawn counts, when they fit in one chunk: the coefficients sharing this
    resampling then read them instead of drawing them again."""

    def chunks(self):
        if self._kept:
            yield from self._kept
            return
        total, kinds = int(self.items.sum()), len(self.items)
        if self.resamples <= 0 or total == 0:
            return
        rng = np.random.default_rng(self.seed)
        # Few patterns: draw their counts from the multinomial (cost independent of the
        # items). Many: draw items and count them (cheaper than a multinomial that wide).
        by_items = kinds * 8 > total
        step = max(1, min(self.resamples, self.CELLS // max(total if by_items else kinds, 1)))
        pattern_of = np.repeat(np.arange(kinds), self.items) if by_items else None
        for start in range(0, self.resamples, step):
            size = min(step, self.resamples - start)
            if by_items:
                drawn = pattern_of[rng.integers(0, total, size=(size, total))]
                offsets = (np.arange(size) * kinds)[:, None]
                counts = np.bincount((drawn + offsets).ravel(), minlength=size * kinds).reshape(size, kinds)
            else:
                counts = rng.multinomial(total, self.items / total, size=size)
            counts = counts.astype(np.float64)
            if step >= self.resamples and self.resamples * kinds <= self.CELLS:
                self._kept.append(counts)
            yield counts


def resampling(patterns: Patterns, resamples: int, seed: int) -> Resampling:
    """The bootstrap of these patterns' items (share it between coefficients of them)."""
    return Resampling(patterns.items, resamples, seed)


def _estimate(point: float | None, why: str, resampled: np.ndarray | None, level: float) -> Estimate:
    if point is None:
        return Estimate.none(why)
    if resampled is None:
        return Estimate(point)
    finite = resampled[np.isfinite(resampled)]
    if len(finite) == 0:
        return Estimate(point)
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(finite, [tail, 100.0 - tail])
    return Estimate(point, float(low), float(high))


def _resampled(statistic, patterns: Patterns, resamples: int, seed: int, draws: Resampling | None):
    draws = draws if draws is not None else resampling(patterns, resamples, seed)
    if draws.resamples <= 0:
        return None
    return np.concatenate([statistic(weights) for weights in draws.chunks()] or [np.zeros(0)])


def _point(values: np.ndarray) -> float | None:
    value = float(values[0])
    return value if np.isfinite(value) else None


# ---- observed agreement and Fleiss' kappa -----------------------------------------------


def _pair_shares(counts: np.ndarray) -> np.ndarray:
    """Per pattern: the share of its coder pairs that gave the same value."""
    m = counts.sum(axis=1).astype(np.float64)
    return (counts * (counts - 1)).sum(axis=1) / (m * (m - 1))


def observed_agreement(
    patterns: Patterns, resamples: int = 1000, seed: int = 0, level: float = LEVEL, draws: Resampling | None = None
) -> Estimate:
    """The mean over items of the share of coder pairs that agree (two coders: the share
    of items they gave the same value)."""
    if patterns.total == 0:
        return Estimate.none("no item has values from two coders")
    shares = _pair_shares(patterns.counts)

    def statistic(weights: np.ndarray) -> np.ndarray:
        return weights @ shares / weights.sum(axis=1)

    return _estimate(
        _point(statistic(patterns.items[None, :].astype(np.float64))),
        "",
        _resampled(statistic, patterns, resamples, seed, draws),
        level,
    )


def fleiss_kappa(
    patterns: Patterns, resamples: int = 1000, seed: int = 0, level: float = LEVEL, draws: Resampling | None = None
) -> Estimate:
    """Fleiss' kappa: (P - Pe) / (1 - Pe), P the mean share of agreeing pairs per item,
    Pe the sum of squared value shares over all values given. An item's own number of
    coders is used (with the same number everywhere this is Fleiss' 1971 formula)."""
    if patterns.total == 0:
        return Estimate.none("no item has values from two coders")
    shares, counts = _pair_shares(patterns.counts), patterns.counts.astype(np.float64)

    def statistic(weights: np.ndarray) -> np.ndarray:
        p = weights @ shares / weights.sum(axis=1)
        given = weights @ counts
        chance = ((given / given.sum(axis=1, keepdims=True)) ** 2).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(chance < 1.0 - 1e-12, (p - chance) / (1.0 - chance), np.nan)

    point = _point(statistic(patterns.items[None, :].astype(np.float64)))
    resampled = _resampled(statistic, patterns, resamples, seed, draws) if point is not None else None
    return _estimate(point, "every value given is the same one: chance agreement is total", resampled, level)


# ---- Krippendorff's alpha ------------------------------------------------------------------


def krippendorff_alpha(
    patterns: Patterns,
    distance: np.ndarray,
    resamples: int = 1000,
    seed: int = 0,
    level: float = LEVEL,
    draws: Resampling | None = None,
) -> Estimate:
    """Krippendorff's alpha = 1 - D_o / D_e over the coincidence matrix o (each pairable
    item adds (n_c n_k - [c = k] n_c) / (m - 1)): D_o = sum o_ck d_ck / n,
    D_e = sum n_c n_k d_ck / (n (n - 1)), d the distance between values (V x V)."""
    if patterns.total == 0:
        return Estimate.none("no item has values from two coders")
    counts = patterns.counts.astype(np.float64)
    m = counts.sum(axis=1)
    # sum_ck o_ck d_ck per pattern: (n^T d n - sum_c n_c d_cc) / (m - 1)
    disagreement = (np.einsum("pc,ck,pk->p", counts, distance, counts) - counts @ np.diag(distance)) / (m - 1)

    def statistic(weights: np.ndarray) -> np.ndarray:
        observed = weights @ disagreement
        given = weights @ counts  # n_c: the coincidence matrix's row sums
        n = given.sum(axis=1)
        expected = np.einsum("rc,ck,rk->r", given, distance, given)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(expected > 1e-12, 1.0 - (n - 1.0) * observed / expected, np.nan)

    point = _point(statistic(patterns.items[None, :].astype(np.float64)))
    resampled = _resampled(statistic, patterns, resamples, seed, draws) if point is not None else None
    return _estimate(point, "every value given is the same one: there is no disagreement to expect", resampled, level)


def nominal_distance(values: int) -> np.ndarray:
    return 1.0 - np.eye(values)


def interval_distance(values: np.ndarray) -> np.ndarray:
    """(v_c - v_k)^2: scores on a scale (a judge's 0-10)."""
    values = np.asarray(values, dtype=np.float64)
    return (values[:, None] - values[None, :]) ** 2


def masi(a: frozenset, b: frozenset) -> float:
    """MASI distance of two sets: 1 - J M, J = |a & b| / |a | b|, M = 1 if equal, 2/3 if
    one holds the other, 1/3 if they overlap otherwise, 0 if disjoint (two empty sets: 0)."""
    if a == b:
        return 0.0
    shared = len(a & b)
    if not shared:
        return 1.0
    monotonicity = 2 / 3 if (a <= b or b <= a) else 1 / 3
    return 1.0 - shared / len(a | b) * monotonicity


def masi_distance(sets: list[frozenset]) -> np.ndarray:
    return np.array([[masi(a, b) for b in sets] for a in sets], dtype=np.float64)


# ---- Cohen's kappa ----------------------------------------------------------------------------


def cohen_kappa(
    confusion: np.ndarray, values: np.ndarray | None = None, resamples: int = 1000, seed: int = 0, level: float = LEVEL
) -> Estimate:
    """Cohen's kappa of two coders from their K x K table of counts; with `values` (the
    K values on a scale) the quadratically weighted kappa 1 - sum w o / sum w e,
    w = (v_i - v_j)^2, e the table chance predicts from the margins."""
    table = np.asarray(confusion, dtype=np.float64)
    if table.sum() == 0:
        return Estimate.none("no item has values from both coders")
    k = len(table)
    weights = nominal_distance(k) if values is None else interval_distance(values)

    def statistic(tables: np.ndarray) -> np.ndarray:
        n = tables.sum(axis=(1, 2))
        expected = tables.sum(axis=2)[:, :, None] * tables.sum(axis=1)[:, None, :] / n[:, None, None]
        chance = (expected * weights).sum(axis=(1, 2))
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(chance > 1e-12, 1.0 - (tables * weights).sum(axis=(1, 2)) / chance, np.nan)

    point = _point(statistic(table[None]))
    resampled = None
    if point is not None:  # resample the cells that hold items (an empty cell stays empty)
        flat = table.reshape(-1)
        held = np.flatnonzero(flat)
        cells = Patterns(np.zeros((len(held), 0)), flat[held].astype(np.int64))

        def from_cells(weights: np.ndarray) -> np.ndarray:
            tables = np.zeros((len(weights), k * k))
            tables[:, held] = weights
            return statistic(tables.reshape(-1, k, k))

        resampled = _resampled(from_cells, cells, resamples, seed, None)
    return _estimate(
        point, "both coders gave one and the same value throughout: chance agreement is total", resampled, level
    )


def pair_table(first: np.ndarray, second: np.ndarray, values: int) -> np.ndarray:
    """The K x K table of two coders' value indices over the items both gave a value."""
    first, second = np.asarray(first), np.asarray(second)
    both = (first != MISSING) & (second != MISSING)
    return np.bincount(first[both] * values + second[both], minlength=values * values).reshape(values, values)
