"""What the metrics view knows, kept current from worker threads (no widgets here).

MetricsWatcher owns the live runs. Each poll, on a worker thread with that thread's own
connection, checks PRAGMA data_version; when something was committed it reads only the
predictions written since the last poll and records them in LiveMetrics, then hands the
screen a PanelUpdate of cheap numbers, with the other parts of each run's report (EQ,
searches, time and cost, failure categories: report_parts.py). Bootstrap intervals and
paired tests are worked out from the update's snapshots by `compute_intervals`, in another
worker, and may lag.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from store import Run
from workbench.metrics import Interval, MeanInterval, MetricSummary, PairedComparison
from workbench.reports import RunReport, SearchSummary
from workbench.scoring.compare import Comparison, compare_items, paired_tests
from workbench.scoring.items import RunItems
from workbench.scoring.live import LiveRun, flag_signature, load_live_runs
from workbench.scoring.runs import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    ScoringError,
    parse_fields,
    slice_intervals,
    without_flagged,
)
from workbench.tui.db import ThreadStores
from workbench.tui.screens.metrics.clustering import Clustering
from workbench.tui.screens.metrics.report_parts import ReportParts

BREAKDOWN_FIELDS = ("importance", "task", "domain", "label", "claim-type", "modality", "flag:{kind}", "cutoff")
"""What `b` cycles through ({kind}: the flag kind of the exclude toggle)."""


@dataclass(frozen=True)
class ViewConfig:
    """What the screen asks for; a different config means reading the runs again."""

    run_ids: tuple[int, ...]
    field: str
    flag_kind: str = "contaminated"
    exclude: bool = False
    cutoff: str | None = None
    cluster: str | None = None
    """What intervals resample together: a field, `none`, or None for the dataset profile's
    natural cluster (as `metrics --cluster`)."""

    @property
    def read_key(self) -> tuple:
        """What the runs are read with (the exclude toggle needs no new read)."""
        return (self.run_ids, self.field, self.flag_kind, self.cutoff, self.cluster)

    @property
    def exclude_flag(self) -> str | None:
        return self.flag_kind if self.exclude and self.flag_kind else None

    @property
    def loads_field(self) -> bool:
        """The breakdown can be read (cutoff needs a date first)."""
        return bool(self.field) and (self.field != "cutoff" or self.cutoff is not None)


@dataclass(frozen=True)
class RunNumbers:
    """One run's cheap numbers, from its live counters."""

    run: Run
    dataset: str
    items: int
    overall: MetricSummary
    slices: dict[str, MetricSummary]
    filtered: MetricSummary | None = None
    filtered_slices: dict[str, MetricSummary] | None = None
    flagged: int = 0
    report: RunReport | None = None
    """The other parts of the run's report: EQ, searches, time and cost, failure categories."""

    @property
    def explanations(self) -> MeanInterval | None:
        """EQ by the run's newest judge run (0-10, with its interval), when it has one."""
        found = self.report.explanations if self.report is not None else None
        return found.overall if found is not None else None

    @property
    def search(self) -> SearchSummary | None:
        """A search run's searches, leaks and query reformulations (by the flag kind)."""
        return self.report.search if self.report is not None else None


@dataclass(frozen=True)
class PanelUpdate:
    """Everything the panels show apart from intervals, with snapshots to compute those."""

    generation: int
    config: ViewConfig
    runs: list[RunNumbers]
    snapshots: list[RunItems]
    comparison: Comparison | None = None
    filtered_comparison: Comparison | None = None
    field_name: str | None = None
    """The breakdown field as shown (e.g. claim-type), None when not loaded."""
    first: bool = False
    """The runs were read afresh (opening the view, another field or flag kind)."""
    differences: tuple = ()
    """What differs between the first two runs' manifests besides the model."""
    cluster: str | None = None
    """The field the snapshots' intervals and paired tests resample together (None: claims)."""


@dataclass(frozen=True)
class RunIntervals:
    overall: dict[str, Interval] = field(default_factory=dict)
    slices: dict[str, dict[str, Interval]] = field(default_factory=dict)


@dataclass(frozen=True)
class IntervalSet:
    """Bootstrap intervals and paired tests for one generation of numbers."""

    generation: int
    runs: list[RunIntervals]
    filtered: list[RunIntervals] | None = None
    paired: dict[str, PairedComparison] = field(default_factory=dict)
    filtered_paired: dict[str, PairedComparison] = field(default_factory=dict)


