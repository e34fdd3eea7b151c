"""Runs through the providers' batch APIs: `workbench run --batch`, then `workbench batch ...`.

workbench run --model openai:gpt-4.1-mini --dataset demo --batch   # submit, return at once
workbench batch status                                             # every batch, where it stands
workbench batch collect RUN [--wait]                               # read the answers back
workbench batch cancel RUN                                         # ask the provider to stop
workbench batch forget RUN                                         # stop waiting (frees the claims)
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from typing import TYPE_CHECKING

import click

from store.names import no_run
from workbench.cli import UserError, current_db_path, shared_options
from workbench.cli.hints import suggested, with_root_options
from workbench.cli.opening import open_store
from workbench.render.console import output_console
from workbench.render.display import literal
from workbench.words import counted

if TYPE_CHECKING:
    from workbench.runs.types import PreparedRun

console = output_console()
STILL_OUT = 75
"""`batch collect`'s exit status while answers are still at the provider (EX_TEMPFAIL)."""


def submit_from_cli(prepared: PreparedRun) -> None:
    """`workbench run --batch`: send the pending claims as one batch and say what comes next."""
    from workbench.runs.batch import submit_batch

    submitted = asyncio.run(submit_batch(current_db_path(), prepared))
    name = prepared.run.name
    done = f"{submitted.cached:,} answered from the cache, {submitted.unrenderable:,} could not be rendered"
    if not submitted.batches:
        console.print(f"nothing to send: {done}", markup=False)
        return
    ids = ", ".join(row.batch_id for row in submitted.batches)
    console.print(
        f"submitted batch {ids} to {prepared.spec.scheme}: {counted(submitted.requests, 'request')}"
        f" ({done}).\nThe provider answers within a day; `{suggested('batch', 'collect', name)}` reads"
        " the answers back (--wait to wait for them).",
        markup=False,
        soft_wrap=True,
    )


@click.group("batch")
@shared_options
def batch() -> None:
    """Runs handed to a provider's batch API (OpenAI, Anthropic, OpenAI-compatible servers
    with /v1/batches): submit with `workbench run ... --batch`, then status / collect /
    cancel / forget."""


