"""A run (or a sweep of runs) on the command line: its header, a progress bar with claims
per minute and the time left, and its end in one line per run."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from workbench.cli import UserError, current_db_path
from workbench.cli.cancellable import run_cancellable
from workbench.cli.hints import suggested
from workbench.cli.opening import open_store
from workbench.render.console import output_console
from workbench.render.display import literal, one_line
from workbench.usage.run_budget import resume_words
from workbench.words import counted

if TYPE_CHECKING:
    from workbench.runs.types import PreparedRun, RunEvent, RunFinished

console = output_console()


def announce(prepared: PreparedRun, engine: bool = True) -> None:
    """The run's header: what it is, what is left, and (with `engine`) a local engine's settings."""
    run = prepared.run
    verb = "continuing run" if prepared.resumed else "new run"
    console.print(
        f"{verb} {literal(run.name)} (id {run.id}): {counted(prepared.total, 'claim')},"
        f" {len(prepared.pending_claim_ids):,} to answer; model {literal(run.model)}, template"
        f" {literal(run.prompt_name)}, setting {literal(run.setting)}",
        markup=False,
    )
    for note in _choice_notes(prepared):
        console.print(note, markup=False, soft_wrap=True)
    search = prepared.search
    if search is not None and search.image_search:
        seen = (
            "it takes images: it is shown the retrieved images it asks to look at"
            if search.vision
            else "it does not take images: it gets each image's title and where it is"
        )
        console.print(f"image search on ({search.backend}); {seen}", markup=False)
    if engine:
        announce_engine(prepared)


def _choice_notes(prepared: PreparedRun) -> list[str]:
    """Why a new run is not the run the user may have expected (a taken name, an unfinished twin)."""
    notes = []
    if prepared.name_taken_by is not None:
        notes.append(
            f"note: a run named {prepared.name_taken_by} already exists (finished, or made with another"
            f" configuration), so this new run is named {prepared.run.name}"
        )
    if prepared.unfinished_twin is not None:
        notes.append(
            f"note: run {prepared.unfinished_twin} has the same configuration and is unfinished; it is left as it"
            f" is (`{suggested('run', '--resume', prepared.unfinished_twin)}` continues it)"
        )
    return notes


def announce_engine(prepared: PreparedRun) -> None:
    """A local model's engine settings (once per command), and what changed since the run began."""
    if not prepared.engine:
        return
    from workbench.render.usage import engine_line
    from workbench.runs.run_record import engine_changes

    console.print(engine_line(prepared.engine), markup=False)
    changed = engine_changes(prepared.run, prepared.engine)
    if changed:
        console.print(
            f"note: the engine differs from when run {one_line(prepared.run.name)} started ({'; '.join(changed)})",
            markup=False,
        )


class Pace:
    """Claims per minute and the time left, from the model's answers in this command (not
    those from the cache, nor failed requests: the bar's counts show those)."""

    def __init__(self, remaining: int):
        self.started, self.remaining = time.monotonic(), remaining
        self.answered = self.cached = self.failed = 0

    def step(self, prediction) -> None:
        if prediction.cached:
            self.cached += 1
        elif prediction.status == "error":
            self.failed += 1
        else:
            self.answered += 1

    def text(self) -> str:
        from workbench.render.usage import pace_text

        left = self.remaining - self.answered - self.cached - self.failed
        elapsed = time.monotonic() - self.started
        return pace_text(self.answered, elapsed, left, self.cached, self.failed, show_cached=False)


def execute_with_progress(prepared: PreparedRun, budget=None) -> RunFinished | None:
    """One run in a worker thread so Ctrl-C lands here and cancels cleanly."""
    return execute_sweep_with_progress([prepared], budget).get(prepared.run.id)


def execute_sweep_with_progress(prepared_runs: list[PreparedRun], budget=None) -> dict[int, RunFinished]:
    """Runs answered together (runs.engine.execute_runs) under one bar; their RunFinished by id."""
    from workbench.runs.engine import ItemFinished, RunFinished, runs_blocking

    finished: dict[int, RunFinished] = {}
    db_path = current_db_path()
    columns = [
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[counts]}"),
        TextColumn("{task.fields[pace]}"),
    ]
    total = sum(p.total for p in prepared_runs)
    already = sum(p.total - len(p.pending_claim_ids) for p in prepared_runs)
    latest = {p.run.id: None for p in prepared_runs}
    pace = Pace(total - already)
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task("answering", total=total, completed=already, counts="", pace="")

        def on_event(event: RunEvent) -> None:
            if isinstance(event, ItemFinished):
                latest[event.run_id] = event.progress
                pace.step(event.prediction)
                known = [p for p in latest.values() if p is not None]
                done = sum(p.done + p.error for p in known) + sum(
                    q.total - len(q.pending_claim_ids) for q in prepared_runs if latest[q.run.id] is None
                )
                failed = sum(p.error + p.parse_failure for p in known)
                bar.update(
                    task,
                    completed=done,
                    pace=pace.text(),
                    counts=f"failed {failed} cached {sum(p.cached for p in known)}",
                )
            elif isinstance(event, RunFinished):
                finished[event.run_id] = event

        run_cancellable(
            lambda cancel: runs_blocking(db_path, prepared_runs, on_event, cancel, budget),
            bar.console,
            "workbench-run",
            "cancelling: answers in flight are dropped...",
        )
    return finished


