"""Scores of runs from the store: the adapter between the database and workbench.metrics.

    report = score_run(store, "gpt4-js", by=["importance"], exclude_flag="contaminated")
    report.full.overall.summary.macro_f1, report.full.overall.intervals["macro_f1"]
    report.filtered.breakdowns["importance"]["Main"].summary.accuracy

A run's items are its subset (run_claims) with their gold labels and outcomes, read in
one statement (scoring_items). Gold labels the dataset excludes (Unevaluable, Unclear)
are counted, not scored. API errors and missing answers are counted in coverage, not
scored. Comparisons of two runs live in compare.py; live panels in live.py.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from store import FlagSpec, FlagSpecError, LabelSpace, Run, Store
from store.names import no_run
from workbench.choices import DEFAULT_RESAMPLES, DEFAULT_SEED
from workbench.metrics import Interval, MetricSummary, bootstrap_cis_from_counts, summarise_slot_tallies
from workbench.metrics.clustered import clustered_bootstrap_cis
from workbench.scoring.cluster_codes import ClusterListError
from workbench.scoring.cutoff_choice import AUTO_CUTOFF, ScoringError, chosen_cutoffs, no_own_cutoff, parse_cutoffs
from workbench.scoring.fields import KNOWN_FIELDS, FieldError, SliceField, parse_cluster, parse_field
from workbench.scoring.items import RunItems
from workbench.scoring.reading import load_run_items

DEFAULT_FLAG = "contaminated"
INTERVAL_METRICS = ("accuracy", "macro_f1")


@dataclass(frozen=True)
class Scores:
    """A run's (or one slice's) numbers with their 95% bootstrap intervals."""

    summary: MetricSummary
    intervals: dict[str, Interval] = field(default_factory=dict)
    """accuracy and macro_f1; empty when not computed (yet) or nothing was scored."""


@dataclass(frozen=True)
class RunScores:
    """Every number for one run on one set of items (all of them, or the unflagged)."""

    run: Run
    dataset: str
    items: int
    overall: Scores
    breakdowns: dict[str, dict[str, Scores]]
    """field name -> slice value -> scores, slices in reading order."""
    excluded_by_label: dict[str, int]
    cutoff: str | None = None
    cluster: str | None = None
    """The field whose claims the intervals resample together (None: claim by claim)."""
    clusters: int = 0
    """How many clusters the scored claims fall in (with `cluster`)."""


@dataclass(frozen=True)
class ScoreReport:
    """A run's scores on all its items and, with exclude_flag, without the flagged ones
    (a run's whole report, with its explanation quality, searches, cost and failure
    categories, is workbench.reports' RunReport)."""

    full: RunScores
    filtered: RunScores | None = None
    exclude_flag: str | None = None
    flagged: int = 0
    """Items carrying the excluded flag kind."""
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED


# ---- what the user typed -> runs, fields, cutoffs ------------------------------------


def resolve_run(store: Store, reference: str | int) -> tuple[Run, str, LabelSpace]:
    """A verdict run, its dataset's name and label space; ScoringError if there is none."""
    run = store.runs.get(reference)
    if run is None:
        raise ScoringError(no_run(store.runs, reference))
    if run.kind != "verdict":
        judged = store.runs.get(run.target_run_id) if run.target_run_id else None
        what = (
            f"a judge run (kind {run.kind!r}) of run {judged.name!r}"
            if judged is not None
            else f"a contamination-pipeline step (kind {run.kind!r})"
        )
        raise ScoringError(f"run {run.name!r} is {what}, not a fact-checking run; only fact-checking runs have scores")
    # A run made over several datasets that share a label space has no dataset_id.
    rows = store.scoring.label_spaces_of_run(run.id, run.dataset_id)
    if not rows:
        raise ScoringError(f"run {run.name!r} has no claims from any dataset to score it against")
    if len({(tuple(space.labels), space.abstain) for _, space in rows}) > 1:
        raise ScoringError(
            f"run {run.name!r} mixes datasets with different label spaces "
            f"({', '.join(name for name, _ in rows)}); score each dataset's runs separately"
        )
    first = rows[0][1]
    excluded = list(dict.fromkeys(label for _, space in rows for label in space.excluded))
    space = LabelSpace(name=first.name, labels=first.labels, abstain=first.abstain, excluded=excluded)
    return run, "+".join(name for name, _ in rows), space


def parse_fields(names: Sequence[str]) -> list[SliceField]:
    """Breakdown fields from --by values (deduplicated, in order); ScoringError if unknown."""
    try:
        fields = [parse_field(name) for name in names]
    except FieldError as error:
        raise ScoringError(str(error)) from None
    return list({f.name: f for f in fields}.values())


# ---- reading and scoring ------------------------------------------------------------------


def read_items(
    store: Store,
    reference: str | int,
    fields: Sequence[SliceField] = (),
    cutoff: str | None = None,
    flag_kinds: Sequence[str] = (),
    with_last_seen: bool = False,
) -> RunItems:
    """One run's items with slice values for `fields` and flags of `flag_kinds`."""
    run, dataset, space = resolve_for_reading(store, reference, fields, cutoff, flag_kinds)
    return load_run_items(store, run, dataset, space, fields, cutoff, flag_kinds, with_last_seen)


def read_clustered(
    store: Store,
    reference: str | int,
    fields: Sequence[SliceField],
    cutoff: str | None,
    flag_kinds: Sequence[str],
    cluster: str | None,
) -> RunItems:
    """read_items, with each item's cluster from the field `cluster` (None: no clusters)."""
    if cluster is None:
        return read_items(store, reference, fields, cutoff, flag_kinds)
    try:
        cluster_field = parse_cluster(cluster)
    except FieldError as error:
        raise ScoringError(str(error)) from None
    if not any(f.name == cluster_field.name for f in fields):
        # Only the cluster numbers: each distinct value coded once, no column made.
        run, dataset, space = resolve_for_reading(store, reference, fields, cutoff, flag_kinds)
        try:
            return load_run_items(store, run, dataset, space, fields, cutoff, flag_kinds, cluster=cluster_field)
        except ClusterListError as error:
            raise ScoringError(str(error)) from None
    items = read_items(store, reference, fields, cutoff, flag_kinds)  # a breakdown by it too
    try:
        return items.clustered_by(cluster_field.name, keep_field=True)
    except ValueError as error:
        raise ScoringError(str(error)) from None


def resolve_for_reading(
    store: Store,
    reference: str | int,
    fields: Sequence[SliceField] = (),
    cutoff: str | None = None,
    flag_kinds: Sequence[str] = (),
) -> tuple[Run, str, LabelSpace]:
    """resolve_run, and the read's fields and flag kinds checked (ScoringError says why)."""
    run, dataset, space = resolve_run(store, reference)
    if cutoff is None and any(f.kind == "cutoff" for f in fields):
        raise ScoringError(f"the cutoff breakdown needs a date for run {run.name!r} (--cutoff DATE)")
    for spec in [*flag_kinds, *(f.key for f in fields if f.kind == "flag")]:
        try:
            store.annotations.check_spec(FlagSpec.parse(spec))
        except FlagSpecError as error:
            raise ScoringError(str(error)) from None
    return run, dataset, space


def summaries(items: RunItems) -> tuple[MetricSummary, dict[str, dict[str, MetricSummary]]]:
    """Overall and per-slice summaries (the cheap numbers: counts, no resampling)."""
    coder = items.coder
    slots = items.slots()
    width = coder.slot_count
    stacks = [np.bincount(slots, minlength=width)[np.newaxis]]
    for column in items.fields.values():
        flat = np.bincount(column.codes * width + slots[column.members], minlength=len(column.values) * width)
        stacks.append(flat.reshape(len(column.values), width))
    scored = summarise_slot_tallies(np.concatenate(stacks), coder)  # every slice at once
    overall, breakdowns, row = scored[0], {}, 1
    for (name, column), tallies in zip(items.fields.items(), stacks[1:]):
        breakdowns[name] = {
            value: scored[row + i]
            for i, (value, tally) in enumerate(zip(column.values, tallies))
            if tally[: coder.excluded_slot].any()  # a slice of excluded items only has no scores
        }
        row += len(column.values)
    return overall, breakdowns


def scored_cells(items: RunItems, positions: np.ndarray | None = None) -> np.ndarray:
    """Confusion-cell numbers of the scored items (optionally only those at `positions`)."""
    slots = items.slots()
    if positions is not None:
        slots = slots[positions]
    coder = items.coder
    return slots[slots < len(coder.classes) * len(coder.columns)]


def intervals(
    items: RunItems, positions: np.ndarray | None = None, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> dict[str, Interval]:
    """Percentile bootstrap 95% intervals of accuracy and macro-F1 ({} if nothing scored);
    resampling the items' clusters when they have them."""
    if positions is None:
        positions = np.arange(len(items))
    return _intervals_of(positions, items, resamples, seed)


def slice_intervals(
    items: RunItems, field_name: str | None, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> tuple[dict[str, Interval], dict[str, dict[str, Interval]]]:
    """Intervals overall and for each slice of `field_name` (the items' slots worked out once)."""
    overall = _intervals_of(np.arange(len(items)), items, resamples, seed)
    column = items.fields.get(field_name) if field_name else None
    if column is None:
        return overall, {}
    return overall, {value: _intervals_of(column.items_with(value), items, resamples, seed) for value in column.values}


def _intervals_of(positions: np.ndarray, items: RunItems, resamples: int, seed: int) -> dict[str, Interval]:
    """Intervals from the items at `positions`: only their confusion counts matter, and
    with clusters, which cluster each scored item is in."""
    coder = items.coder
    shape = (len(coder.classes), len(coder.columns))
    slots = items.slots()[positions]
    scored = slots < shape[0] * shape[1]
    if not scored.any() or resamples <= 0:
        return {}
    if items.clusters is not None:
        clusters = items.clusters[positions][scored]
        return clustered_bootstrap_cis(slots[scored], clusters, shape, resamples=resamples, seed=seed)
    counts = np.bincount(slots[scored], minlength=shape[0] * shape[1])
    return bootstrap_cis_from_counts(counts.reshape(shape), resamples=resamples, seed=seed)


def score_items(items: RunItems, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> RunScores:
    """Every number for these items, with bootstrap intervals (resamples=0: none)."""
    overall, breakdowns = summaries(items)
    scored_breakdowns = {}
    for name, slices in breakdowns.items():
        _, per_slice = slice_intervals(items, name, resamples, seed)
        scored_breakdowns[name] = {
            value: Scores(summary, per_slice.get(value, {})) for value, summary in slices.items()
        }
    return RunScores(
        run=items.run,
        dataset=items.dataset,
        items=len(items),
        overall=Scores(overall, intervals(items, None, resamples, seed)),
        breakdowns=scored_breakdowns,
        excluded_by_label=items.excluded_by_label(),
        cutoff=items.cutoff,
        cluster=items.cluster,
        clusters=items.cluster_count(scored_positions(items)),
    )


def scored_positions(items: RunItems) -> np.ndarray:
    """Positions of the items that are scored (a gold class and a verdict, abstention or
    parse failure)."""
    coder = items.coder
    return np.flatnonzero(items.slots() < len(coder.classes) * len(coder.columns))


def without_flagged(items: RunItems, kind: str) -> RunItems:
    """The items whose claims carry no flag of this kind."""
    return items.subset(~items.flagged[kind])


def score_run(
    store: Store,
    reference: str | int,
    by: Sequence[str] = (),
    exclude_flag: str | None = None,
    cutoff: str | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    cluster: str | None = None,
) -> ScoreReport:
    """A run's scores: overall, breakdowns by `by`, and without `exclude_flag`-ged claims;
    with `cluster`, intervals resample the claims of each value of that field together."""
    fields = parse_fields(by)
    if cutoff is not None and not any(f.kind == "cutoff" for f in fields):
        fields.append(parse_field("cutoff"))
    kinds = [exclude_flag] if exclude_flag else []
    items = read_clustered(store, reference, fields, cutoff, kinds, cluster)
    full = score_items(items, resamples, seed)
    if not exclude_flag:
        return ScoreReport(full, resamples=resamples, seed=seed)
    filtered = score_items(without_flagged(items, exclude_flag), resamples, seed)
    return ScoreReport(full, filtered, exclude_flag, int(items.flagged[exclude_flag].sum()), resamples, seed)


def score_runs(
    store: Store,
    references: Sequence[str | int],
    by: Sequence[str] = (),
    exclude_flag: str | None = None,
    cutoffs: Sequence[str] = (),
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    cluster: str | None = None,
) -> list[ScoreReport]:
    """score_run for each run; `cutoffs` as --cutoff takes them (DATE or RUN=DATE)."""
    return [
        score_run(store, run.id, by, exclude_flag, cutoff, resamples, seed, cluster)
        for run, cutoff in runs_with_cutoffs(store, references, by, cutoffs)
    ]


def runs_with_cutoffs(
    store: Store, references: Sequence[str | int], by: Sequence[str] = (), cutoffs: Sequence[str] = ()
) -> Iterator[tuple[Run, str | None, str | None]]:
    """Each run named (all of them found first) with its cutoff date from `cutoffs` (as
    --cutoff takes them) and, when auto found none for its model, why (the run is then
    scored without the cutoff split); a ScoringError when a run's turn comes if it needs a
    date (--cutoff given, or --by cutoff) and was given none."""
    cutoff_for, chosen_for = parse_cutoffs(cutoffs), chosen_cutoffs(cutoffs)
    runs = [resolve_run(store, reference)[0] for reference in references]
    wants_cutoff = bool(cutoffs) or any(f.kind == "cutoff" for f in parse_fields(by))
    for run in runs:
        cutoff = cutoff_for(run)
        if wants_cutoff and cutoff is None and chosen_for(run) == AUTO_CUTOFF:
            yield run, None, no_own_cutoff(run)
        elif wants_cutoff and cutoff is None:
            raise ScoringError(f"no cutoff date for run {run.name!r}: add --cutoff {run.name}=YYYY-MM-DD")
        else:
            yield run, cutoff, None


__all__ = [
    "DEFAULT_FLAG",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "INTERVAL_METRICS",
    "KNOWN_FIELDS",
    "RunItems",
    "RunScores",
    "ScoreReport",
    "Scores",
    "ScoringError",
    "SliceField",
    "intervals",
    "read_clustered",
    "slice_intervals",
    "parse_cutoffs",
    "parse_fields",
    "read_items",
    "resolve_run",
    "runs_with_cutoffs",
    "score_items",
    "score_run",
    "score_runs",
    "scored_cells",
    "summaries",
    "without_flagged",
]
