"""Worker failures become error notifications, never a crash (Harlequin's rule)."""

from __future__ import annotations

from textual.worker import Worker, WorkerState

from workbench.render.display import one_line


def describe(error: BaseException | None) -> str:
    """One printable line for an exception (no markup, no control characters)."""
    if error is None:
        return "unknown error"
    return one_line(f"{type(error).__name__}: {error}", 300)


class ReportsWorkerErrors:
    """Mix into any widget or screen that runs workers: a failed worker is reported.

    Worker.StateChanged does not bubble, so each node that starts workers needs this.
    """

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            self.app.notify(
                describe(event.worker.error),
                title=f"{event.worker.name} failed",
                severity="error",
                markup=False,
                timeout=10,
            )
