"""What a `workbench` process does around its command, for the time a user waits.

Starting, a command builds tens of thousands of objects that live until the process ends
(modules, classes, click's and Rich's tables). With CPython's default thresholds the garbage
collector runs about thirty times before `workbench show` has printed, finding nothing (they
are all alive), and walks every one of them once more as the interpreter exits: 10-20 ms of
a command of 100-150 ms. So the first collection waits for 50,000 new objects (long commands,
the TUI and runs, still collect: BENCHMARKS.md measured no cost in the TUI), and at the end
every object is frozen (gc.freeze) once the databases are closed: the interpreter's last
collection then skips them, and their memory is returned with the process.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable

FIRST_COLLECTION_AFTER = 50_000
"""New objects before the youngest generation is collected (CPython's default: 700)."""


def whole_process(command: Callable[[], object]) -> object:
    """Run the command line's `command` as the whole process it is."""
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(FIRST_COLLECTION_AFTER, older, oldest)
    try:
        return command()
    finally:
        _leave()


def _leave() -> None:
    """Close the databases still open (SQLite folds the WAL into the file as each closes),
    then spare the exit its collection. A connection another thread still owns is left to
    the collector, and so is everything else then."""
    connection = sys.modules.get("store.connection")  # loaded only if a database was opened
    if connection is None or connection.close_open_databases():
        gc.freeze()
