"""Running a model from the TUI: a thread worker around runner.run_blocking, cancellable.

The worker opens its own connection (the runner does, from the database path); the
browser sees results land through PRAGMA data_version like any other writer's.
"""

from __future__ import annotations

import threading
import time

from textual.message import Message

from workbench.render.display import printable
from workbench.tui.widgets.run_status import RunState, RunStatus

LINGER_S = {"finished": 5.0, "cancelled": 5.0, "failed": 15.0}
"""How long an ended run's line stays; a failure's line, with its reason, stays longer."""


class RunEvent(Message):
    """A runner event (RunStarted / ItemFinished / RunFinished), carried to the UI thread."""

    def __init__(self, event):
        super().__init__()
        self.event = event


class RunControl:
    """At most one run per window; a threading.Event stops it (a local model mid-answer too)."""

    def __init__(self, app):
        self.app = app
        self.state = RunState()
        self._cancel: threading.Event | None = None
        self._fading: RunState | None = None

    @property
    def active(self) -> bool:
        return self.state.status in ("starting", "running", "cancelling")

    def start(self, prepared) -> bool:
        """Execute a prepared run in a thread worker; False if one is already going."""
        if self.active:
            self.app.notify("a run is already going; cancel it first (K)", severity="warning")
            return False
        self._cancel = threading.Event()
        run = prepared.run
        self.state = RunState(run_id=run.id, name=run.name, total=len(prepared.pending_claim_ids), status="starting")
        self.app.run_worker(
            lambda: self._execute(prepared, self._cancel),
            thread=True,
            exclusive=True,
            group="model-run",
            name="run",
            exit_on_error=False,
        )
        self.app.refresh_bindings()
        self._changed()
        return True

    def preparing(self, name: str, note: str) -> None:
        """Show on the progress line that a run is being set up (its model checked, a GGUF
        file loaded): the screen that asked says at once that something is happening."""
        if not self.active:
            self.state = RunState(name=name, status="preparing", message=note)
            self._changed()

    def not_started(self, why: str | None = None) -> None:
        """The run being set up will not start: say why on the line (or clear it)."""
        if self.state.status == "preparing":
            self.state = RunState(name=self.state.name, status="failed" if why else "idle", message=why)
            self._changed()

    def _execute(self, prepared, cancel: threading.Event):
        """Runs on a worker thread: never touches widgets, posts events instead. A run that
        keeps a budget (--max-cost) goes on under it, as a resume on the command line does."""
        from workbench.runs.engine import run_blocking
        from workbench.usage.prices import price_table
        from workbench.usage.run_budget import keep_budget

        budget, _ = keep_budget(self.app.stores.get(), [prepared], None, price_table(self.app.settings))
        return run_blocking(
            self.app.db_path,
            prepared,
            on_event=lambda e: self.app.post_message(RunEvent(e)),
            cancel=cancel,
            budget=budget,
        )

    def cancel(self) -> None:
        if not self.active or self._cancel is None:
            self.app.notify("no run is going")
            return
        self._cancel.set()
        self.state.status = "cancelling"
        # Said on the run's own line, not in a toast: a toast lies over the line's end for
        # its 5 s, hiding "cancelled" (which comes within a second) until it goes.
        self.state.message = "answers in flight are abandoned, answers given stay"
        self._changed()

    def handle(self, event) -> None:
        """Update the state from a runner event (UI thread)."""
        kind = type(event).__name__
        if kind == "RunStarted":
            self.state.total = event.total
            self.state.done = event.total - event.pending
            self.state.started = time.monotonic()
            if self.state.status == "starting":
                self.state.status = "running"
        elif kind == "ItemFinished":
            self.state.progress = event.progress
            self.state.done = event.progress.done + event.progress.error
            if event.prediction.cached:
                self.state.cached_here += 1
            elif event.prediction.status == "error":
                self.state.failed_here += 1
            else:
                self.state.finished_here += 1
        elif kind == "RunFinished":
            self.state.progress = event.progress
            self.state.status = event.status
            self.state.message = getattr(event, "message", None)
            self.state.done = event.progress.done + event.progress.error
            self._fade_when_ended()
        self._changed()

    def worker_ended(self, ok: bool, error: BaseException | None = None) -> None:
        if self.state.status in ("starting", "running", "cancelling"):
            self.state.status = (
                "cancelled" if self._cancel and self._cancel.is_set() else ("finished" if ok else "failed")
            )
            if error is not None:  # a user-facing error says it all; anything else names its type
                known = type(error).__name__ in ("RunSetupError", "BackendError", "BudgetError")
                self.state.message = str(error) if known else f"{type(error).__name__}: {error}"
        if self.state.status == "failed" and self.state.message:
            self.app.notify(
                f"run {printable(self.state.name)} failed: {printable(self.state.message)}",
                severity="error",
                markup=False,
                timeout=10,
            )
        self._fade_when_ended()
        self.app.refresh_bindings()
        self._changed()
        self.app.data_changed()

    def _fade_when_ended(self) -> None:
        """An ended run's line stays long enough to be read, then leaves every screen."""
        ended = self.state
        if ended.status not in LINGER_S or self._fading is ended:
            return
        self._fading = ended

        def clear() -> None:
            if self.state is ended:  # not a run started since
                self.state = RunState()
                self._changed()

        self.app.set_timer(LINGER_S[ended.status], clear)

    def _changed(self) -> None:
        """Every screen's line (those under the current one too: they show it when they return)."""
        for screen in self.app.screen_stack:
            for widget in screen.query(RunStatus):
                widget.show_state(self.state)
