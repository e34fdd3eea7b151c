"""The metrics view: live score panels for one or more runs, breakdowns, comparisons.

A timer starts a short thread worker that asks MetricsWatcher for news (PRAGMA
data_version on that thread's own connection, then only the predictions written since
the last poll). Cheap numbers repaint as soon as they arrive; bootstrap intervals and
paired tests follow from a second worker and say "updating…" while they lag.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Footer, Input, Label, Static
from textual.worker import get_current_worker
from textual_plotext import PlotextPlot

from workbench.render.display import printable
from workbench.scoring.fields import FieldError
from workbench.scoring.runs import ScoringError
from workbench.tui.errors import ReportsWorkerErrors
from workbench.tui.messages import DataChanged
from workbench.tui.screens.metrics.drilldown import OpensClaimsFromTables
from workbench.tui.screens.metrics.judging import JudgesExplanations
from workbench.tui.screens.metrics.painting import DrawnPanel, PaintsPanels
from workbench.tui.screens.metrics.view_keys import ChangesTheView
from workbench.tui.screens.metrics.watch import (
    BREAKDOWN_FIELDS,
    IntervalSet,
    MetricsWatcher,
    PanelUpdate,
    ViewConfig,
    compute_intervals,
)
from workbench.tui.widgets.footer import KeyFooter
from workbench.tui.widgets.run_status import RunStatus

POLL_SECONDS = 0.5
_FIRST_READS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="metrics-first-read")
DEFAULT_FLAG_KIND = "contaminated"


class MetricsScreen(ReportsWorkerErrors, OpensClaimsFromTables, ChangesTheView, JudgesExplanations, PaintsPanels):
    """Scores of the chosen runs, live while they run."""

    HELP = """\
