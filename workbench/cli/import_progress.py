"""`workbench import` while it reads a big file: a progress line in a terminal (records
read, their rate, the time taken and the time left by the bytes read of the file's size),
nothing when the output is piped; Ctrl-C cancels it, writing nothing, and exits 130."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from workbench.importers.meter import ReadMeter

T = TypeVar("T")

PHASES = {"labels": "reading the labels", "reading": "importing", "writing": "writing the index"}
STOPPED = "import stopped at once: nothing written (the database rolls the import back when next opened)"


def progress_text(meter: ReadMeter) -> str:
    """'120,000 rows read · 8,210/s · 14s · ETA 21s' (no rate or ETA before there is one)."""
    from workbench.render.usage import duration_text

    elapsed = meter.elapsed
    parts = [f"{meter.records:,} rows read"]
    if meter.phase != "writing" and elapsed >= 0.5 and meter.records:
        parts.append(f"{meter.records / elapsed:,.0f}/s")
    parts.append(duration_text(elapsed))
    eta = meter.eta_seconds()
    if eta is not None:
        parts.append(f"ETA {duration_text(eta)}")
    return " · ".join(parts)


def import_with_progress(work: Callable[[ReadMeter], T], label: str, console=None) -> tuple[T, bool]:
    """`work(meter)` in a helper thread under a progress line (drawn at most 10 times a
    second, cleared at the end): its result, and whether Ctrl-C came after it was written.
    A Ctrl-C before that cancels it: ImportCancelled, nothing written."""
    from rich.progress import BarColumn, Progress, TextColumn

    from workbench.cli.cancellable import run_cancellable
    from workbench.render.console import output_console

    meter = ReadMeter()
    console = console or output_console()

    def run(cancel) -> T:
        meter.cancel = cancel
        return work(meter)

    if not console.is_terminal:  # piped: only the summary
        return run_cancellable(run, console, "workbench-import", None, None, STOPPED), meter.cancel.is_set()
    columns = [TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[pace]}")]
    with Progress(*columns, console=console, transient=True, refresh_per_second=10) as bar:
        task = bar.add_task(f"{PHASES['labels']} {label}", total=None, pace="")

        def tick() -> None:
            total = meter.total_bytes or None
            done = meter.bytes_read if meter.phase == "reading" else (total if meter.phase == "writing" else 0)
            description = f"{PHASES.get(meter.phase, meter.phase)} {label}"
            bar.update(task, description=description, total=total, completed=done, pace=progress_text(meter))

        result = run_cancellable(run, bar.console, "workbench-import", None, tick, STOPPED)
    return result, meter.cancel.is_set()


def label_of(path: Path) -> str:
    """The file's name as the progress line shows it."""
    from workbench.render.display import one_line

    return one_line(path.name, 40)