def report_finished(prepared: PreparedRun, finished: RunFinished | None, again: str | None = None, budget=None) -> None:
    """The run's end in one line; a non-zero exit unless every claim has an answer.

    `again`: the command that continues the run (default `workbench run --resume NAME`), as
    the user can type it (hints.suggested, hints.this_command)."""
    problem = finished_line(prepared, finished, again, budget)
    if problem is not None:
        code, message = problem
        if code == 130:
            console.print(message, markup=False, soft_wrap=True)  # one line to copy
            raise SystemExit(130)
        raise UserError(message)


def finished_line(
    prepared: PreparedRun, finished: RunFinished | None, again: str | None = None, budget=None
) -> tuple[int, str] | None:
    """Print the run's end; (exit status, message) when it did not answer every claim."""
    name = prepared.run.name
    given_again, again = again, again or suggested(*resume_words(name, budget))
    if finished is None:
        return 1, f"run {name} stopped without finishing; `{again}` continues it"
    p = finished.progress
    console.print(
        f"{finished.status}: {p.ok:,} ok, {p.abstain:,} abstained, {p.parse_failure:,} unparsed,"
        f" {p.error:,} errors, {p.missing:,} not tried; {p.cached:,} from cache;"
        f" tokens spent by the run so far {p.tokens_in:,} in / {p.tokens_out:,} out",
        markup=False,
    )
    if finished.status == "failed":
        return 1, f"run {name} failed: {finished.message}; fix that, then `{again}`"
    if finished.status == "cancelled":
        if budget is not None and budget.reached:
            more = f"{given_again or suggested('run', '--resume', name)} --max-cost MORE"
            return 1, f"run {name} stopped at the budget: {budget.stop_reason}; `{more}` continues it"
        return 130, f"cancelled; continue with: {again}"
    if p.error or p.missing:
        print_error_causes(prepared.run.id)
        # Non-zero, so a script notices: the run is not complete.
        causes = " (why: above)" if p.error else ""
        unanswered = p.error + p.missing
        have = "has" if unanswered == 1 else "have"
        return 1, (f"{unanswered:,} of {counted(p.total, 'claim')} {have} no answer{causes}; `{again}` retries them")
    return None


def report_sweep(prepared_runs: list[PreparedRun], finished: dict[int, RunFinished], budget=None) -> None:
    """Each run's end; the worst exit status of them (130 for a cancel, 1 otherwise)."""
    problems = []
    for prepared in prepared_runs:
        if len(prepared_runs) > 1:
            console.print(literal(f"{prepared.run.name}: ", "bold"), end="")
        problem = finished_line(prepared, finished.get(prepared.run.id), budget=budget)
        if problem is not None:
            problems.append(problem)
    if not problems:
        return
    if all(code == 130 for code, _ in problems):
        console.print(problems[0][1], markup=False, soft_wrap=True)
        raise SystemExit(130)
    raise UserError("; ".join(message for _code, message in problems))


def print_error_causes(run_id: int) -> None:
    """Each distinct error of a run with the number of claims it ended, most frequent first."""
    store = open_store()
    try:
        causes = store.runs.error_causes(run_id)
    finally:
        store.close()
    for message, count in causes:
        console.print(f"  {count:,} × {one_line(message, 200)}", markup=False)


def answer_what_is_left(prepared_runs: list[PreparedRun], again: str) -> None:
    """The judge runs a scoring command prepared (Ev2R's parts, AVerImaTeC's): each that still
    lacks answers announced, all answered under one progress display, and how each ended,
    with `again` (the command as typed) to continue an interrupted one."""
    pending = [p for p in prepared_runs if p.pending_claim_ids]
    if not pending:
        return
    for one in pending:
        announce(one, engine=one is pending[0])
    finished = execute_sweep_with_progress(pending)
    for one in pending:
        report_finished(one, finished.get(one.run.id), again)
