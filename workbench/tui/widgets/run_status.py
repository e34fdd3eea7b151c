"""A one-line progress bar for the run started from this window (hidden when idle)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Static

from store import RunProgress
from workbench.render.display import one_line

BAR_CELLS = 20


@dataclass
class RunState:
    """What the progress bar shows."""

    run_id: int | None = None
    name: str = ""
    total: int = 0
    done: int = 0
    progress: RunProgress | None = None
    status: str = "idle"
    """idle, preparing (a model being checked or loaded), starting, running, cancelling,
    finished, cancelled, failed."""
    message: str | None = None
    """Why a run failed (from the runner), shown beside the bar."""
    started: float | None = None
    """time.monotonic() when the runner started (for claims/min and the time left)."""
    finished_here: int = 0
    """Claims the model answered since the run started here (the rate counts these)."""
    cached_here: int = 0
    """Answers taken from the cache since then (shown apart: they come at once)."""
    failed_here: int = 0
    """Requests that failed since then."""


def progress_line(state: RunState) -> Text:
    """'name ━━━━━━━╺─────── 12/50  ok 10 ∅1 ?1 !0  K cancels' (the bar in plain characters)."""
    line = Text(one_line(state.name, 24) + " ", style="bold")
    if state.status == "preparing":  # no run yet: what is being done before it starts
        line.append(one_line(state.message or "preparing…", 80), style="dim")
        return line
    share = state.done / state.total if state.total else 0.0
    filled = round(share * BAR_CELLS)
    line.append("━" * filled, style="green")
    line.append("╺" + "─" * max(BAR_CELLS - filled - 1, 0) if filled < BAR_CELLS else "", style="dim")
    line.append(f" {state.done:,}/{state.total:,} ")
    progress = state.progress
    if progress is not None:
        line.append(f"ok {progress.ok} ", style="green")
        line.append(f"∅{progress.abstain} ", style="yellow")
        line.append(f"?{progress.parse_failure} ", style="magenta")
        line.append(f"!{progress.error} ", style="red")
    if state.status == "running" and state.started is not None:
        from workbench.render.usage import pace_text

        remaining = state.total - state.done
        elapsed = time.monotonic() - state.started
        pace = pace_text(state.finished_here, elapsed, remaining, state.cached_here, state.failed_here)
        line.append(pace + " " if pace else "", style="dim")
    if state.status in ("cancelling", "cancelled", "failed", "finished"):
        line.append(state.status, style="bold")
        if state.message:
            line.append(": " + one_line(state.message, 60))
    else:
        line.append("K cancels", style="dim")
    return line


class RunStatus(Static):
    """Shows the window's run: name, bar, counts; hidden when no run was started."""

    DEFAULT_CSS = """
    RunStatus { height: 1; display: none; background: $panel; padding: 0 1; }
    RunStatus.-visible { display: block; }
    """

    def __init__(self):
        super().__init__(markup=False)

    def on_mount(self) -> None:
        runs = getattr(self.app, "runs", None)  # a screen hosted alone (tests) has no run control
        self.show_state(runs.state if runs is not None else RunState())

    def show_state(self, state: RunState) -> None:
        self.set_class(state.status != "idle", "-visible")
        if state.status != "idle":
            self.update(progress_line(state))
