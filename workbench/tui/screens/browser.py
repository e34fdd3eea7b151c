"""The claims browser: filter bar, paged table, honest counts, and the keys that act on claims."""

from __future__ import annotations

import gc

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Label

from store import FilterError, Run
from store.filter_terms import parse_terms
from workbench.render.display import printable
from workbench.tui.errors import ReportsWorkerErrors
from workbench.tui.messages import CatalogueLoaded, DataChanged
from workbench.tui.paging import ClaimQuery
from workbench.tui.screens.claim_actions import ClaimActions
from workbench.tui.screens.claim_counting import CountsClaims
from workbench.tui.status_line import BrowserState, status_line
from workbench.tui.widgets.claim_table import ClaimTable
from workbench.tui.widgets.columns import run_titles
from workbench.tui.widgets.filter_bar import FilterBar
from workbench.tui.widgets.footer import KeyFooter
from workbench.tui.widgets.run_status import RunStatus

DEFAULT_RUN_COLUMNS = 2
MAX_RUN_COLUMNS = 4


def freeze_startup_objects() -> None:
    """What start-up built lives as long as the app: collect once (after the first page is
    painted), then keep the survivors out of the cyclic collector's way, so its pauses stay
    short while a person scrolls."""
    gc.collect()
    gc.freeze()


