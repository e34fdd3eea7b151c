"""The filter bar: the store's filter language, checked as you type, errors pointed at."""

from __future__ import annotations

import re

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
from store.filters import KNOWN_FIELDS
from workbench.render.display import printable
from workbench.tui.errors import ReportsWorkerErrors

_FIELD_NAMES = sorted({name for name in KNOWN_FIELDS if "NAME" not in name} | {"has", "flagged", "triage"})
_KEYWORDS = ["wrong", "right", "missing", "predicted", "reviewed", "status:abstain",
             "status:parse_failure", "status:error", "flagged:contaminated", "flagged:any"]


class FieldSuggester(Suggester):
    """Completes the field name (or run keyword) being typed at the end of the filter."""

    async def get_suggestion(self, value: str) -> str | None:
        match = re.search(r"(-?)([A-Za-z_.]+)$", value)
        if not match or len(match.group(2)) < 2:
            return None
        word = match.group(2).lower()
        for candidate in _KEYWORDS + [f"{name}:" for name in _FIELD_NAMES]:
            if candidate.startswith(word) and candidate != word:
                return value[: match.start(2)] + candidate
        return None


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
Enter applies the filter, Escape goes back to the table, Tab accepts a suggestion.
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
        Binding("escape", "leave", "Back to table", id="filter.leave",
                tooltip="Leave the filter bar without applying the text"),
        Binding("tab", "complete", "Complete", show=False, id="filter.complete",
                tooltip="Take the suggested field name (with no suggestion: the next widget)"),
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

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Label("filter›", markup=False)
            yield Input(placeholder='e.g. label:Refuted "vaccine" -flagged:any   (F1 help)',
                        suggester=FieldSuggester(use_cache=False), id="filter-input",
                        select_on_focus=False)
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
        """Tab: accept the suggestion shown after the cursor, else move focus on as usual."""
        field = self.input
        suggestion = getattr(field, "_suggestion", "")  # Textual keeps it private; right arrow takes it too
        if field.has_focus and field.cursor_at_end and len(suggestion) > len(field.value):
            field.action_cursor_right()
        else:
            self.screen.focus_next()

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
