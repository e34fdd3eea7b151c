"""Two runs compared on the items they share: deltas, paired tests, flips, CoR.

Shared items are claims in both runs' subsets whose gold label is scored and which both
runs answered (a verdict, an abstention or a parse failure; not an API error or a
missing answer). Every delta is run B minus run A.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from store import FlagSpec, Run, Store
from workbench.metrics import (
    McNemarResult,
    MetricSummary,
    PairedComparison,
    accuracy,
    macro_f1,
    mcnemar_from_counts,
    summarise_slot_counts,
)
from workbench.metrics.clustered import (
    accuracy_delta_standard_error,
    cluster_count,
    clustered_paired_bootstraps,
    detectable_difference,
    resolution_words,
)
from workbench.scoring.items import RunItems
from workbench.scoring.runs import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    ScoringError,
    parse_fields,
    read_clustered,
    without_flagged,
)

COMPARED_METRICS = ("accuracy", "macro_f1", "mcc", "unknown_rate", "parse_failure_rate")
PAIRED_METRICS = {"macro_f1": macro_f1, "accuracy": accuracy}


@dataclass(frozen=True)
class MetricDelta:
    """One metric for run A and run B on the same items, and B - A."""

    a: float
    b: float
    delta: float


@dataclass(frozen=True)
class Resolution:
    """What this benchmark size can tell apart, beside one paired delta."""

    standard_error: float
    """Of the delta: the bootstrap's spread (clustered when the comparison is)."""
    detectable: float
    """The smallest true difference detected with power 0.8 at alpha 0.05."""
    words: str | None
    """"these runs cannot be told apart at this size" when the interval spans zero."""
    closed_form_error: float | None = None
    """For accuracy: the standard error from the discordant pairs (cluster-robust with clusters)."""


RESOLUTION_ALPHA, RESOLUTION_POWER = 0.05, 0.8


@dataclass(frozen=True)
class SliceComparison:
    """Deltas on the shared items of one slice."""

    value: str
    shared: int
    deltas: dict[str, MetricDelta]
    mcnemar: McNemarResult


@dataclass(frozen=True)
class Comparison:
    """Run B against run A on their shared items."""

    run_a: Run
    run_b: Run
    shared: int
    a: MetricSummary
    b: MetricSummary
    deltas: dict[str, MetricDelta]
    paired: dict[str, PairedComparison]
    """macro_f1 and accuracy: paired bootstrap delta, 95% interval, two-sided p."""
    mcnemar: McNemarResult
    correction_rate: float | None
    """Share of A's wrong shared items that B gets right (None when A got none wrong)."""
    a_wrong: int
    right_to_wrong: list[int]
    """Claim ids A got right and B got wrong."""
    wrong_to_right: list[int]
    """Claim ids A got wrong and B got right."""
    by: str | None = None
    slices: list[SliceComparison] = field(default_factory=list)
    resolution: dict[str, Resolution] = field(default_factory=dict)
    """For each paired metric: its standard error and the smallest detectable difference."""
    cluster: str | None = None
    """The field whose claims were resampled together (None: claim by claim)."""
    clusters: int = 0
    """How many clusters the shared claims fall in (with `cluster`)."""
    excluded_flag: str | None = None
    """The flag kind whose claims this comparison leaves out (the filters leave them out too)."""

    @property
    def right_to_wrong_filter(self) -> str:
        """The claims-browser filter for the items A got right and B wrong."""
        return self._flips_filter("right", "wrong")

    @property
    def wrong_to_right_filter(self) -> str:
        """The claims-browser filter for the items A got wrong and B right."""
        return self._flips_filter("wrong", "right")

    def _flips_filter(self, in_a: str, in_b: str) -> str:
        if not self.excluded_flag:
            return f"run:{filter_value(self.run_a.name)} {in_a} run:{filter_value(self.run_b.name)} {in_b}"
        left_out = f"-flagged:{filter_value(self.excluded_flag)}"
        if FlagSpec.parse(self.excluded_flag).per_run:  # @run: each run's own model, after its run: term
            return (
                f"run:{filter_value(self.run_a.name)} {in_a} {left_out}"
                f" run:{filter_value(self.run_b.name)} {in_b} {left_out}"
            )
        return f"run:{filter_value(self.run_a.name)} {in_a} run:{filter_value(self.run_b.name)} {in_b} {left_out}"


