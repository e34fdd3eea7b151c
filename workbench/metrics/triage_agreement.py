"""How far annotators agree on failure categories: per category (one yes/no decision per
category and item) and over the whole set (exact match, MASI-distance alpha), per pair of
annotators, the confusion between two annotators' categories, and per-annotator counts.

The input is a label matrix: items x annotators, each cell the annotator's categories as
a bit mask (bit i = categories[i]; 0 = "none of them"), MISSING where the annotator did
not label the item. Only items two or more people labelled are compared; the others are
counted and said to be left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from workbench.metrics.agreement import (
    LEVEL,
    MISSING,
    Estimate,
    Patterns,
    Resampling,
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    masi_distance,
    nominal_distance,
    observed_agreement,
    pair_table,
    resampling,
    value_patterns,
)

NONE_OF_THEM = "(none)"
"""The confusion table's row and column for a label with no category."""


@dataclass(frozen=True)
class LabelMatrix:
    annotators: list[str]
    categories: list[str]
    masks: np.ndarray
    """items x annotators, int64 bit masks, MISSING where not labelled."""
    item_ids: np.ndarray
    """What each row is (claim ids), in row order."""


@dataclass(frozen=True)
class CategoryAgreement:
    """Agreement on one category, as a yes/no decision per item."""

    category: str
    given: int
    """How many labels (of compared items) include it."""
    observed: Estimate
    kappa: Estimate
    alpha: Estimate


@dataclass(frozen=True)
class PairAgreement:
    first: str
    second: str
    shared: int
    exact: Estimate
    kappa: Estimate
    """Cohen's kappa over whole sets (each distinct set one value)."""
    masi_alpha: Estimate


@dataclass(frozen=True)
class CategoryConfusion:
    """first's categories (rows) against second's (columns) on the items both labelled;
    an item with two categories from one annotator adds to two cells."""

    first: str
    second: str
    labels: list[str]
    counts: np.ndarray


@dataclass(frozen=True)
class AnnotatorCounts:
    annotator: str
    labelled: int
    compared: int
    """Of those, items someone else labelled too."""
    by_category: dict[str, int]


@dataclass(frozen=True)
class TriageAgreement:
    annotators: list[AnnotatorCounts]
    labelled: int
    """Items at least one person labelled."""
    compared: int
    """Items two or more people labelled (what agreement is computed on)."""
    single: int
    """Items only one person labelled (left out)."""
    unavailable: str | None
    """Why there is no agreement at all (one annotator, nothing labelled twice)."""
    kappa_name: str = "Cohen's kappa"
    exact: Estimate | None = None
    kappa: Estimate | None = None
    masi_alpha: Estimate | None = None
    categories: list[CategoryAgreement] = field(default_factory=list)
    pairs: list[PairAgreement] = field(default_factory=list)
    confusion: CategoryConfusion | None = None
    resamples: int = 0
    seed: int = 0


def triage_agreement(
    matrix: LabelMatrix, resamples: int = 1000, seed: int = 0, level: float = LEVEL
) -> TriageAgreement:
    """Every agreement figure of a label matrix (see the module docstring)."""
    masks = np.asarray(matrix.masks, dtype=np.int64).reshape(len(matrix.item_ids), len(matrix.annotators))
    given = masks != MISSING
    per_item = given.sum(axis=1)
    labelled, compared = int((per_item >= 1).sum()), int((per_item >= 2).sum())
    counts = _annotator_counts(matrix, masks, per_item)
    base = dict(
        annotators=counts,
        labelled=labelled,
        compared=compared,
        single=int((per_item == 1).sum()),
        resamples=resamples,
        seed=seed,
    )
    why = _why_unavailable(counts, compared)
    if why is not None:
        return TriageAgreement(unavailable=why, **base)
    keep = per_item >= 2
    masks = masks[keep]
    several = len([c for c in counts if c.compared]) > 2
    sets, codes = _set_codes(masks)
    set_patterns = value_patterns(codes, len(sets))
    draws = resampling(set_patterns, resamples, seed)  # one resampling for the three
    return TriageAgreement(
        unavailable=None,
        kappa_name="Fleiss' kappa" if several else "Cohen's kappa",
        **base,
        exact=observed_agreement(set_patterns, resamples, seed, level, draws),
        kappa=_kappa(codes, set_patterns, len(sets), several, resamples, seed, level, draws),
        masi_alpha=krippendorff_alpha(
            set_patterns, masi_distance(_as_sets(sets, matrix.categories)), resamples, seed, level, draws
        ),
        categories=[
            _category(matrix.categories[bit], bit, masks, several, resamples, seed, level)
            for bit in range(len(matrix.categories))
        ],
        pairs=_pairs(matrix, masks, resamples, seed, level),
        confusion=_confusion(matrix, masks),
    )


