"""The filter bar: the store's filter language, checked as you type, errors pointed at."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.suggester import Suggester
from textual.widget import Widget
from textual.widgets import Input, Label, Static
from textual.worker import get_current_worker

from store import FilterError
from workbench.render.display import printable
from workbench.tui.errors import ReportsWorkerErrors
from workbench.tui.filter_completion import Names, complete, extension, labels_first


class FieldSuggester(Suggester):
    """Suggests the token being typed at the end of the filter, completed (shown dimmed
    after the cursor): a field name, a run keyword, a run's or a dataset's name. The filter
    is passed as typed (case_sensitive): a suggestion never changes the letters before it."""

    def __init__(self, names: Callable[[], Names]):
        super().__init__(use_cache=False, case_sensitive=True)
        self.names = names

    async def get_suggestion(self, value: str) -> str | None:
        return extension(value, self.names())


def error_text(filter_text: str, error: FilterError) -> Text:
    """The filter with the culprit underlined, a caret line under it, and the message."""
    start = max(0, min(error.start, len(filter_text)))
    end = max(start + 1, min(error.end, len(filter_text)))
    line = Text("  ")
    line.append(printable(filter_text[:start]))
    line.append(printable(filter_text[start:end]) or " ", style="bold reverse red")
    line.append(printable(filter_text[end:]))
    carets = " " * (2 + len(printable(filter_text[:start]))) + "^" * max(len(printable(filter_text[start:end])), 1)
    line.append("\n" + carets, style="bold red")
    line.append("\n  " + printable(error.args[0]), style="red")
    return line


class FilterBar(ReportsWorkerErrors, Widget):
    """Type a filter; Enter applies it. A bad filter is shown with its culprit marked."""

    HELP = """\
The filter bar. Terms are ANDed, a leading - negates one, quotes keep spaces.
Enter applies the filter, Escape goes back to the table, Tab completes the word under
the cursor (a field name, a run's or a dataset's name; the rest stays as typed).
While you type, the filter is checked against the database: an unknown field, a run
that does not exist or an unbalanced quote is underlined with the reason below."""

    DEFAULT_CSS = """
    FilterBar { height: auto; }
    FilterBar > Horizontal { height: 1; }
    FilterBar Label { width: auto; padding: 0 1; color: $text-accent; }
    FilterBar Input { border: none; height: 1; padding: 0; width: 1fr; background: $surface; }
    FilterBar Input:focus { border: none; background: $boost; }
    FilterBar #filter-error { display: none; height: auto; }
    FilterBar.-error #filter-error { display: block; }
    """
    BINDINGS = [
        Binding(
            "escape",
            "leave",
            "Back to table",
            id="filter.leave",
            tooltip="Leave the filter bar without applying the text",
        ),
        Binding(
            "tab",
            "complete",
            "Complete",
            show=False,
            id="filter.complete",
            tooltip="Complete the word under the cursor (nothing to complete: the next widget)",
        ),
    ]

    class Applied(Message):
        """The user pressed Enter on a filter."""

        def __init__(self, text: str):
            super().__init__()
            self.text = text

    class Left(Message):
        """The user left the filter bar with Escape."""

    class Checked(Message):
        def __init__(self, text: str, error: FilterError | None):
            super().__init__()
            self.text = text
            self.error = error

    def __init__(self, stores, *, id: str | None = None):
        super().__init__(id=id)
        self.stores = stores

    def names(self) -> Names:
        """What values complete to: the runs, datasets and flag kinds the app knows of."""
        catalogue = getattr(self.app, "catalogue", None)
        if catalogue is None:
            return Names()
        return Names(
            runs=[run.name for run in catalogue.runs],
            datasets=sorted(catalogue.scored),
            flag_kinds=sorted(catalogue.flag_kinds),
            labels=labels_first(self.input.value, catalogue.gold, self._dataset_here()),
        )

    def _dataset_here(self) -> str | None:
        """The dataset of the claim under the browser's cursor, if any."""
        table = getattr(getattr(self.app, "browser", None), "table", None)
        row = table.current if table is not None else None
        return row.dataset if row is not None else None

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Label("filter›", markup=False)
            yield Input(
                placeholder='e.g. label:Refuted "vaccine" -flagged:any   (F1 help)',
                suggester=FieldSuggester(self.names),
                id="filter-input",
                select_on_focus=False,
            )
        yield Static(id="filter-error", markup=False)

    @property
    def input(self) -> Input:
        return self.query_one("#filter-input", Input)

    @property
    def text(self) -> str:
        return self.input.value

    def set_text(self, text: str) -> None:
        """Put text in the bar (without applying it)."""
        with self.input.prevent(Input.Changed):
            self.input.value = text
        self.input.cursor_position = len(text)
        self.show_error(text, None)

    def show_error(self, text: str, error: FilterError | None) -> None:
        """Mark the culprit of a bad filter, or clear the mark."""
        self.set_class(error is not None, "-error")
        box = self.query_one("#filter-error", Static)
        box.update(error_text(text, error) if error else "")

    def action_leave(self) -> None:
        self.post_message(self.Left())

    def action_complete(self) -> None:
        """Tab: complete the token under the cursor (only it: the rest stays as typed), else
        move focus on as usual."""
        field = self.input
        found = complete(field.value, field.cursor_position, self.names()) if field.has_focus else None
        if found is None:
            self.screen.focus_next()
            return
        field.value = found.value
        field.cursor_position = found.cursor

    @on(Input.Submitted, "#filter-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Applied(event.value))

    @on(Input.Changed, "#filter-input")
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self._check(event.value)

    @work(thread=True, exclusive=True, group="filter-check", exit_on_error=False)
    def _check(self, text: str) -> None:
        """Compile the filter against the database (run and category names need it)."""
        worker = get_current_worker()
        try:
            self.stores.get().claims.compile(text)
            error = None
        except FilterError as problem:
            error = problem
        if not worker.is_cancelled:
            self.post_message(self.Checked(text, error))

    @on(Checked)
    def _checked(self, message: Checked) -> None:
        message.stop()
        if message.text == self.text:
            self.show_error(message.text, message.error)