@dataclass(frozen=True)
class ScoreComparison:
    """A comparison on all shared items and, with exclude_flag, without flagged ones (with
    the paired explanation quality, it is workbench.reports' ComparisonReport)."""

    full: Comparison
    filtered: Comparison | None = None
    exclude_flag: str | None = None
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED


def filter_value(text: str) -> str:
    """A value as the filter language reads it back: quoted when it has spaces or quotes."""
    if text and re.fullmatch(r'[^\s"\\]+', text):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@dataclass(frozen=True)
class _Pairs:
    """The shared items of two runs, aligned: positions into each run's items."""

    a: RunItems
    b: RunItems
    in_a: np.ndarray
    in_b: np.ndarray


def _pairs(a: RunItems, b: RunItems) -> _Pairs:
    if a.space.labels != b.space.labels or a.space.abstain != b.space.abstain:
        raise ScoringError(
            f"runs {a.run.name!r} and {b.run.name!r} are scored in different label spaces "
            f"({a.dataset} and {b.dataset}); compare runs on the same dataset"
        )
    if np.array_equal(a.claim_ids, b.claim_ids):  # the same claims (the common case): no sorting
        in_a = in_b = np.arange(len(a.claim_ids))
    else:
        _, in_a, in_b = np.intersect1d(a.claim_ids, b.claim_ids, assume_unique=True, return_indices=True)
    m = len(a.coder.columns)
    scored = (a.gold[in_a] < len(a.space.labels)) & (a.outcome[in_a] < m) & (b.outcome[in_b] < m)
    return _Pairs(a, b, in_a[scored], in_b[scored])


