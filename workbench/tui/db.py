"""One Store per thread: sqlite3 connections refuse to cross threads.

Workers run on thread pools; each pool thread opens its own Store the first time it needs
one and keeps it while it lives. A connection is not freed when nothing uses it any more
(sqlite3 connections sit in reference cycles: only the garbage collector would close them,
whenever it runs), so each is closed explicitly: when its thread ends (its thread-local
values are dropped then), when the ThreadStores goes, or at the app's end for the main
thread's. A long session holds one connection per live thread, no more.
"""

from __future__ import annotations

import threading
import weakref
from pathlib import Path

from store import Store


class _Held:
    """A thread's store, kept in the thread's local values: when the thread ends they are
    dropped, and the store is closed with them."""

    __slots__ = ("store", "__weakref__")

    def __init__(self, store: Store):
        self.store = store


class ThreadStores:
    """A Store for the calling thread, opened on first use from the database path."""

    def __init__(self, db_path: str | Path):
        self.db_path = Path(db_path)
        self._local = threading.local()

    def get(self) -> Store:
        """This thread's Store (opened, and migrated, the first time)."""
        held = getattr(self._local, "held", None)
        if held is None:
            # closed_elsewhere: the thread that ends, or the collector, may close it.
            held = _Held(Store.open(self.db_path, closed_elsewhere=True))
            weakref.finalize(held, held.store.close)
            self._local.held = held
        return held.store

    def close_all(self) -> None:
        """At the app's end: close this thread's store (each worker thread's is closed as
        its thread ends)."""
        held = getattr(self._local, "held", None)
        if held is not None:
            self._local.held = None
            held.store.close()
