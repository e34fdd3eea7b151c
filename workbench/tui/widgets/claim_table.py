"""The claims table: a Line API view over a window of keyset pages read in workers."""

from __future__ import annotations

from textual import on, work
from textual.binding import Binding
from textual.events import Click
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.worker import get_current_worker

from store import ClaimRow, FilterError
from workbench.tui.errors import ReportsWorkerErrors
from workbench.tui.paging import PAGE_SIZE, ClaimQuery, ClaimWindow, PageCache, Where, read_page
from workbench.tui.widgets.claim_table_lines import ClaimTableLines
from workbench.tui.widgets.columns import COLUMN_SORTS, Column, column_at


class ClaimTable(ReportsWorkerErrors, ClaimTableLines, ScrollView, can_focus=True):
    """Claims under the current filter, read a page at a time; never the whole result."""

    HELP = """\
The claims table. Rows are read from SQLite a page at a time (keyset paging); the page
before and after the cursor are read ahead, so scrolling never waits on the disk.
Columns: a ● for a marked row, id, gold label, importance, task/domain, the claim date
(on wide terminals, or when sorted by date), flags (⚑ and the first letter of each
kind), one marker per chosen run (✓ right, ✗ wrong, ∅ abstained, ? parse failure,
! API error, · no answer yet, • gold label not scored), the claim text. A run column's
title is the run's name cut to 3 letters, or its id (#12) when two names start alike.
Keys: ↑/↓ or j/k move, PageUp/PageDown, Home/End jump to the start/end of the whole
result, space marks a row and moves down (flag or run the marked rows), enter opens the
claim. Clicking a
column's title sorts by it; clicking it again reverses the order (s / S do it by keyboard)."""

    DEFAULT_CSS = """
    ClaimTable { height: 1fr; overflow-x: hidden; scrollbar-size-vertical: 0; }
    ClaimTable > .claim-table--header { text-style: bold; background: $panel; }
    ClaimTable > .claim-table--cursor { background: $block-cursor-blurred-background; }
    ClaimTable:focus > .claim-table--cursor {
        background: $block-cursor-background; color: $block-cursor-foreground;
    }
    ClaimTable > .claim-table--marked { background: $accent 20%; }
    ClaimTable > .claim-table--more { color: $text-muted; text-style: italic; }
    """
    COMPONENT_CLASSES = {"claim-table--header", "claim-table--cursor", "claim-table--marked", "claim-table--more"}
    BINDINGS = [
        Binding("down,j", "cursor_down", "Down", show=False, id="table.down", tooltip="Next claim"),
        Binding("up,k", "cursor_up", "Up", show=False, id="table.up", tooltip="Previous claim"),
        Binding("pagedown", "page_down", "Page down", show=False, id="table.page_down", tooltip="Down one screen"),
        Binding("pageup", "page_up", "Page up", show=False, id="table.page_up", tooltip="Up one screen"),
        Binding(
            "home", "first", "Start", show=False, id="table.start", tooltip="Jump to the first claim of the result"
        ),
        Binding("end", "last", "End", show=False, id="table.end", tooltip="Jump to the last claim of the result"),
        Binding(
            "space",
            "mark",
            "Mark",
            id="table.mark",
            tooltip="Mark or unmark this claim and move to the next (flags and runs can use the marked rows)",
        ),
        Binding("enter", "open", "Open", id="table.open", tooltip="Open the claim: evidence and verdicts"),
    ]

    cursor = reactive(0, always_update=True)

    class Highlighted(Message):
        """The cursor is on a new claim (or the window changed under it)."""

        def __init__(self, table: ClaimTable, row: ClaimRow | None):
            super().__init__()
            self.table = table
            self.row = row

    class Opened(Message):
        def __init__(self, row: ClaimRow):
            super().__init__()
            self.row = row

    class FilterRejected(Message):
        """The filter did not compile; the table keeps showing the last good one."""

        def __init__(self, query: ClaimQuery, error: FilterError):
            super().__init__()
            self.query = query
            self.error = error

    class Loaded(Message):
        """A new query's first page arrived (the filter is good)."""

        def __init__(self, query: ClaimQuery, missing_target: int | None = None):
            super().__init__()
            self.query = query
            self.missing_target = missing_target

    class PageRead(Message):
        def __init__(self, query, where, anchor, rows, generation, target):
            super().__init__()
            self.query, self.where, self.anchor = query, where, anchor
            self.rows, self.generation, self.target = rows, generation, target

    def __init__(self, stores, *, id: str | None = None):
        super().__init__(id=id)
        self.stores = stores
        self.query = ClaimQuery()
        self.good_query = ClaimQuery()
        self.window = ClaimWindow()
        self.cache = PageCache()
        self.marked: set[int] = set()
        self.run_titles: list[str] = []
        """The run columns' 3-cell titles (widgets.columns.run_titles)."""
        self.images = False
        """Show the image column (some claim in the database has an image)."""
        self._scored: dict[str, set[str]] = {}
        self.total: int | None = None
        self._generation = 0
        self._pending: set[str] = set()
        self._columns: list[Column] = []
        self._lines: dict[tuple, Strip] = {}
        self._loading = True

    # -- what the rest of the app calls ------------------------------------------

    @property
    def scored(self) -> dict[str, set[str]]:
        """Dataset -> scored gold classes (decides ✗ from • for unscored gold)."""
        return self._scored

    @scored.setter
    def scored(self, value: dict[str, set[str]]) -> None:
        if value != self._scored:
            self._scored = value
            self._lines.clear()
            self.refresh()

    @property
    def current(self) -> ClaimRow | None:
        rows = self.window.rows
        return rows[self.cursor] if 0 <= self.cursor < len(rows) else None

    @property
    def position(self) -> int | None:
        """0-based position of the cursor's claim in the whole result, when known."""
        return self.window.position(self.cursor, self.total) if self.window.rows else None

    def show(self, query: ClaimQuery, claim_id: int | None = None) -> None:
        """Show a new query, starting at `claim_id` if given (else at the start)."""
        self.query = query
        self.cache.clear()
        self._jump("from" if claim_id is not None else "first", claim_id, target=claim_id)

    def requery(self, query: ClaimQuery) -> None:
        """The same claims with other run columns: re-read, keeping the view and the cursor."""
        self.query = query
        self.reload()

    def reload(self) -> None:
        """Read the window again (the data changed), keeping the cursor's claim."""
        self.cache.clear()
        current = self.current
        if current is None or (self.window.at_start and self.cursor < PAGE_SIZE):
            self._jump("first", None, target=current.id if current else None)
            return
        top = self.window.rows[min(int(self.scroll_y), len(self.window.rows) - 1)]
        self._jump("from", top.id, target=current.id)

    def jump_to(self, claim_id: int) -> None:
        """Put the cursor on a claim (reading its page)."""
        index = self.window.index_of(claim_id)
        if index is not None:
            self.cursor = index
        else:
            self._jump("from", claim_id, target=claim_id)

    def toggle_mark(self, claim_id: int) -> None:
        self.marked.symmetric_difference_update({claim_id})
        self.refresh()

    # -- reading pages ---------------------------------------------------------

    def _jump(self, where: Where, anchor, target: int | None) -> None:
        self._generation += 1
        self._pending.clear()
        self._loading = True
        self.workers.cancel_group(self, "claim-pages")
        self._fetch(self.query, where, anchor, self._generation, target)

    def _extend(self, where: Where) -> None:
        if where in self._pending or not self.window.rows:
            return
        anchor = self.window.last_key() if where == "after" else self.window.first_key()
        cached = self.cache.get((self.query, where, anchor))
        if cached is not None:
            self._apply(where, cached, target=None)
            return
        self._pending.add(where)
        self._fetch(self.query, where, anchor, self._generation, None)

    @work(thread=True, group="claim-pages", exit_on_error=False)
    def _fetch(self, query: ClaimQuery, where: Where, anchor, generation: int, target) -> None:
        worker = get_current_worker()
        try:
            rows = read_page(self.stores.get().claims, query, where, anchor)
            if where == "from" and not rows:
                where, rows = "first", read_page(self.stores.get().claims, query, "first")
        except FilterError as error:
            if not worker.is_cancelled:
                self.post_message(self.FilterRejected(query, error))
            return
        if not worker.is_cancelled:
            self.post_message(self.PageRead(query, where, anchor, rows, generation, target))

    @on(PageRead)
    def _page_read(self, message: PageRead) -> None:
        message.stop()
        if message.generation != self._generation or message.query != self.query:
            return
        self.cache.put((message.query, message.where, message.anchor), message.rows)
        self._pending.discard(message.where)
        self._apply(message.where, message.rows, message.target)

    @on(FilterRejected)
    def _rejected(self, message: FilterRejected) -> None:
        if message.query == self.query:
            self.query = self.good_query
            self._loading = False

    def _apply(self, where: Where, rows: list[ClaimRow], target: int | None) -> None:
        if where in ("after", "before"):
            self._grow(where, rows)
        else:
            self._reset(where, rows, target)
        self._update_size()
        self._ensure_neighbours()
        self.refresh()

    def _reset(self, where: Where, rows: list[ClaimRow], target: int | None) -> None:
        self._loading = False
        self._lines.clear()
        self.window.reset(rows, where)
        self.good_query = self.query
        index = self.window.index_of(target) if target is not None else None
        if where == "last":
            index = len(rows) - 1
        self._update_size()
        self.scroll_to(y=0, animate=False, immediate=True)
        self.post_message(self.Loaded(self.query, target if target is not None and index is None else None))
        self.set_cursor(index or 0)

    def _grow(self, where: Where, rows: list[ClaimRow]) -> None:
        if where == "after":
            dropped = self.window.append(rows)
            self._update_size()
            if dropped:
                self.scroll_to(y=max(self.scroll_y - dropped, 0), animate=False, immediate=True)
                self.set_reactive(ClaimTable.cursor, max(self.cursor - dropped, 0))
        else:
            added = self.window.prepend(rows)
            self._update_size()
            self.scroll_to(y=self.scroll_y + added, animate=False, immediate=True)
            self.set_reactive(ClaimTable.cursor, self.cursor + added)

    def _ensure_neighbours(self) -> None:
        """Keep a page read ahead on each side of the cursor."""
        window = self.window
        if not window.at_end and self.cursor >= len(window.rows) - PAGE_SIZE:
            self._extend("after")
        if not window.at_start and self.cursor < PAGE_SIZE:
            self._extend("before")

    # -- cursor ----------------------------------------------------------------

    def set_cursor(self, index: int) -> None:
        self.cursor = max(0, min(index, len(self.window.rows) - 1))

    def watch_cursor(self, old: int, new: int) -> None:
        self._scroll_cursor_visible()
        self._ensure_neighbours()
        self.refresh()
        self.post_message(self.Highlighted(self, self.current))

    def _scroll_cursor_visible(self) -> None:
        visible = max(self.size.height - 1, 1)
        top = int(self.scroll_y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + visible:
            self.scroll_to(y=self.cursor - visible + 1, animate=False, immediate=True)

    def action_cursor_down(self) -> None:
        self.set_cursor(self.cursor + 1)

    def action_cursor_up(self) -> None:
        self.set_cursor(self.cursor - 1)

    def action_page_down(self) -> None:
        step = max(self.size.height - 2, 1)
        self.scroll_to(y=self.scroll_y + step, animate=False, immediate=True)
        self.set_cursor(self.cursor + step)

    def action_page_up(self) -> None:
        step = max(self.size.height - 2, 1)
        self.scroll_to(y=max(self.scroll_y - step, 0), animate=False, immediate=True)
        self.set_cursor(self.cursor - step)

    def action_first(self) -> None:
        if self.window.at_start:
            self.set_cursor(0)
        else:
            self._jump("first", None, target=None)

    def action_last(self) -> None:
        if self.window.at_end:
            self.set_cursor(len(self.window.rows) - 1)
        else:
            self._jump("last", None, target=None)

    def action_mark(self) -> None:
        if self.current is not None:
            self.toggle_mark(self.current.id)
            self.set_cursor(self.cursor + 1)

    def action_open(self) -> None:
        if self.current is not None:
            self.post_message(self.Opened(self.current))

    class SortClicked(Message):
        """A sortable column's title was clicked: sort by it (again: reverse)."""

        def __init__(self, sort: str):
            super().__init__()
            self.sort = sort

    def on_click(self, event: Click) -> None:
        if event.y >= 1:
            self.set_cursor(int(self.scroll_y) + event.y - 1)
            return
        column = column_at(self._columns, event.x)
        if column is not None and column.key in COLUMN_SORTS:
            self.post_message(self.SortClicked(COLUMN_SORTS[column.key]))
