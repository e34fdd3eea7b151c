"""One Store per thread: sqlite3 connections refuse to cross threads.

Workers run on the event loop's thread pool, so each pool thread opens its own Store
the first time it needs one and keeps it for the life of the app.
"""

from __future__ import annotations

import threading
from pathlib import Path

from store import Store


class ThreadStores:
    """A Store for the calling thread, opened on first use from the database path."""

    def __init__(self, db_path: str | Path):
        self.db_path = Path(db_path)
        self._local = threading.local()

    def get(self) -> Store:
        """This thread's Store (opened, and migrated, the first time)."""
        store = getattr(self._local, "store", None)
        if store is None:
            store = Store.open(self.db_path)
            self._local.store = store
        return store