# Runs are read side by side, each on a thread with its own connection (SQLite works
# without the GIL): two big runs take the time of one. The threads and their connections
# outlive a metrics view, so opening it again does not open the database again.
_READERS: ThreadPoolExecutor | None = None
_READER_STORES: dict[Path, ThreadStores] = {}


def _readers(db_path: Path) -> tuple[ThreadPoolExecutor, ThreadStores]:
    global _READERS
    if _READERS is None:
        _READERS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="metrics-read")
    path = db_path.resolve()
    if path not in _READER_STORES:  # one database at a time: another's connections are closed
        _READER_STORES.clear()
        _READER_STORES[path] = ThreadStores(db_path)
    return _READERS, _READER_STORES[path]


def _differences(store, runs: list[Run]) -> tuple:
    """What differs besides the model between the first two runs (their manifests)."""
    if len(runs) < 2:
        return ()
    from workbench.runs.manifest import differences, run_manifest

    return tuple(differences(run_manifest(store, runs[0]), run_manifest(store, runs[1])))


class MetricsWatcher:
    """The live runs behind the metrics view; one worker at a time may step it."""

    def __init__(self, db_path: str | Path):
        self.stores = ThreadStores(db_path)
        self._readers, self._reader_stores = _readers(Path(db_path))
        self._lock = threading.Lock()
        self._config: ViewConfig | None = None
        self._lives: list[LiveRun] = []
        self._versions: dict[int, int] = {}
        self._flags: tuple = ()
        self._statuses: tuple = ()
        self._differences: tuple = ()
        self._clustering = Clustering()
        self._parts = ReportParts()
        self._answers = 0
        """Answers recorded since the runs were read (what the report's parts depend on)."""
        self.generation = 0

    @property
    def pool(self) -> ThreadPoolExecutor:
        """The reader threads (intervals are drawn on them too)."""
        return self._readers

    def step(self, wanted: ViewConfig, force: bool = False) -> PanelUpdate | None:
        """Bring the numbers up to date; None when nothing changed (or another step runs)."""
        if not self._lock.acquire(blocking=False):
            return None
        try:
            return self._step(wanted, force)
        finally:
            self._lock.release()

    def _step(self, wanted: ViewConfig, force: bool) -> PanelUpdate | None:
        store = self.stores.get()
        thread = threading.get_ident()
        # Read the version first: a commit landing while we read is seen next time.
        version = store.data_version()
        first = force or self._config is None or wanted.read_key != self._config.read_key
        if first:
            self._load(store, wanted)
        elif wanted != self._config:
            self._config = wanted  # the exclude toggle: both sets of counters are kept already
        elif self._versions.get(thread) == version:
            return None
        elif flag_signature(store, wanted.flag_kind) != self._flags:
            self._load(store, wanted)
        else:
            changed = sum(live.poll(store) for live in self._lives)
            self._answers += changed
            statuses = self._read_statuses(store)
            parts_read = self._parts.refresh(
                store, self._runs(), wanted.flag_kind, self._answers, now=statuses != self._statuses
            )
            if not changed and statuses == self._statuses and not parts_read:
                if not self._parts.pending:  # else look again at the next poll, for the parts waiting
                    self._versions[thread] = version
                return None
            self._statuses = statuses
        if not self._parts.pending:
            self._versions[thread] = version
        self.generation += 1
        return self._update(first)

    def _load(self, store, config: ViewConfig) -> None:
        field_names = [self._field(config)] if config.loads_field else []
        self._clustering = Clustering.of(store, config, parse_fields(field_names))
        fields = self._clustering.fields
        kind = config.flag_kind or None
        self._config, self._lives = config, []
        self._flags = flag_signature(store, config.flag_kind)
        # Counters without the flagged claims are always kept, so the toggle is instant.
        self._lives = load_live_runs(
            store, self._reader_stores.get, self._readers, config.run_ids, fields, config.cutoff, kind
        )
        self._statuses = self._read_statuses(store)
        self._differences = _differences(store, self._runs())
        self._answers = 0
        self._parts.load(store, self._runs(), config.flag_kind, sum(len(live.items) for live in self._lives))

    @staticmethod
    def _field(config: ViewConfig) -> str:
        return config.field.replace("{kind}", config.flag_kind)

    def _runs(self) -> list[Run]:
        return [live.run for live in self._lives]

    def _read_statuses(self, store) -> tuple:
        ids = [live.run.id for live in self._lives]
        if not ids:
            return ()
        statuses = store.runs.statuses(ids)
        return tuple(statuses.get(i) for i in ids)

    def _update(self, first: bool = False) -> PanelUpdate:
        config = self._config
        field_name = self._clustering.breakdown
        runs = [
            self._numbers(live, field_name, status)
            for live, status in zip(self._lives, self._statuses or [None] * len(self._lives))
        ]
        snapshots = [self._clustering.apply(live.snapshot()) for live in self._lives]
        comparison = filtered = None
        if len(snapshots) >= 2 and _same_space(snapshots[0], snapshots[1]):
            comparison = compare_items(snapshots[0], snapshots[1], resamples=0)
            if config.exclude_flag:
                filtered = compare_items(
                    without_flagged(snapshots[0], config.flag_kind),
                    without_flagged(snapshots[1], config.flag_kind),
                    resamples=0,
                )
        return PanelUpdate(
            self.generation,
            config,
            runs,
            snapshots,
            comparison,
            filtered,
            field_name,
            first,
            self._differences,
            self._clustering.name,
        )

    def _numbers(self, live: LiveRun, field_name: str | None, status: str | None) -> RunNumbers:
        run = dataclasses.replace(live.run, status=status) if status else live.run
        exclude = self._config.exclude_flag
        flags = live.items.flagged.get(self._config.flag_kind)
        return RunNumbers(
            run=run,
            dataset=live.items.dataset,
            items=len(live.items),
            overall=live.summary(),
            slices=live.breakdown(field_name) if field_name else {},
            filtered=live.summary(filtered=True) if exclude else None,
            filtered_slices=(live.breakdown(field_name, filtered=True) if field_name else {}) if exclude else None,
            flagged=int(flags.sum()) if flags is not None else 0,
            report=self._parts.reports.get(live.run.id),
        )


