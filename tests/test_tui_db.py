"""The TUI's per-thread stores: a worker thread's connection is closed when the thread ends,
so a long session does not pile up open database files (each worker, each metrics view)."""

from __future__ import annotations

import gc
import os
import threading
from pathlib import Path

from store import Store
from workbench.tui.db import ThreadStores


def open_files(path: Path) -> int:
    """How many of this process's file descriptors are open on the database file."""
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") == str(path):
                count += 1
        except OSError:
            continue
    return count


def test_a_worker_threads_store_is_closed_when_the_thread_ends(db_path):
    Store.open(db_path).close()
    stores = ThreadStores(db_path)
    gc.disable()  # closed when the thread ends, not whenever the collector happens to run
    try:
        for _ in range(20):
            worker = threading.Thread(target=lambda: stores.get().claims.count(""))
            worker.start()
            worker.join()
        assert open_files(db_path) == 0
        stores.get().claims.count("")  # the main thread's, closed at the app's end
        assert open_files(db_path) == 1
        stores.close_all()
        assert open_files(db_path) == 0
    finally:
        gc.enable()


def test_a_thread_keeps_its_one_store_while_it_lives(db_path):
    Store.open(db_path).close()
    stores = ThreadStores(db_path)
    seen = [stores.get() for _ in range(3)]
    assert seen[0] is seen[1] is seen[2]
    assert open_files(db_path) == 1
    stores.close_all()