class ClaimsScreen(CountsClaims, ReportsWorkerErrors, Screen):
    """Every claim under the filter, a page at a time."""

    BINDINGS = [
        Binding("slash", "focus_filter", "Filter", id="claims.filter", tooltip="Type a filter"),
        Binding("g", "goto", "Go to", show=False, id="claims.goto", tooltip="Jump to a claim id (or DATASET:ID)"),
        Binding("s", "sort", "Sort", show=False, id="claims.sort", tooltip="Sort by the next column"),
        Binding("S", "reverse", "Reverse", show=False, id="claims.reverse", tooltip="Reverse the sort order"),
        Binding("f", "flag", "Flag", id="claims.flag", tooltip="Flag this claim, the marked rows or the filter"),
        Binding("x", "clear_marks", "Unmark", show=False, id="claims.clear_marks", tooltip="Unmark every row"),
        Binding("r", "run", "Run", id="claims.run", tooltip="Run a model on this claim, the marked rows or the filter"),
        Binding(
            "v", "choose_runs", "Runs", show=False, id="claims.runs", tooltip="Choose whose verdicts the table marks"
        ),
        Binding(
            "n",
            "next_error",
            "Next error",
            show=False,
            id="claims.next_error",
            tooltip="Next claim the focus run got wrong",
        ),
        Binding(
            "N",
            "previous_error",
            "Prev error",
            show=False,
            id="claims.previous_error",
            tooltip="Previous claim the focus run got wrong",
        ),
        Binding(
            "E",
            "view('errors')",
            "Errors",
            show=False,
            id="claims.view_errors",
            tooltip="Only the focus run's wrong answers",
        ),
        Binding(
            "A",
            "view('abstained')",
            "Abstained",
            show=False,
            id="claims.view_abstained",
            tooltip="Only the focus run's abstentions",
        ),
        Binding(
            "P",
            "view('parse_failures')",
            "Parse failures",
            show=False,
            id="claims.view_parse_failures",
            tooltip="Only the focus run's unparsed answers",
        ),
        Binding("t", "triage", "Triage", id="claims.triage", tooltip="Walk the focus run's wrong answers"),
        Binding("c", "copy_id", "Copy id", show=False, id="claims.copy_id", tooltip="Copy the claim id"),
    ]

    def __init__(self):
        super().__init__()
        self.chosen_runs: list[int] | None = None
        self._newest_when_chosen = 0
        self.count: int | None = None
        self._counted_filter: str | None = None
        self._catalogue_requested = False
        self._count_stale = False
        self._last_count = 0.0
        self._recount_timer = None
        self._epoch = 0
        self.actions = ClaimActions(self)

    def compose(self) -> ComposeResult:
        stores = self.app.stores
        yield FilterBar(stores, id="filter-bar")
        yield ClaimTable(stores, id="claims")
        yield Label(id="status", markup=False)
        yield RunStatus()
        yield KeyFooter()  # fitted to the width: whole keys only

    @property
    def table(self) -> ClaimTable:
        return self.query_one(ClaimTable)

    @property
    def filter_bar(self) -> FilterBar:
        return self.query_one(FilterBar)

    @property
    def focus_run(self) -> Run | None:
        """The run that next/previous error, views and triage act on."""
        ids = self.table.query.run_ids
        return self.app.catalogue.run_named(ids[0]) if ids else None

    def on_mount(self) -> None:
        self._epoch = self.app.data_epoch
        self.table.focus()
        self.apply_filter("")

    def on_screen_resume(self) -> None:
        if self._epoch != self.app.data_epoch:
            self._refresh_data()

    # -- applying a filter -------------------------------------------------------

    def apply_filter(self, text: str, claim_id: int | None = None) -> None:
        """Show the claims matching `text` (the metrics view calls this through app.show_claims)."""
        self.filter_bar.set_text(text)
        try:
            named = [t.value for t in parse_terms(text) if t.field == "run"]
        except FilterError as error:
            self.filter_bar.show_error(text, error)
            return
        query = self._query(text, named)
        self.table.show(query, claim_id)
        if text != self._counted_filter:
            self.count = None  # a re-count of the same filter keeps showing the old figure
        self.show_status()

    def _query(self, text: str, named_runs: list[str]) -> ClaimQuery:
        catalogue = self.app.catalogue
        run_ids = self._run_columns(named_runs)
        current = self.table.query
        self.table.run_titles = run_titles([catalogue.run_named(i) for i in run_ids])
        self.table.scored = catalogue.scored
        return ClaimQuery(text, current.sort, current.descending, run_ids)

    def _run_columns(self, named_runs: list[str]) -> tuple[int, ...]:
        """The runs the filter names first, then the chosen ones (default: the newest runs)."""
        catalogue = self.app.catalogue
        named = [
            catalogue.run_named(int(name) if name.isdigit() else name) or catalogue.run_named(name)
            for name in named_runs
        ]
        chosen = self.chosen_runs
        if chosen is None:
            chosen = [run.id for run in catalogue.runs[:DEFAULT_RUN_COLUMNS]]
        else:  # a run begun since (a CLI run in another terminal) shows up without asking
            chosen = chosen + [run.id for run in catalogue.runs if run.id > self._newest_when_chosen]
        ids = [run.id for run in named if run] + [i for i in chosen if catalogue.run_named(i)]
        return tuple(dict.fromkeys(ids))[:MAX_RUN_COLUMNS]

    def choose_runs(self, run_ids: list[int]) -> None:
        """Show these runs' columns (the first is the focus run), and any run begun later."""
        self.chosen_runs = run_ids
        self._newest_when_chosen = max([run.id for run in self.app.catalogue.runs] + run_ids, default=0)

    def show_run(self, run_id: int) -> None:
        """Put a run first among the verdict columns (a run just started from this window)."""
        current = list(self.table.query.run_ids) if self.chosen_runs is None else self.chosen_runs
        self.choose_runs([run_id] + [i for i in current if i != run_id])

    @on(FilterBar.Applied)
    def _filter_applied(self, message: FilterBar.Applied) -> None:
        self.apply_filter(message.text)
        self.table.focus()

    @on(FilterBar.Left)
    def _filter_left(self) -> None:
        self.filter_bar.set_text(self.table.good_query.filter)
        self.table.focus()

    @on(ClaimTable.FilterRejected)
    def _filter_rejected(self, message: ClaimTable.FilterRejected) -> None:
        self.filter_bar.show_error(message.query.filter, message.error)
        self.filter_bar.input.focus()
        if self._counted_filter == self.table.good_query.filter:
            self.count = self.table.total  # the table still shows the last good filter, so its count
            self.show_status()

    @on(ClaimTable.Loaded)
    def _loaded(self, message: ClaimTable.Loaded) -> None:
        """The first page is on screen: now count (and, the first time, read the catalogue).

        Counting waits for the page so the two queries do not compete for the disk and the
        two cores: the page a person is waiting for comes first.
        """
        if message.missing_target is not None:
            self.notify(f"claim {message.missing_target} does not match this filter", severity="warning")
        if not self._catalogue_requested:
            self._catalogue_requested = True
            self.app.load_catalogue()
            self.call_after_refresh(freeze_startup_objects)
        if message.query.filter != self._counted_filter:
            self._start_count()
        elif self._count_stale:
            self._recount_soon()
        self._locate()
        self.show_status()

    # -- status line -------------------------------------------------------------------

    @on(ClaimTable.Highlighted)
    def _highlighted(self) -> None:
        self.show_status()

    def on_resize(self) -> None:
        self.show_status()  # refitted: what gives way depends on the width

    def show_status(self) -> None:
        """The status line: count, position, sort, marks, focus run."""
        state = BrowserState.of(self.table, self.count, self.app.catalogue.total_claims, self.focus_run)
        status = self.query_one("#status", Label)
        status.update(status_line(state, (status.size.width or self.app.size.width) - 2))  # less its padding

    # -- live data ------------------------------------------------------------------------

    @on(DataChanged)
    def _data_changed(self) -> None:
        self._refresh_data()

    @on(CatalogueLoaded)
    def _catalogue(self) -> None:
        self.table.scored = self.app.catalogue.scored
        self.table.show_images(self.app.catalogue.has_images)
        self.refresh_run_columns()  # a new run, or one just started here

    def refresh_run_columns(self) -> None:
        """Re-read the table, keeping the view, if the verdict columns should change."""
        table = self.table
        named = [t.value for t in parse_terms(table.good_query.filter) if t.field == "run"]
        if self._run_columns(named) != table.query.run_ids:
            table.requery(self._query(table.good_query.filter, named))
        self.show_status()

    def _refresh_data(self) -> None:
        self._epoch = self.app.data_epoch
        self._count_stale = True
        self.table.reload()

    # -- keys ----------------------------------------------------------------------------

    def check_action(self, action: str, parameters) -> bool | None:
        """The footer must not offer "/ Filter" inside the filter bar: there "/" is typed."""
        if action == "focus_filter" and self.focused is self.filter_bar.input:
            return False
        return True

    def action_focus_filter(self) -> None:
        self.filter_bar.input.focus()

    @on(ClaimTable.SortClicked)
    def _sort_clicked(self, message: ClaimTable.SortClicked) -> None:
        self.actions.sort_by(message.sort)

    # The bindings' actions on claims live in ClaimActions.
    def action_sort(self) -> None:
        self.actions.sort()

    def action_reverse(self) -> None:
        self.actions.reverse()

    def action_clear_marks(self) -> None:
        self.actions.clear_marks()

    def action_copy_id(self) -> None:
        self.actions.copy_id()

    def action_choose_runs(self) -> None:
        self.actions.pick_runs()

    def action_view(self, view: str) -> None:
        self.actions.show_view(view)

    def action_next_error(self) -> None:
        self.actions.step_error(forward=True)

    def action_previous_error(self) -> None:
        self.actions.step_error(forward=False)

    def action_triage(self) -> None:
        self.actions.triage()

    def action_run(self) -> None:
        self.actions.run()

    def action_flag(self) -> None:
        self.actions.flag()

    @on(ClaimTable.Opened)
    def _opened(self, message: ClaimTable.Opened) -> None:
        self.app.open_claim(message.row.id)

    def action_goto(self) -> None:
        from workbench.tui.widgets.dialogs import TextPrompt

        def go(reference: str | None) -> None:
            if reference and reference.strip():
                self._resolve(reference.strip())

        self.app.push_screen(TextPrompt("Go to claim", "42 or DATASET:EXTERNAL_ID"), go)

    @work(thread=True, exclusive=True, group="resolve", exit_on_error=False)
    def _resolve(self, reference: str) -> None:
        claim_id = self.app.stores.get().claims.resolve(reference)
        self.app.call_from_thread(self._go_to, reference, claim_id)

    def _go_to(self, reference: str, claim_id: int | None) -> None:
        if claim_id is None:
            self.notify(f"no claim {printable(reference)!r}", severity="warning", markup=False)
        else:
            self.table.jump_to(claim_id)
