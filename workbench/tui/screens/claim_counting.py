"""Counting the claims under the browser's filter: in a worker after the first page is shown,
again at most every RECOUNT_SECONDS while a run writes, and (after a jump) the window's place."""

from __future__ import annotations

import time

from textual import work
from textual.worker import get_current_worker

from store import FilterError
from workbench.tui.messages import Counted
from workbench.tui.paging import ClaimQuery

RECOUNT_SECONDS = 2.0


class CountsClaims:
    """Mix into the claims screen: it owns `table`, `count`, `_counted_filter`, `_count_stale`,
    `_last_count`, `_recount_timer` and `show_status`; this keeps the count honest."""

    def _start_count(self) -> None:
        self._count_stale = False
        self._last_count = time.monotonic()
        self._count(self.table.query.filter)

    def _recount_soon(self) -> None:
        """While a run writes, count at most every RECOUNT_SECONDS (a count can take a while)."""
        if self._recount_timer is not None:
            return
        wait = RECOUNT_SECONDS - (time.monotonic() - self._last_count)
        if wait <= 0.01:
            self._start_count()
            return

        def recount() -> None:
            self._recount_timer = None
            self._start_count()

        self._recount_timer = self.set_timer(wait, recount)

    def _locate(self) -> None:
        """After a jump the window's place in the result is unknown; sorted by id it can be counted."""
        table = self.table
        if table.window.offset is None and table.window.rows and table.query.sort == "id":
            self._count_before(table.query, table.window.rows[0].id)

    @work(thread=True, exclusive=True, group="locate", exit_on_error=False)
    def _count_before(self, query: ClaimQuery, first_id: int) -> None:
        before = "id>" if query.descending else "id<"
        count = self.app.stores.get().claims.count(f"{query.filter} {before}{first_id}".strip())
        self.app.call_from_thread(self._located, query, first_id, count)

    def _located(self, query: ClaimQuery, first_id: int, count: int) -> None:
        window = self.table.window
        index = window.index_of(first_id)
        if self.table.query == query and window.offset is None and index is not None:
            window.offset = count - index
            self.show_status()

    @work(thread=True, exclusive=True, group="count", exit_on_error=False)
    def _count(self, text: str) -> None:
        """Count in a worker: on a million claims with a text term this can take a while."""
        worker = get_current_worker()
        claims = self.app.stores.get().claims
        try:
            count, run_ids = claims.count(text), claims.compile(text).run_ids
        except FilterError:
            count, run_ids = None, []
        if not worker.is_cancelled:
            self.post_message(Counted(text, count, run_ids))

    def on_counted(self, message: Counted) -> None:
        if message.filter_text == self.table.query.filter:
            self._counted_filter = message.filter_text
            self.count = message.count
            self.table.total = message.count
            self.show_status()