Scores of the runs, updating live while they run (also runs started from the command
line in another terminal). Accuracy and macro-F1 carry 95% bootstrap intervals; they
are worked out in the background and say "updating…" while they lag the counts.
Enter on a confusion-matrix cell opens its claims in the browser (on the gold label: the
whole row); the arrow keys move between cells. Enter on a breakdown
row opens that slice's claims; Enter on a flip row opens the claims one run got right
and the other wrong. b / B cycle the breakdown field (importance, task, domain, label,
claim type, flag, cutoff); c types the cutoff date for the before/after split; x shows
every number with and without the claims flagged with the kind typed after k (default
contaminated); R reads everything again. At the bottom: each run's explanation
quality, time and cost, and failure categories, as `workbench metrics` prints them.
Definitions: docs/metrics.md."""

    BINDINGS = [
        Binding("escape,m", "back", "Back", id="metrics.back", tooltip="Back to where you were"),
        Binding(
            "b",
            "cycle_field(1)",
            "Breakdown",
            id="metrics.next_field",
            tooltip="Break the scores down by the next field",
        ),
        Binding(
            "B",
            "cycle_field(-1)",
            "Prev field",
            show=False,
            id="metrics.previous_field",
            tooltip="Break the scores down by the previous field",
        ),
        Binding(
            "j",
            "judge",
            "Judge",
            id="metrics.judge",
            tooltip="Have a judge model score the first run's explanations (EQ, 0-10)",
        ),
        Binding(
            "x",
            "toggle_exclude",
            "Excl. flagged",
            id="metrics.exclude",
            tooltip="Show every number with and without the flagged claims",
        ),
        Binding(
            "k",
            "edit('flag-kind')",
            "Flag kind",
            id="metrics.flag_kind",
            tooltip="Which flag kind x leaves out (default contaminated)",
        ),
        Binding(
            "c",
            "edit('cutoff')",
            "Cutoff",
            id="metrics.cutoff",
            tooltip="A model's training cutoff date, for the before/after breakdown",
        ),
        Binding(
            "R", "reload", "Reload", show=False, id="metrics.reload", tooltip="Read the runs from the database again"
        ),
        Binding(
            "f",
            "flips",
            "Flips",
            id="metrics.flips",
            tooltip="Every claim whose verdict flips between the first run (the base) and the second",
        ),
    ]

    AUTO_FOCUS = "#metrics-body"
    DEFAULT_CSS = """
    MetricsScreen #metrics-header { height: 1; padding: 0 1; background: $panel; }
    MetricsScreen #metrics-controls { height: 1; padding: 0 1; }
    MetricsScreen #metrics-controls Label { width: auto; padding: 0 1 0 0; }
    MetricsScreen #metrics-controls Input {
        width: 16; height: 1; border: none; padding: 0; margin: 0 2 0 0; background: $surface;
    }
    MetricsScreen #metrics-controls Input:focus { background: $boost; }
    MetricsScreen #metrics-body { height: 1fr; }
    MetricsScreen #metrics-body > Static { height: auto; padding: 0 1; }
    MetricsScreen .metrics-title { height: 1; padding: 0 1; text-style: bold; background: $boost; }
    MetricsScreen #confusions { height: auto; }
    MetricsScreen .confusion-title { padding: 0 1; text-style: italic; }
    MetricsScreen DataTable { height: auto; max-height: 16; margin: 0 1 1 1; }
    MetricsScreen #breakdown-chart { height: 14; margin: 0 1; }
    """

    class Numbers(Message):
        """Fresh cheap numbers (a worker read something new)."""

        def __init__(self, update: PanelUpdate, intervals: IntervalSet | None = None):
            super().__init__()
            self.update = update
            self.intervals = intervals

    class IntervalsReady(Message):
        """A bootstrap pass finished (result None: cancelled or failed)."""

        def __init__(self, result: IntervalSet | None):
            super().__init__()
            self.result = result

    class ReadFailed(Message):
        def __init__(self, error: str):
            super().__init__()
            self.error = error

    def __init__(
        self,
        db_path: Path | None = None,
        run_ids: list[int] | None = None,
        by: list[str] | None = None,
        *,
        poll_seconds: float = POLL_SECONDS,
        resamples: int = 1000,
        seed: int = 0,
        cluster: str | None = None,
    ):
        super().__init__()
        self.db_path = Path(db_path) if db_path is not None else None
        self.run_ids = list(run_ids or [])
        self.fields = list(dict.fromkeys([*(by or []), *BREAKDOWN_FIELDS]))
        self.field_index = 0
        self.flag_kind, self.exclude = DEFAULT_FLAG_KIND, False
        self.cutoff: str | None = None
        self.poll_seconds = poll_seconds
        self.resamples, self.seed, self.cluster = resamples, seed, cluster  # cluster: as ViewConfig's
        self.update: PanelUpdate | None = None
        self.intervals: IntervalSet | None = None
        self.error: str | None = None
        self._watcher: MetricsWatcher | None = None
        self._ci_busy = False
        self._ci_pending: PanelUpdate | None = None
        self._breakdown_keys: list[tuple[int, str]] = []
        self._first_read: Future | None = None
        if self.db_path is not None and self.run_ids:
            # The first read starts now, while the screen is still being built (~20 ms sooner).
            self._watcher = MetricsWatcher(self.db_path)
            self._first_read = _FIRST_READS.submit(self._watcher.step, self.wanted(), True)
        self._flip_filters: list[str] = []

    # -- layout -------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="metrics-header")
        with Horizontal(id="metrics-controls"):
            yield Label(id="field-label")
            yield Label("flag kind (k)")
            yield Input(value=DEFAULT_FLAG_KIND, id="flag-kind")
            yield Label("cutoff (c)")
            yield Input(placeholder="YYYY-MM-DD", id="cutoff")
        with VerticalScroll(id="metrics-body"):
            yield DrawnPanel(id="overall-panel")
            yield Static("per class", classes="metrics-title")
            yield DrawnPanel(id="class-panel")
            yield Static("confusion · Enter opens a cell's claims", classes="metrics-title")
            yield Vertical(id="confusions")
            yield Static(id="breakdown-title", classes="metrics-title")
            yield DataTable(id="breakdown", cursor_type="row", zebra_stripes=True)
            yield PlotextPlot(id="breakdown-chart")
            yield Static("compare (second run against the first)", classes="metrics-title")
            yield DrawnPanel(id="compare-panel")
            yield DataTable(id="flips", cursor_type="row")
            yield Static(id="search-title", classes="metrics-title")
            yield Static(id="search-panel")
            yield Static(
                "explanation quality · time and cost · failure categories", id="report-title", classes="metrics-title"
            )
            yield DrawnPanel(id="report-panel")
        yield RunStatus()  # a judge run started here (j) shows its progress here; K cancels it
        # The key bar is mounted once the first numbers are painted (or after a second):
        # building it costs ~40 ms the first read would otherwise wait for.

    def on_mount(self) -> None:
        if self.db_path is None:
            self.db_path = Path(self.app.db_path)
        if self._watcher is None:
            self._watcher = MetricsWatcher(self.db_path)
        self._show_field()
        self._paint()
        if not self.run_ids:
            self._choose_newest_run()
        else:
            self._step()
        self.set_interval(self.poll_seconds, self._step)
        self.set_timer(1.0, self._show_keys)

    def _show_keys(self) -> None:
        if not self.query(Footer):
            self.mount(KeyFooter())  # fitted to the width: whole keys only
            self.call_after_refresh(self.refresh_bindings)  # a late footer lists the keys once they "change"

    # -- reading ---------------------------------------------------------------------------

    @property
    def field(self) -> str:
        return self.fields[self.field_index]

    def wanted(self) -> ViewConfig:
        """The view as the keys have set it."""
        return ViewConfig(tuple(self.run_ids), self.field, self.flag_kind, self.exclude, self.cutoff, self.cluster)

    def _step(self, force: bool = False) -> None:
        if self._watcher is not None and self.run_ids:
            self._read(self.wanted(), force)

    @work(thread=True, group="metrics-read", exit_on_error=False)
    def _read(self, config: ViewConfig, force: bool) -> None:
        """Runs on a worker thread: asks the watcher, posts what it found."""
        first, self._first_read = self._first_read, None
        try:
            update = first.result() if first is not None else self._watcher.step(config, force)
        except (ScoringError, FieldError) as error:
            self.post_message(self.ReadFailed(str(error)))
            return
        if update is None:
            return
        intervals = None
        if update.first:
            # A first read is painted once, intervals and all: on this thread they cost less
            # than another paint while the screen waits for them (live updates stay split).
            intervals = compute_intervals(
                update, lambda: get_current_worker().is_cancelled, self.resamples, self.seed, self._watcher.pool
            )
        self.post_message(self.Numbers(update, intervals))

    @work(thread=True, group="metrics-read", exit_on_error=False)
    def _choose_newest_run(self) -> None:
        runs = self._watcher.stores.get().runs.list()
        self.app.call_from_thread(self._runs_chosen, [runs[0].id] if runs else [])

    def _runs_chosen(self, run_ids: list[int]) -> None:
        self.run_ids = run_ids
        if not run_ids:
            self.error = "no runs yet: start one from the browser (r) or with `workbench run`"
            self._paint()
        self._step()

    @on(DataChanged)
    def _data_changed(self) -> None:
        self._step()

    @on(Numbers)
    def _numbers(self, message: Numbers) -> None:
        if message.update.config.read_key != self.wanted().read_key:
            return  # an answer to an older question; the next step brings the right one
        self.update, self.error = message.update, None
        if message.intervals is not None:
            self.intervals = message.intervals
        else:
            self._start_intervals(message.update)
        self._paint()
        self.call_after_refresh(self._show_keys)

    @on(ReadFailed)
    def _read_failed(self, message: ReadFailed) -> None:
        self.error = message.error
        self._paint()
        self.notify(printable(message.error), severity="error", markup=False)

    # -- intervals (one pass at a time; the newest waiting update goes next) -------------------

    def _start_intervals(self, update: PanelUpdate) -> None:
        if self._ci_busy:
            self._ci_pending = update
            return
        self._ci_busy = True
        self._compute_intervals(update)

    @work(thread=True, group="metrics-intervals", exit_on_error=False)
    def _compute_intervals(self, update: PanelUpdate) -> None:
        worker = get_current_worker()
        result = None
        try:
            result = compute_intervals(
                update, lambda: worker.is_cancelled, self.resamples, self.seed, self._watcher.pool
            )
        finally:
            self.post_message(self.IntervalsReady(result))

    @on(IntervalsReady)
    def _intervals_ready(self, message: IntervalsReady) -> None:
        self._ci_busy = False
        result = message.result
        if result is not None and (self.intervals is None or result.generation >= self.intervals.generation):
            self.intervals = result
            self._paint()
        pending, self._ci_pending = self._ci_pending, None
        if pending is not None:
            self._start_intervals(pending)

    # -- keys ------------------------------------------------------------------------------------

    def on_unmount(self) -> None:
        if self._watcher is not None:  # its connections: this thread's and those of ended workers
            self._watcher.stores.close_all()

    def action_back(self) -> None:
        if isinstance(self.focused, Input):
            self.query_one("#metrics-body").focus()
            return
        self.app.pop_screen()
