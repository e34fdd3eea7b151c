"""Saying at once that slow work is under way: a status line, or a progress bar through
the phases of a job, on stderr (stdout keeps the results: tables, JSON).

    with status("checking WordNet 3.0 and punkt_tab"):   # a spinner while it runs (on a terminal)
        ...
    with PhaseBar() as bar:                              # bar(phase, done, total) as a callback
        score_evidence(..., report=bar)
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.spinner import Spinner
from rich.text import Text

from workbench.render.console import output_console


def waiting_console() -> Console:
    """stderr: what is going on, never mixed into the results on stdout."""
    return output_console(stderr=True)


@contextmanager
def status(text: str, console: Console | None = None) -> Iterator[Console]:
    """`text` with a spinner while the block runs, gone when it ends (on a terminal: piped
    or redirected output gets nothing extra). Yields the console to print through."""
    console = console or waiting_console()
    if not console.is_terminal:
        yield console
        return
    with Live(Spinner("dots", Text(text)), console=console, transient=True, refresh_per_second=12.5) as live:
        live.refresh()  # drawn now, before the slow part starts, not at the first tick
        yield console


class PhaseBar:
    """A progress bar that follows a job's phases: a spinner for a phase with no count yet
    (loading WordNet), a bar with done/total for one with (scoring claims). Shown on a
    terminal only, and gone when the job ends (its result is printed after it).

    A counted phase repaints when the job reports, from the job's thread, with no thread
    beside it: a job may fork worker processes, which is only safe with one thread
    running (meteor.can_fork). A phase with no count reports nothing while it works, so
    a ticker thread keeps its spinner and clock going, and is stopped (joined) the
    moment a counted phase begins, before the job can fork."""

    TICK_S = 0.1

    def __init__(self, first: str = "starting", console: Console | None = None):
        console = console or waiting_console()
        self.progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
            auto_refresh=False,
            disable=not console.is_terminal,
        )
        self.task = self.progress.add_task(first, total=None)
        self._lock = threading.Lock()
        self._ticker: tuple[threading.Thread, threading.Event] | None = None

    def __enter__(self) -> PhaseBar:
        self.progress.start()
        self.progress.refresh()
        self._tick(True)
        return self

    def __exit__(self, *exc) -> None:
        self._tick(False)
        self.progress.stop()

    def __call__(self, phase: str, done: int, total: int | None) -> None:
        """A job's report(phase, done, total)."""
        self._tick(total is None)
        with self._lock:
            self.progress.update(self.task, description=phase, completed=done, total=total, refresh=True)

    def _tick(self, on: bool) -> None:
        """Start the ticker (a phase with no count), or stop it and wait until it has ended."""
        if on and self._ticker is None and not self.progress.disable:
            stop = threading.Event()
            thread = threading.Thread(target=self._ticking, args=(stop,), name="phase-bar-clock", daemon=True)
            self._ticker = (thread, stop)
            thread.start()
        elif not on and self._ticker is not None:
            thread, stop = self._ticker
            stop.set()
            thread.join()
            self._ticker = None

    def _ticking(self, stop: threading.Event) -> None:
        while not stop.wait(self.TICK_S):
            with self._lock:
                self.progress.refresh()