@batch.command("status")
@click.argument("run_ref", metavar="[RUN]", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@shared_options
def status_command(run_ref: str | None, as_json: bool) -> None:
    """The batches of one run, or of every run, as recorded (collect asks the provider)."""
    store = open_store()
    runs = [_run(store, run_ref)] if run_ref else store.runs.list()
    rows = [
        {"run": run.name, "run_status": run.status, **batch_row.__dict__}
        for run in runs
        for batch_row in store.batches.of_run(run.id)
    ]
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    from workbench.render.listing import Column, Listing

    table = Listing(  # run and batch are what other commands take: never cut
        Column("run", "name", 100),
        Column("provider", "label", 60),
        Column("batch", "name", 95),
        Column("requests", "number", 80, "right"),
        Column("state", "label", 90),
        Column("submitted", "label", 50),
        Column("note", "text", 40),
    )
    for row in rows:
        state = row["status"] + (f" ({row['provider_status']})" if row["provider_status"] else "")
        table.add_row(
            literal(row["run"]),
            row["provider"],
            literal(row["batch_id"]),
            f"{row['requests']:,}",
            state,
            row["submitted_at"],
            literal(row["note"] or ""),
        )
    console.print(table)
    console.print(f"{len(rows):,} batches", markup=False)


@batch.command("collect")
@click.argument("run_ref", metavar="RUN")
@click.option("--wait", is_flag=True, help="Ask again until every batch of the run has ended.")
@click.option(
    "--every", default=60.0, show_default=True, type=click.FloatRange(0.1), help="Seconds between asks with --wait."
)
@click.option("--json", "as_json", is_flag=True, help="Print what happened as JSON.")
@shared_options
def collect_command(run_ref: str, wait: bool, every: float, as_json: bool) -> None:
    """Read the answers of the run's ended batches into predictions (and the cache).

    Exit status: 0 when every claim has an answer, 75 while answers are still at the
    provider (collect again later), 1 when claims are left without one.
    """
    prepared = _prepared(run_ref)  # a misspelled run is said before the provider's SDK loads
    from workbench.runs.batch import collect_batches

    while True:
        collected = asyncio.run(collect_batches(current_db_path(), prepared))
        if as_json:
            click.echo(json.dumps(_collected_json(prepared, collected), ensure_ascii=False))
        else:
            _report(prepared, collected)
        if not (wait and collected.waiting):
            break
        time.sleep(every)
    _exit_for(prepared, collected, as_json)


def _exit_for(prepared: PreparedRun, collected, quiet: bool) -> None:
    """Non-zero unless the run is complete: 75 while answers are still out, else 1."""
    name, p = prepared.run.name, collected.progress
    again = (
        f"`{suggested('run', '--resume', name)}` answers them live, `{suggested('run', '--resume', name, '--batch')}`"
        " in a new batch"
    )
    if collected.failed:
        reasons = "; ".join(f"{row.batch_id}: {state.failure}" for row, state in collected.failed)
        raise UserError(f"the provider failed the whole batch ({reasons}); its claims are still pending: {again}")
    if collected.waiting or collected.unconfirmed:
        if not quiet:
            console.print(
                f"answers are still at the provider: collect again later, or with --wait (exit status {STILL_OUT})",
                markup=False,
            )
        raise SystemExit(STILL_OUT)
    if p.error or p.missing:
        errors = f" (the errors: `{suggested('predictions', name)}`)" if p.error else ""
        unanswered = p.error + p.missing
        have = "has" if unanswered == 1 else "have"
        raise UserError(f"{unanswered:,} of {counted(p.total, 'claim')} {have} no answer{errors}; {again}")


def _collected_json(prepared: PreparedRun, collected) -> dict:
    def batch(row, state=None) -> dict:
        found = {"batch_id": row.batch_id, "submitted_at": row.submitted_at, "requests": row.requests}
        if state is not None:
            found.update(
                provider_status=state.status, succeeded=state.succeeded, failed=state.failed, failure=state.failure
            )
        return found

    return {
        "run": prepared.run.name,
        "answers_recorded": collected.answers,
        "lines_ignored": collected.ignored,
        "waiting": [batch(r, s) for r, s in collected.waiting],
        "collected": [batch(r, s) for r, s in collected.collected],
        "failed": [batch(r, s) for r, s in collected.failed],
        "unconfirmed": [batch(r) for r in collected.unconfirmed],
        "released": [batch(r) for r in collected.released],
        "progress": {**dataclasses.asdict(collected.progress), "missing": collected.progress.missing},
    }


@batch.command("cancel")
@click.argument("run_ref", metavar="RUN")
@shared_options
def cancel_command(run_ref: str) -> None:
    """Ask the provider to stop the run's batches; `collect` then reads what was answered."""
    prepared = _prepared(run_ref)
    from workbench.runs.batch import cancel_batches

    cancelled = asyncio.run(cancel_batches(current_db_path(), prepared))
    if not cancelled:
        console.print(f"run {prepared.run.name} has no batch out", markup=False)
        return
    console.print(
        f"asked to cancel {', '.join(b.batch_id for b in cancelled)}; once the provider has stopped,"
        f" `{suggested('batch', 'collect', prepared.run.name)}` reads what was answered",
        markup=False,
        soft_wrap=True,
    )


@batch.command("forget")
@click.argument("run_ref", metavar="RUN")
@shared_options
def forget_command(run_ref: str) -> None:
    """Stop waiting for the run's batches (their answers will not be read); frees its claims."""
    store = open_store()
    run = _run(store, run_ref)
    from workbench.runs.batch import forget_batches

    forgotten = forget_batches(store, run)
    if not forgotten:
        console.print(f"run {run.name} has no batch out", markup=False)
        return
    ids = ", ".join(row.batch_id or f"(unconfirmed submit of {row.submitted_at})" for row in forgotten)
    console.print(
        f"forgot {ids}; `{suggested('run', '--resume', run.name)}` answers the claims live (or with"
        " --batch in a new batch)",
        markup=False,
        soft_wrap=True,
    )


def _report(prepared: PreparedRun, collected) -> None:
    from workbench.runs.engine import unconfirmed_advice

    for row in collected.released:
        console.print(
            f"the submit started {row.submitted_at} never reached the provider; its claims are free again", markup=False
        )
    for row in collected.unconfirmed:
        if row.note is None and row.provider == "openai":  # maybe still going on in another process
            console.print(
                f"a submit started {row.submitted_at} has not completed (it may still be under way);"
                " collect asks the provider about it once it is 20 minutes old",
                markup=False,
            )
        else:
            advice = with_root_options(unconfirmed_advice(row.provider, prepared.run.name))
            console.print(
                f"a submit started {row.submitted_at} never completed ({row.note or 'cut off'}): {advice}",
                markup=False,
                soft_wrap=True,
            )
    for row, state in collected.waiting:
        console.print(
            f"batch {row.batch_id}: {state.status}, {state.succeeded + state.failed:,} of"
            f" {state.total or row.requests:,} done at the provider",
            markup=False,
        )
    for row, state in collected.collected:
        console.print(f"batch {row.batch_id}: {state.status}; read back", markup=False)
    p = collected.progress
    line = (
        f"{counted(collected.answers, 'answer')} recorded now; run {prepared.run.name}: {p.ok:,} ok, {p.abstain:,}"
        f" abstained, {p.parse_failure:,} unparsed, {p.error:,} errors, {p.missing:,} not answered"
    )
    if collected.ignored:
        line += f"; {collected.ignored:,} lines ignored (claims already answered or not in the run)"
    console.print(line, markup=False)


def _prepared(run_ref: str) -> PreparedRun:
    store = open_store()
    try:
        run = _run(store, run_ref)  # before the engine's imports: a misspelled name answers at once
        if run.model.startswith("gguf:"):
            raise UserError(f"run {run_ref} uses a local GGUF model: it has no batches")
        from workbench.runs.engine import RunRequest, prepare_run

        if run.kind == "judge":
            from workbench.judging.runs import reopen_judge_run

            return reopen_judge_run(store, run)
        if run.kind == "screen":
            from workbench.curation.screening import reopen_screening

            return reopen_screening(store, run)
        return prepare_run(store, RunRequest(resume=run_ref))
    finally:
        store.close()


def _run(store, run_ref: str):
    run = store.runs.get(run_ref)
    if run is None:
        raise UserError(no_run(store.runs, run_ref, listing=False))
    return run
