"""What a long migration says while it works, so a big database does not look frozen.

A migration that walks every row makes a Progress and advances it; on standard error the
user reads, about once a second:

    upgrading the database: indexing claims for ... 240,000 of 1,000,000 (24%)

Small databases (under SHOW_FROM rows) upgrade in well under a second and say nothing.
Standard error, not a Rich console: the store imports no UI, and a line on stderr reaches a
command's user and a log alike without mixing with the output a script reads.
"""

from __future__ import annotations

import sys
import time

SHOW_FROM = 5_000
"""Rows from which a migration's progress is worth a line."""

EVERY_S = 1.0


class Progress:
    """Lines on standard error saying how far one step of a migration has got."""

    def __init__(self, what: str, total: int):
        self.what = what
        self.total = total
        self.shown = total >= SHOW_FROM
        self.began = time.monotonic()
        self.last = 0.0
        self.done = 0
        self._say(0)

    def advance(self, done: int) -> None:
        """`done` rows of `total` are finished; a line at most every EVERY_S seconds."""
        self.done = done
        if time.monotonic() - self.last >= EVERY_S:
            self._say(done)

    def finish(self) -> None:
        """The last line, with the time the step took."""
        if self.shown:
            seconds = time.monotonic() - self.began
            _write(f"upgrading the database: {self.what}: done, {self.total:,} in {seconds:.1f} s")

    def _say(self, done: int) -> None:
        self.last = time.monotonic()
        if self.shown:
            share = 100 * done // self.total if self.total else 100
            _write(f"upgrading the database: {self.what}: {done:,} of {self.total:,} ({share}%)")


def _write(line: str) -> None:
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):  # a closed or broken stderr must not stop the upgrade
        pass
