"""Claims in pages: keyset reads, an LRU of pages, and the window the table holds.

Like Toolong, the browser never holds the whole result: it keeps a few consecutive
pages (the window), reads the next page in a worker before the cursor gets there, and
remembers recently read pages so scrolling back and forth does not touch SQLite.
Nothing here imports textual: the table widget drives it.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Literal

from store import ClaimRow, ClaimStore, PageRequest

PAGE_SIZE = 100
WINDOW_PAGES = 3
Where = Literal["first", "last", "after", "before", "from"]
Anchor = tuple[Any, int] | int | None


@dataclass(frozen=True)
class ClaimQuery:
    """What the browser shows: a filter, a sort order, and the runs whose verdicts it marks."""

    filter: str = ""
    sort: str = "id"
    descending: bool = False
    run_ids: tuple[int, ...] = ()

    def request(self, after=None, before=None, limit: int = PAGE_SIZE) -> PageRequest:
        return PageRequest(
            filter=self.filter,
            sort=self.sort,
            descending=self.descending,
            after=after,
            before=before,
            limit=limit,
            run_ids=list(self.run_ids),
        )


def read_page(
    claims: ClaimStore, query: ClaimQuery, where: Where, anchor: Anchor = None, limit: int = PAGE_SIZE
) -> list[ClaimRow]:
    """One page from SQLite (raises FilterError for a bad filter). Call from a worker."""
    if where == "first":
        return claims.page(query.request(limit=limit))
    if where == "last":
        return claims.last_page(query.request(limit=limit))
    if where == "after":
        return claims.page(query.request(after=anchor, limit=limit))
    if where == "before":
        return claims.page(query.request(before=anchor, limit=limit))
    if where == "from":
        return claims.page_from(query.request(limit=limit), int(anchor))
    raise ValueError(f"unknown page position {where!r}")


class PageCache:
    """Recently read pages, least recently used dropped first."""

    def __init__(self, capacity: int = 32):
        self.capacity = capacity
        self._pages: OrderedDict[tuple, list[ClaimRow]] = OrderedDict()

    def get(self, key: tuple) -> list[ClaimRow] | None:
        rows = self._pages.get(key)
        if rows is not None:
            self._pages.move_to_end(key)
        return rows

    def put(self, key: tuple, rows: list[ClaimRow]) -> None:
        self._pages[key] = rows
        self._pages.move_to_end(key)
        while len(self._pages) > self.capacity:
            self._pages.popitem(last=False)

    def clear(self) -> None:
        self._pages.clear()

    def __len__(self) -> int:
        return len(self._pages)


def row_key(row: ClaimRow) -> tuple[Any, int]:
    """The keyset position of a row: (sort value, id)."""
    return (row.sort_value, row.id)


class ClaimWindow:
    """The consecutive rows the table holds: at most `max_rows`, with what lies beyond known."""

    def __init__(self, page_size: int = PAGE_SIZE, pages: int = WINDOW_PAGES):
        self.page_size = page_size
        self.max_rows = page_size * pages
        self.rows: list[ClaimRow] = []
        self.at_start = True
        self.at_end = True
        self.offset: int | None = 0
        """Position of rows[0] in the whole result, when known."""
        self.from_end: int | None = None
        """Rows between the window's end and the result's end, when known (after End)."""

    def reset(self, rows: list[ClaimRow], where: Where) -> None:
        """Start afresh from one page read at `where`."""
        self.rows = list(rows)
        short = len(rows) < self.page_size
        self.at_start = where == "first" or (where == "last" and short)
        self.at_end = where == "last" or (where in ("first", "from") and short)
        self.offset = 0 if self.at_start else None
        self.from_end = 0 if self.at_end else None

    def append(self, rows: list[ClaimRow]) -> int:
        """Add the page after the window; returns how many rows were dropped at the front."""
        self.rows.extend(rows)
        if len(rows) < self.page_size:
            self.at_end = True
            self.from_end = 0
        elif self.from_end is not None:
            self.from_end = max(self.from_end - len(rows), 0)
        return self._trim_front()

    def prepend(self, rows: list[ClaimRow]) -> int:
        """Add the page before the window; returns how many rows were added at the front."""
        self.rows[:0] = rows
        if self.offset is not None:
            self.offset = max(self.offset - len(rows), 0)
        if len(rows) < self.page_size:
            self.at_start = True
            self.offset = 0
        self._trim_back()
        return len(rows)

    def _trim_front(self) -> int:
        excess = max(len(self.rows) - self.max_rows, 0)
        if excess:
            del self.rows[:excess]
            self.at_start = False
            if self.offset is not None:
                self.offset += excess
        return excess

    def _trim_back(self) -> None:
        excess = max(len(self.rows) - self.max_rows, 0)
        if excess:
            del self.rows[-excess:]
            self.at_end = False
            if self.from_end is not None:
                self.from_end += excess

    def position(self, index: int, total: int | None) -> int | None:
        """The 0-based position of rows[index] in the whole result, when it can be known."""
        if self.offset is not None:
            return self.offset + index
        if self.from_end is not None and total is not None:
            return total - self.from_end - (len(self.rows) - index)
        return None

    def first_key(self) -> tuple[Any, int] | None:
        return row_key(self.rows[0]) if self.rows else None

    def last_key(self) -> tuple[Any, int] | None:
        return row_key(self.rows[-1]) if self.rows else None

    def index_of(self, claim_id: int) -> int | None:
        return next((n for n, row in enumerate(self.rows) if row.id == claim_id), None)