def _same_space(a: RunItems, b: RunItems) -> bool:
    return a.space.labels == b.space.labels and a.space.abstain == b.space.abstain


def compute_intervals(
    update: PanelUpdate,
    cancelled: Callable[[], bool] = lambda: False,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    pool: ThreadPoolExecutor | None = None,
) -> IntervalSet | None:
    """Bootstrap intervals for every run (overall and per slice) and the paired tests of
    the first two runs, as of `update`; None if cancelled part-way. With a pool, the runs'
    intervals are drawn on it while this thread does the paired tests."""
    exclude = update.config.exclude_flag

    def of_run(items: RunItems) -> tuple[RunIntervals, RunIntervals | None]:  # cancelled() is this thread's
        found = _run_intervals(items, update.field_name, resamples, seed)
        return found, (
            _run_intervals(without_flagged(items, update.config.flag_kind), update.field_name, resamples, seed)
            if exclude
            else None
        )

    drawn = pool.map(of_run, update.snapshots) if pool is not None else map(of_run, update.snapshots)
    paired, filtered_paired = _paired(update, resamples, seed)
    pairs = list(drawn)
    if cancelled():
        return None
    runs = [found for found, _ in pairs]
    filtered = [without for _, without in pairs] if exclude else None
    return IntervalSet(update.generation, runs, filtered, paired, filtered_paired)


def _paired(update: PanelUpdate, resamples: int, seed: int) -> tuple[dict, dict]:
    """The paired tests of the first two runs (and without the flagged claims)."""
    exclude = update.config.exclude_flag
    paired = filtered_paired = {}
    if update.comparison is not None and update.comparison.shared:
        a, b = update.snapshots[:2]
        paired = paired_tests(a, b, resamples, seed)
        if exclude and update.filtered_comparison is not None and update.filtered_comparison.shared:
            filtered_paired = paired_tests(
                without_flagged(a, update.config.flag_kind),
                without_flagged(b, update.config.flag_kind),
                resamples,
                seed,
            )
    return paired, filtered_paired


def _run_intervals(items: RunItems, field_name: str | None, resamples: int, seed: int) -> RunIntervals:
    return RunIntervals(*slice_intervals(items, field_name, resamples, seed))


__all__ = [
    "BREAKDOWN_FIELDS",
    "IntervalSet",
    "MetricsWatcher",
    "PanelUpdate",
    "RunIntervals",
    "RunNumbers",
    "ScoringError",
    "ViewConfig",
    "compute_intervals",
]
