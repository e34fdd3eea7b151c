"""What the claims browser does to claims: sort, mark, copy, error views and steps, triage,
run a model, flag. ClaimsScreen holds the bindings and hands each action to ClaimActions,
which reaches the screen only through the BrowserView interface."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from rich.text import Text

from store import SORT_COLUMNS, Run
from workbench.render.display import printable
from workbench.tui.messages import FlagsChanged
from workbench.tui.paging import ClaimQuery, row_key
from workbench.tui.screens.flag_dialog import FlagDialog, FlagRequest

if TYPE_CHECKING:
    from workbench.tui.widgets.claim_table import ClaimTable

VIEWS = {"errors": "wrong", "abstained": "status:abstain", "parse_failures": "status:parse_failure"}


def run_term(run: Run) -> str:
    """A filter term naming a run safely (by id when the name would need escaping)."""
    name = run.name
    plain = name and all(ch.isalnum() or ch in "-_.:" for ch in name)
    return f"run:{name}" if plain else f"run:{run.id}"


class BrowserView(Protocol):
    """What ClaimActions needs from the claims browser (ClaimsScreen provides it)."""

    app: object
    count: int | None
    """Claims matching the filter (None while counting)."""

    @property
    def table(self) -> ClaimTable: ...

    @property
    def focus_run(self) -> Run | None:
        """The run the error steps, views and triage act on."""

    def apply_filter(self, text: str, claim_id: int | None = None) -> None: ...

    def choose_runs(self, run_ids: list[int]) -> None: ...

    def show_run(self, run_id: int) -> None: ...

    def refresh_run_columns(self) -> None: ...

    def show_status(self) -> None: ...

    def notify(self, message: str, **options) -> None: ...

    def run_worker(self, work, **options): ...


class ClaimActions:
    """The claims browser's actions on claims, against its BrowserView."""

    def __init__(self, view: BrowserView):
        self.view = view

    @property
    def table(self) -> ClaimTable:
        return self.view.table

    @property
    def app(self):
        return self.view.app

    def sort(self) -> None:
        names = list(SORT_COLUMNS)
        query = self.table.query
        sort = names[(names.index(query.sort) + 1) % len(names)]
        self._resort(ClaimQuery(query.filter, sort, query.descending, query.run_ids))

    def sort_by(self, sort: str) -> None:
        """Sort by a clicked column; clicking the sorted column again reverses it."""
        query = self.table.query
        descending = not query.descending if sort == query.sort else False
        self._resort(ClaimQuery(query.filter, sort, descending, query.run_ids))

    def reverse(self) -> None:
        query = self.table.query
        self._resort(ClaimQuery(query.filter, query.sort, not query.descending, query.run_ids))

    def _resort(self, query: ClaimQuery) -> None:
        current = self.table.current
        self.table.show(query, current.id if current else None)
        self.view.show_status()

    def clear_marks(self) -> None:
        self.table.marked.clear()
        self.table.refresh()
        self.view.show_status()

    def copy_id(self) -> None:
        row = self.table.current
        if row is not None:
            self.app.copy_to_clipboard(str(row.id))
            self.view.notify(f"copied claim id {row.id}")

    def pick_runs(self) -> None:
        from workbench.tui.screens.run_picker import RunPicker

        def chosen(run_ids: list[int] | None) -> None:
            if run_ids is not None:
                self.view.choose_runs(run_ids)
                self.view.refresh_run_columns()

        self.app.push_screen(RunPicker(self.app.catalogue.runs, list(self.table.query.run_ids)), chosen)

    def show_view(self, view: str) -> None:
        """Only the focus run's errors, abstentions or parse failures (VIEWS)."""
        run = self._require_focus_run()
        if run is not None:
            self.view.apply_filter(f"{run_term(run)} {VIEWS[view]}")

    def _require_focus_run(self) -> Run | None:
        run = self.view.focus_run
        if run is None:
            self.view.notify("no run chosen: press v to pick runs (or r to start one)", severity="warning")
        return run

    def step_error(self, forward: bool, key=None, then=None) -> None:
        """Move to the focus run's next (previous) wrong answer after `key` (default: the cursor)."""
        run, row = self._require_focus_run(), self.table.current
        if key is None and row is not None:
            key = row_key(row)
        if run is not None and key is not None:
            self._find_error(self.table.query, f"{run_term(run)} wrong", key, forward, then)

    def _find_error(self, query: ClaimQuery, terms: str, key, forward: bool, then) -> None:
        narrowed = ClaimQuery(f"{query.filter} {terms}".strip(), query.sort, query.descending, ())
        request = narrowed.request(after=key, limit=1) if forward else narrowed.request(before=key, limit=1)

        def find() -> None:  # a worker thread: reads, then hands the answer to the UI thread
            rows = self.app.stores.get().claims.page(request)
            self.app.call_from_thread(self._found_error, rows[0].id if rows else None, forward, then)

        self.view.run_worker(find, thread=True, exclusive=True, group="find-error", exit_on_error=False)

    def _found_error(self, claim_id: int | None, forward: bool, then) -> None:
        if claim_id is None:
            self.app.notify(f"no {'later' if forward else 'earlier'} error for the focus run here")
            return
        self.table.jump_to(claim_id)
        if then is not None:
            then(claim_id)

    def triage(self) -> None:
        self.app.open_triage()

    def run(self, claim_id: int | None = None) -> None:
        """The run dialog on the highlighted claim and the marked rows (or on `claim_id`
        alone: the claim detail's r)."""
        from workbench.tui.screens.run_dialog import RunDialog

        table = self.table
        current = table.current
        highlighted = claim_id if claim_id is not None else current.id if current else None
        marked = sorted(table.marked) if claim_id is None else []
        dialog = RunDialog(highlighted, marked, table.good_query.filter, self.view.count)
        self.app.push_screen(dialog, self._run_prepared)

    def _run_prepared(self, prepared) -> None:
        if prepared is not None and self.app.runs.start(prepared):
            self.view.show_run(prepared.run.id)
            self.app.load_catalogue()
            self.view.notify(f"run {printable(prepared.run.name)} started", markup=False)

    # -- flags ------------------------------------------------------------------------------

    def flag(self) -> None:
        table = self.table
        current = table.current
        dialog = FlagDialog(
            current.id if current else None,
            sorted(table.marked),
            table.good_query.filter,
            self.view.count,
            list(self.app.catalogue.flag_kinds),
        )
        self.app.push_screen(dialog, self.flag_requested)

    def flag_requested(self, request: FlagRequest | None) -> None:
        """Apply a flag dialog's answer (asking first when it covers the whole filter)."""
        if request is None:
            return
        if request.scope != "filter":
            self.apply_flags(request)
            return
        from workbench.tui.widgets.dialogs import ConfirmDialog

        question = Text(f"{request.action.capitalize()} all {request.count:,} claims matching\n  ")
        question.append(printable(request.filter_text) or "(no filter: every claim)", style="bold")
        question.append(f"\nas {printable(request.kind)}?")
        self.app.push_screen(
            ConfirmDialog(question, yes=f"{request.action.capitalize()} {request.count:,}"),
            lambda yes: self.apply_flags(request) if yes else None,
        )

    def apply_flags(self, request: FlagRequest) -> None:
        """Write the flags in a worker; the app keeps the change for undo."""
        app = self.app

        def write() -> None:
            store = app.stores.get()
            ids = request.claim_ids if request.scope != "filter" else store.claims.ids(request.filter_text)
            if request.action == "flag":
                change = store.annotations.flag(ids, request.kind, note=request.note, who=app.settings.annotator)
            else:
                change = store.annotations.unflag(ids, request.kind)
            app.post_message(FlagsChanged(change, request.describe()))

        self.view.run_worker(write, thread=True, exclusive=True, group="flag", exit_on_error=False)