def compare_items(
    a: RunItems, b: RunItems, by: str | None = None, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> Comparison:
    """Compare two runs' items (by: a field both were read with, for per-slice deltas)."""
    pairs = _pairs(a, b)
    coder = a.coder
    cells_a, cells_b = a.slots()[pairs.in_a], b.slots()[pairs.in_b]
    summary_a, summary_b = _summary(cells_a, coder), _summary(cells_b, coder)
    shape = (len(coder.classes), len(coder.columns))
    clusters = None if a.clusters is None else a.clusters[pairs.in_a]
    paired, spreads = _paired(cells_a, cells_b, shape, resamples, seed, clusters)
    gold = a.gold[pairs.in_a]
    right_a, right_b = a.outcome[pairs.in_a] == gold, b.outcome[pairs.in_b] == gold
    ids = a.claim_ids[pairs.in_a]
    a_wrong = int((~right_a).sum())
    fixed = ~right_a & right_b
    return Comparison(
        run_a=a.run,
        run_b=b.run,
        shared=len(cells_a),
        a=summary_a,
        b=summary_b,
        deltas=_deltas(summary_a, summary_b),
        paired=paired,
        mcnemar=mcnemar_from_counts(int((right_a & ~right_b).sum()), int(fixed.sum())),
        correction_rate=float(fixed.sum()) / a_wrong if a_wrong else None,
        a_wrong=a_wrong,
        right_to_wrong=ids[right_a & ~right_b].tolist(),
        wrong_to_right=ids[fixed].tolist(),
        by=by,
        slices=_slices(pairs, by, right_a, right_b) if by else [],
        resolution=_resolution(paired, spreads, right_a, right_b, clusters),
        cluster=a.cluster,
        clusters=0 if clusters is None else cluster_count(clusters),
    )


def _resolution(
    paired: dict[str, PairedComparison],
    spreads: dict[str, float],
    right_a: np.ndarray,
    right_b: np.ndarray,
    clusters: np.ndarray | None,
) -> dict[str, Resolution]:
    found = {}
    for name, test in paired.items():
        closed = accuracy_delta_standard_error(right_a, right_b, clusters) if name == "accuracy" else None
        found[name] = Resolution(
            spreads[name],
            detectable_difference(spreads[name], RESOLUTION_ALPHA, RESOLUTION_POWER),
            resolution_words(test),
            closed,
        )
    return found


def paired_tests(
    a: RunItems, b: RunItems, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> dict[str, PairedComparison]:
    """compare_items(...).paired alone: the paired bootstraps of the shared items."""
    pairs = _pairs(a, b)
    coder = a.coder
    shape = (len(coder.classes), len(coder.columns))
    clusters = None if a.clusters is None else a.clusters[pairs.in_a]
    return _paired(a.slots()[pairs.in_a], b.slots()[pairs.in_b], shape, resamples, seed, clusters)[0]


def _paired(
    cells_a: np.ndarray,
    cells_b: np.ndarray,
    shape: tuple[int, int],
    resamples: int,
    seed: int,
    clusters: np.ndarray | None = None,
) -> tuple[dict[str, PairedComparison], dict[str, float]]:
    """Each paired metric's bootstrap (resampling clusters when given) and its deltas' spread."""
    if not len(cells_a) or resamples <= 0:
        return {}, {}
    found = clustered_paired_bootstraps(cells_a, cells_b, clusters, shape, PAIRED_METRICS, resamples, seed)
    tests = {name: test for name, (test, _) in found.items()}
    spreads = {name: spread for name, (_, spread) in found.items()}
    return tests, spreads


def _summary(cells: np.ndarray, coder) -> MetricSummary:
    return summarise_slot_counts(np.bincount(cells, minlength=coder.slot_count), coder)


def _deltas(a: MetricSummary, b: MetricSummary) -> dict[str, MetricDelta]:
    result = {}
    for name in COMPARED_METRICS:
        x, y = getattr(a, name), getattr(b, name)
        result[name] = MetricDelta(x, y, y - x)
    return result


def _slices(pairs: _Pairs, by: str, right_a: np.ndarray, right_b: np.ndarray) -> list[SliceComparison]:
    column = pairs.a.fields[by]
    coder = pairs.a.coder
    slots_a, slots_b = pairs.a.slots(), pairs.b.slots()
    # Shared position of each of A's items (-1 where not shared), to follow membership pairs.
    shared_at = np.full(len(pairs.a), -1, dtype=np.int64)
    shared_at[pairs.in_a] = np.arange(len(pairs.in_a))
    result = []
    for code, value in enumerate(column.values):
        members = shared_at[column.members[column.codes == code]]
        members = members[members >= 0]
        if len(members) == 0:
            continue
        a = _summary(slots_a[pairs.in_a[members]], coder)
        b = _summary(slots_b[pairs.in_b[members]], coder)
        ra, rb = right_a[members], right_b[members]
        test = mcnemar_from_counts(int((ra & ~rb).sum()), int((~ra & rb).sum()))
        result.append(SliceComparison(value, len(members), _deltas(a, b), test))
    return result


def compare_runs(
    store: Store,
    run_a: str | int,
    run_b: str | int,
    by: str | None = None,
    exclude_flag: str | None = None,
    cutoffs: Sequence[str | None] = (None, None),
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    cluster: str | None = None,
) -> ScoreComparison:
    """Compare run B against run A (all shared items, and without flagged ones); with
    `cluster`, the paired tests resample the claims of each value of that field together."""
    fields = parse_fields([by] if by else [])
    if any(f.kind == "flag" and FlagSpec.parse(f.key).per_run for f in fields):
        raise ScoringError(
            f"in a comparison, {fields[0].name} could mean either run's model: name the model"
            " (flag:KIND@MODEL) to break both runs down the same way"
        )
    kinds = [exclude_flag] if exclude_flag else []
    a = read_clustered(store, run_a, fields, cutoffs[0], kinds, cluster)
    b = read_clustered(store, run_b, fields, cutoffs[1], kinds, None)
    if a.run.id == b.run.id:
        raise ScoringError(f"compare needs two different runs, not {a.run.name!r} twice")
    name = fields[0].name if fields else None
    full = compare_items(a, b, name, resamples, seed)
    if not exclude_flag:
        return ScoreComparison(full, resamples=resamples, seed=seed)
    filtered = compare_items(without_flagged(a, exclude_flag), without_flagged(b, exclude_flag), name, resamples, seed)
    filtered = dataclasses.replace(filtered, excluded_flag=exclude_flag)
    return ScoreComparison(full, filtered, exclude_flag, resamples, seed)
