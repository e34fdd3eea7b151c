"""The workbench app: screens, the shared catalogue, live refresh, undo, keymap, themes."""

from __future__ import annotations

import importlib
from pathlib import Path

from textual import on, work
from textual.app import App
from textual.binding import Binding
from textual.filter import Monochrome
from textual.widget import Widget
from textual.worker import Worker, WorkerState

from store import FlagChange, Store
from workbench.config import Settings, load_settings
from workbench.render.display import printable
from workbench.tui.commands import WorkbenchCommands
from workbench.tui.db import ThreadStores
from workbench.tui.errors import ReportsWorkerErrors
from workbench.tui.messages import Catalogue, CatalogueLoaded, DataChanged, FlagsChanged
from workbench.tui.no_color import LegibleMonochrome
from workbench.tui.runs import RunControl, RunEvent

POLL_SECONDS = 0.5


class WorkbenchApp(ReportsWorkerErrors, App):
    """Browse claims, read evidence and verdicts, run models, flag and triage."""

    CSS_PATH = "app.tcss"
    TITLE = "fact-check workbench"
    COMMANDS = App.COMMANDS | {WorkbenchCommands}
    BINDINGS = [
        Binding(
            "question_mark",
            "help",
            "Help",
            id="app.help",
            tooltip="Every key, the filter language, and help for what is focused",
        ),
        Binding("q", "quit", "Quit", id="app.quit", tooltip="Leave the workbench"),
        Binding("f1", "help_focused", "Help", show=False, id="app.help_focused", tooltip="Help for the focused widget"),
        Binding("u,ctrl+z", "undo", "Undo", id="app.undo", tooltip="Undo the last flag or unflag"),
        Binding("m", "metrics", "Metrics", show=False, id="app.metrics", tooltip="Open the metrics view"),
        Binding(
            "C",
            "contamination",
            "Contamination",
            show=False,
            id="app.contamination",
            tooltip="Why claims were flagged contaminated (scores, matched evidence, threshold)",
        ),
        Binding(
            "D",
            "datasets",
            "Datasets",
            show=False,
            id="app.datasets",
            tooltip="The datasets, each one's curation funnel and fetched articles",
        ),
        Binding(
            "K",
            "cancel_run",
            "Cancel run",
            id="app.cancel_run",
            tooltip="Stop the run started from this window (finished items stay)",
        ),
    ]

    def __init__(
        self,
        db_path: str | Path,
        settings: Settings | None = None,
        poll_seconds: float = POLL_SECONDS,
        compare: tuple[str, str, str] | None = None,
        cluster: str | None = None,
    ):
        super().__init__()
        self.compare = compare
        """(base run, other run, filter): open on the flips view between them."""
        self.cluster = cluster
        """What the metrics view's intervals resample together: a field, "none", or None for the profile's."""
        if self.no_color:  # Textual's greys can vanish into the background; ours keep contrast
            self._filters = [LegibleMonochrome() if isinstance(f, Monochrome) else f for f in self._filters]
        self.db_path = Path(db_path)
        self.settings = settings or load_settings()
        self.stores = ThreadStores(self.db_path)
        self.catalogue = Catalogue()
        self.undo_stack: list[tuple[FlagChange, str]] = []
        self.data_epoch = 0
        self.runs = RunControl(self)
        self._poll_seconds = poll_seconds
        self._watch_store: Store | None = None
        self._data_version: int | None = None

    def on_mount(self) -> None:
        from workbench.tui.screens.browser import ClaimsScreen

        self._apply_settings()
        # The app's own connection, used only to notice commits (PRAGMA data_version).
        self._watch_store = Store.open(self.db_path)
        self._data_version = self._watch_store.data_version()
        self.push_screen(ClaimsScreen())  # it asks for the catalogue once its first page is shown
        if self.compare is not None:
            from workbench.tui.screens.flips import FlipsScreen

            self.push_screen(FlipsScreen(*self.compare))
        if self._poll_seconds:
            self.set_interval(self._poll_seconds, self.poll_data_version)
        self.set_timer(2.0, self._load_metrics_view)

    @work(thread=True, group="warm-up", exit_on_error=False)
    def _load_metrics_view(self) -> None:
        """Import the metrics view while the user reads the first page: the first `m` then
        waits for the numbers only (the imports take ~70 ms)."""
        importlib.import_module("workbench.tui.screens.metrics.screen")

    def on_unmount(self) -> None:
        if self._watch_store is not None:
            self._watch_store.close()
        self.stores.close_all()

    def _apply_settings(self) -> None:
        theme = self.settings.theme
        if theme:
            if theme in self.available_themes:
                self.theme = theme
            else:
                self.notify(f"unknown theme {printable(theme)!r}; using {self.theme}", severity="warning", markup=False)
        if self.settings.keymap:
            self.set_keymap(dict(self.settings.keymap))
            self._check_keymap(list(self.settings.keymap))

    @work(thread=True, group="warm-up", exit_on_error=False)
    def _check_keymap(self, binding_ids: list[str]) -> None:
        """A binding id the code does not know (a typo: "claims.flg") binds nothing: say so
        once, at start, with the id meant (finding every id imports every screen: off the UI thread)."""
        from workbench.tui.key_catalogue import unknown_binding_ids

        for given, closest in unknown_binding_ids(type(self), binding_ids):
            meant = f"; did you mean {closest!r}?" if closest else "; ? lists the binding ids"
            self.call_from_thread(
                self.notify,
                f"keymap: no key binding {printable(given)!r}{meant} (it binds nothing)",
                severity="warning",
                markup=False,
                timeout=10,
            )

    # -- live data -----------------------------------------------------------

    def poll_data_version(self) -> None:
        """Notice commits from any connection (a CLI run in another terminal, our workers)."""
        if self._watch_store is None:
            return
        version = self._watch_store.data_version()
        if version != self._data_version:
            self._data_version = version
            self.data_changed()

    def data_changed(self) -> None:
        """Tell the visible screen to re-read; others re-read when they come back."""
        self.data_epoch += 1
        self.load_catalogue()
        self.screen.post_message(DataChanged())

    @work(thread=True, exclusive=True, group="catalogue", exit_on_error=False)
    def load_catalogue(self) -> None:
        store = self.stores.get()
        datasets = store.datasets.list()
        catalogue = Catalogue(
            runs=store.runs.list(),
            scored={d.name: set(d.label_space.labels) for d in datasets},
            gold={d.name: d.label_space.all_gold for d in datasets},
            flag_kinds=store.annotations.flag_kinds(),
            total_claims=store.claims.count(""),
            has_images=store.claims.have_images(),
        )
        self.post_message(CatalogueLoaded(catalogue))

    @on(CatalogueLoaded)
    def _catalogue_loaded(self, message: CatalogueLoaded) -> None:
        self.catalogue = message.catalogue
        for screen in self.screen_stack:
            screen.post_message(CatalogueLoaded(message.catalogue))

    # -- what screens and commands call ------------------------------------------

    def show_claims(self, filter_text: str = "", claim_id: int | None = None) -> None:
        """Open the claims browser on a filter (the metrics view uses this for a cell's claims)."""
        browser = self.browser
        while self.screen is not browser and len(self.screen_stack) > 1:
            self.pop_screen()
        browser.apply_filter(filter_text, claim_id)

    @property
    def browser(self):
        from workbench.tui.screens.browser import ClaimsScreen

        return next(s for s in self.screen_stack if isinstance(s, ClaimsScreen))

    def open_claim(self, claim_id: int) -> None:
        from workbench.tui.screens.detail import ClaimDetailScreen

        self.push_screen(ClaimDetailScreen(claim_id))

    def open_triage(self, run_id: int | None = None) -> None:
        from workbench.tui.screens.triage import TriageScreen

        run = self.catalogue.run_named(run_id) if run_id is not None else self.browser.focus_run
        if run is None:
            self.notify("no run to triage yet: start one with r, or pick runs with v", severity="warning")
            return
        self.push_screen(TriageScreen(run.id, run.name))

    def open_agreement(self, run_id: int) -> None:
        from workbench.tui.screens.team import AgreementScreen

        run = self.catalogue.run_named(run_id)
        if run is not None:
            self.push_screen(AgreementScreen(run.id, run.name))

    def open_adjudication(self, run_id: int) -> None:
        from workbench.tui.screens.adjudication import AdjudicationScreen

        run = self.catalogue.run_named(run_id)
        if run is not None:
            self.push_screen(AdjudicationScreen(run.id, run.name))

    def action_metrics(self) -> None:
        """Open the metrics view on the runs shown as columns (v chooses them; the first is
        the focus run, and the view compares the second against it)."""
        from workbench.tui.screens.metrics.screen import MetricsScreen  # loaded on first use: start-up stays fast

        self.push_screen(MetricsScreen(self.db_path, list(self.browser.table.query.run_ids), cluster=self.cluster))

    def action_contamination(self) -> None:
        """Open the contamination view on the highlighted claim."""
        from workbench.tui.screens.contamination.screen import ContaminationScreen

        row = self.browser.table.current
        self.push_screen(ContaminationScreen(self.db_path, claim_id=row.id if row else None))

    def action_datasets(self) -> None:
        """Open the datasets view (curation funnels)."""
        from workbench.tui.screens.datasets import DatasetsScreen

        if not isinstance(self.screen, DatasetsScreen):
            self.push_screen(DatasetsScreen())

    def action_help(self) -> None:
        from workbench.tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            here = [active.binding for active in self.screen.active_bindings.values()]
            self.push_screen(HelpScreen(self._help_target(), here))

    def action_help_focused(self) -> None:
        self.action_help()

    def _help_target(self) -> Widget | None:
        node = self.focused
        while node is not None and not getattr(node, "HELP", None):
            node = node.parent if isinstance(node.parent, Widget) else None
        return node

    def action_cancel_run(self) -> None:
        self.runs.cancel()

    def check_action(self, action: str, parameters) -> bool | None:
        """Cancel and undo show in the footer only when there is something to cancel or undo."""
        if action == "cancel_run":
            return self.runs.active
        if action == "undo":
            return bool(self.undo_stack)
        return True

    @on(RunEvent)
    def _run_event(self, message: RunEvent) -> None:
        self.runs.handle(message.event)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        super().on_worker_state_changed(event)
        if event.worker.group == "model-run" and event.state in (
            WorkerState.SUCCESS,
            WorkerState.ERROR,
            WorkerState.CANCELLED,
        ):
            self.runs.worker_ended(event.state == WorkerState.SUCCESS, event.worker.error)

    # -- flags and undo ------------------------------------------------------------

    @on(FlagsChanged)
    def _flags_changed(self, message: FlagsChanged) -> None:
        if message.change.added_ids or message.change.removed:
            self.undo_stack.append((message.change, message.summary))
            self.refresh_bindings()
        self.notify(message.summary + " (u to undo)", markup=False)
        self.data_changed()

    def action_undo(self) -> None:
        if not self.undo_stack:
            self.notify("nothing to undo")
            return
        change, summary = self.undo_stack.pop()
        self.refresh_bindings()
        self._undo(change, summary)

    @work(thread=True, exclusive=True, group="undo", exit_on_error=False)
    def _undo(self, change: FlagChange, summary: str) -> None:
        self.stores.get().annotations.undo(change)
        self.call_from_thread(self._undone, summary)

    def _undone(self, summary: str) -> None:
        self.notify(f"undone: {summary}", markup=False)
        self.data_changed()