def _why_unavailable(counts: list[AnnotatorCounts], compared: int) -> str | None:
    active = [c.annotator for c in counts if c.labelled]
    if not active:
        return "nobody has labelled any item yet"
    if len(active) == 1:
        return f"only one annotator ({active[0]}) has labelled items: agreement needs two people on the same items"
    if compared == 0:
        return (
            f"{len(active)} annotators labelled items, but no item was labelled by two of them: assign an"
            " overlap (triage assign --overlap) to measure agreement"
        )
    return None


def _annotator_counts(matrix: LabelMatrix, masks: np.ndarray, per_item: np.ndarray) -> list[AnnotatorCounts]:
    found = []
    for column, name in enumerate(matrix.annotators):
        mine = masks[:, column]
        labelled = mine != MISSING
        by_category = {
            category: int((labelled & ((mine >> bit) & 1).astype(bool)).sum())
            for bit, category in enumerate(matrix.categories)
        }
        found.append(AnnotatorCounts(name, int(labelled.sum()), int((labelled & (per_item >= 2)).sum()), by_category))
    return found


def _set_codes(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct sets (as masks) and each cell's index among them (MISSING kept)."""
    sets = np.unique(masks[masks != MISSING])
    codes = np.full(masks.shape, MISSING, dtype=np.int64)
    given = masks != MISSING
    codes[given] = np.searchsorted(sets, masks[given])
    return sets, codes


def _as_sets(sets: np.ndarray, categories: list[str]) -> list[frozenset]:
    return [frozenset(bit for bit in range(len(categories)) if (int(mask) >> bit) & 1) for mask in sets]


def _kappa(
    codes: np.ndarray,
    patterns: Patterns,
    values: int,
    several: bool,
    resamples: int,
    seed: int,
    level: float,
    draws: Resampling | None = None,
) -> Estimate:
    """Fleiss' kappa with more than two annotators, else Cohen's on the two columns."""
    if several:
        return fleiss_kappa(patterns, resamples, seed, level, draws)
    used = [c for c in range(codes.shape[1]) if (codes[:, c] != MISSING).any()]
    return cohen_kappa(pair_table(codes[:, used[0]], codes[:, used[1]], values), None, resamples, seed, level)


def _category(
    name: str, bit: int, masks: np.ndarray, several: bool, resamples: int, seed: int, level: float
) -> CategoryAgreement:
    codes = np.where(masks == MISSING, MISSING, (masks >> bit) & 1)
    patterns = value_patterns(codes, 2)
    draws = resampling(patterns, resamples, seed)
    return CategoryAgreement(
        name,
        int((codes == 1).sum()),
        observed_agreement(patterns, resamples, seed, level, draws),
        _kappa(codes, patterns, 2, several, resamples, seed, level, draws),
        krippendorff_alpha(patterns, nominal_distance(2), resamples, seed, level, draws),
    )


def _pairs(matrix: LabelMatrix, masks: np.ndarray, resamples: int, seed: int, level: float) -> list[PairAgreement]:
    found = []
    for a, b in combinations(range(len(matrix.annotators)), 2):
        both = (masks[:, a] != MISSING) & (masks[:, b] != MISSING)
        if not both.any():
            continue
        sets, codes = _set_codes(masks[both][:, [a, b]])
        patterns = value_patterns(codes, len(sets))
        draws = resampling(patterns, resamples, seed)
        found.append(
            PairAgreement(
                matrix.annotators[a],
                matrix.annotators[b],
                int(both.sum()),
                observed_agreement(patterns, resamples, seed, level, draws),
                cohen_kappa(pair_table(codes[:, 0], codes[:, 1], len(sets)), None, resamples, seed, level),
                krippendorff_alpha(
                    patterns, masi_distance(_as_sets(sets, matrix.categories)), resamples, seed, level, draws
                ),
            )
        )
    return found


def _confusion(matrix: LabelMatrix, masks: np.ndarray) -> CategoryConfusion | None:
    """For the pair of annotators who share the most items."""
    best, shared = None, 0
    for a, b in combinations(range(len(matrix.annotators)), 2):
        both = int(((masks[:, a] != MISSING) & (masks[:, b] != MISSING)).sum())
        if both > shared:
            best, shared = (a, b), both
    if best is None:
        return None
    a, b = best
    both = (masks[:, a] != MISSING) & (masks[:, b] != MISSING)
    k = len(matrix.categories)
    first, second = _indicators(masks[both, a], k), _indicators(masks[both, b], k)
    return CategoryConfusion(
        matrix.annotators[a],
        matrix.annotators[b],
        [*matrix.categories, NONE_OF_THEM],
        (first.T @ second).astype(np.int64),
    )


def _indicators(masks: np.ndarray, k: int) -> np.ndarray:
    """items x (k + 1): which categories each label holds, the last column for none."""
    bits = ((masks[:, None] >> np.arange(k)[None, :]) & 1).astype(np.int64)
    return np.concatenate([bits, (masks == 0)[:, None].astype(np.int64)], axis=1)
