"""Long work in a helper thread, so Ctrl-C lands in the main thread and cancels cleanly."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TypeVar

from rich.console import Console

T = TypeVar("T")
POLL_S = 0.2


STOPPED_RUN = "stopped at once; the same command (or --resume) continues the run"


def run_cancellable(
    work: Callable[[threading.Event], T],
    console: Console,
    name: str,
    cancelling_message: str | None,
    tick: Callable[[], None] | None = None,
    stopped_message: str = STOPPED_RUN,
) -> T:
    """Run `work(cancel)` in a thread; Ctrl-C sets `cancel` and waits for it to stop.

    The work's own exception is raised here, in the main thread. `tick` is called every
    POLL_S while it runs (to update a progress line); `cancelling_message` (if any) is
    printed at the Ctrl-C, `stopped_message` at a second one, which ends the process.
    """
    cancel, done, result = threading.Event(), threading.Event(), {}

    def target() -> None:
        try:
            result["value"] = work(cancel)
        except BaseException as error:  # reported by the main thread
            result["error"] = error
        finally:
            done.set()

    threading.Thread(target=target, name=name, daemon=True).start()
    try:
        # An Event, not Thread.join: before Python 3.13 a join cut short by Ctrl-C can
        # mark the thread finished while it still runs.
        while not done.wait(POLL_S):
            if tick is not None:
                tick()
    except KeyboardInterrupt:
        cancel.set()
        if cancelling_message is not None:
            console.print(cancelling_message, markup=False)
        _wait_or_stop_now(done, console, stopped_message)
    if "error" in result:
        raise result["error"]
    return result.get("value")


def _wait_or_stop_now(done: threading.Event, console: Console, stopped_message: str) -> None:
    """Wait for the cancelled work to end (within a second: a local model stops mid-answer);
    a second Ctrl-C ends the process at once, as a kill would: every answer given is
    committed already, and the same command continues the run."""
    try:
        while not done.wait(POLL_S):
            pass
    except KeyboardInterrupt:
        console.print(stopped_message, markup=False)
        console.show_cursor(True)  # a progress bar hid it, and no exit handler will show it again
        console.file.flush()
        os._exit(130)
