"""Commands for model runs: run, runs, predictions."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

import click
from rich import box
from rich.table import Table

from workbench.choices import RUN_KINDS
from workbench.cli import UserError, current_db_path, shared_options
from workbench.cli.cancellable import run_cancellable
from workbench.cli.hints import suggested
from workbench.cli.opening import open_store
from workbench.render.console import output_console
from workbench.render.display import literal, one_line
from workbench.render.waiting import status

if TYPE_CHECKING:
    from workbench.runs.types import PreparedRun, RunEvent, RunFinished

console = output_console()


@click.command("run")
@click.option("--dataset", help="Only claims of this dataset.")
@click.option("--where", "filter_text", default="", help="Filter the claims (see `workbench filter-help`).")
@click.option("--model", default="gguf:default", show_default=True,
              help="gguf:PATH | gguf:default | openai:MODEL | anthropic:MODEL | openai-compatible:NAME")
@click.option("--base-url", help="Server URL for openai-compatible (or a proxy for openai / anthropic).")
@click.option("--setting", default="claim", show_default=True,
              help="CONTEXT[+EVIDENCE], e.g. claim+time+reference (see `workbench prompts`).")
@click.option("--prompt", default="auto", show_default=True,
              help="Template name; auto picks the one named after the claims' label space.")
@click.option("--concurrency", type=click.IntRange(1), help="Requests at once (default: the backend's).")
@click.option("--name", help="Run name (default: MODEL-PROMPT-SETTING).")
@click.option("--no-cache", is_flag=True, help="Ask the model even when an answer is cached.")
@click.option("--resume", "resume", metavar="RUN", help="Continue this run (name or id) with its own settings.")
@click.option("--param", "params", multiple=True, metavar="KEY=VALUE",
              help="temperature, max_tokens, seed, timeout, attempts, json, json_format, n_ctx, n_threads,"
                   " n_gpu_layers (repeatable).")
@click.option("--limit", type=click.IntRange(1), help="At most this many claims.")
@click.option("--search", "search", type=click.Choice(["fts", "searxng", "tavily", "serper"]),
              help="Let the model search before it answers: fts (offline, this database's evidence and"
                   " documents), searxng, tavily, serper (Google's results; $SERPER_API_KEY)."
                   " Trajectories: `workbench trajectory RUN CLAIM`.")
@click.option("--search-url", help="The search backend's address (SearXNG; another Tavily or Serper endpoint).")
@click.option("--image-search", is_flag=True, default=None,
              help="Search runs: image search too (searxng, serper); a vision model may look at the images it"
                   " finds, and search by the claim's own image (serper).")
@click.option("--max-images", type=click.IntRange(1), help="Search runs: retrieved images a claim's model may"
              " look at (default 3).")
@click.option("--max-steps", type=click.IntRange(1), help="Search runs: model turns per claim (default 6).")
@click.option("--max-searches", type=click.IntRange(1), help="Search runs: searches per claim (default 4).")
@click.option("--max-claim-tokens", type=click.IntRange(1),
              help="Search runs: tokens (sent and written) per claim; past them the model is asked to answer.")
@click.option("--batch", "as_batch", is_flag=True,
              help="Hand the claims to the provider's batch API and return; `workbench batch collect` reads"
                   " the answers (API models).")
@shared_options
def run_command(dataset, filter_text, model, base_url, setting, prompt, concurrency, name, no_cache, resume,
                params, limit, search, search_url, image_search, max_images, max_steps, max_searches, max_claim_tokens,
                as_batch) -> None:
    """Run a model over claims; every answer is saved the moment it arrives.

    Running the same command again continues an unfinished run, or starts a new run
    answered from the cache. Ctrl-C stops cleanly; --resume RUN picks up where it stopped.
    With --batch the requests go to the provider's batch API instead (cheaper, within a day).
    """
    if as_batch and not resume and model.startswith("gguf:"):
        raise UserError("--batch needs an API model (openai:, anthropic:, or openai-compatible: with a server that"
                        " implements /v1/batches); a GGUF model runs in process, without --batch")
    from workbench.runs.engine import RunRequest, prepare_run, waiting_message
    from workbench.runs.params import parse_param_pairs

    store = open_store()
    try:
        given = parse_param_pairs(list(params))
        for key, value in (("search", search), ("search_url", search_url), ("max_steps", max_steps),
                           ("max_searches", max_searches), ("claim_tokens", max_claim_tokens),
                           ("image_search", image_search), ("max_images", max_images)):
            if value is not None:
                given[key] = value
        if as_batch and given.get("search"):
            raise UserError("a search run goes turn by turn, searching between turns: it runs live, without --batch")
        request = RunRequest(model=model, setting=setting, prompt=prompt, dataset=dataset, filter=filter_text,
                             base_url=base_url, params=given, concurrency=concurrency,
                             name=name, use_cache=not no_cache, resume=resume, limit=limit)
        with status(f"checking the setup ({'the run to resume' if resume else model})…"):  # a GGUF file loads here
            prepared = prepare_run(store, request)
        waiting = store.batches.waiting(prepared.run.id)
    finally:
        store.close()
    announce(prepared)
    if not prepared.pending_claim_ids:
        console.print("nothing left to do: every claim has an answer", markup=False)
        return
    if waiting:  # sending those claims again would pay for them twice
        raise UserError(waiting_message(prepared.run.name, waiting))
    if as_batch:
        from workbench.cli.batch_commands import submit_from_cli

        submit_from_cli(prepared)
        return
    finished = execute_with_progress(prepared)
    report_finished(prepared, finished)


def announce(prepared: PreparedRun) -> None:
    run = prepared.run
    verb = "continuing" if prepared.resumed else "starting"
    console.print(f"{verb} run {literal(run.name)} (id {run.id}): {prepared.total:,} claims,"
                  f" {len(prepared.pending_claim_ids):,} to answer; model {literal(run.model)}, template"
                  f" {literal(run.prompt_name)}, setting {literal(run.setting)}", markup=False)
    search = prepared.search
    if search is not None and search.image_search:
        seen = ("it takes images: it is shown the retrieved images it asks to look at" if search.vision
                else "it does not take images: it gets each image's title and where it is")
        console.print(f"image search on ({search.backend}); {seen}", markup=False)


def execute_with_progress(prepared: PreparedRun) -> RunFinished | None:
    """Run in a worker thread so Ctrl-C lands here and cancels cleanly."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from workbench.runs.engine import ItemFinished, RunFinished, run_blocking

    outcome, db_path = {}, current_db_path()
    columns = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[counts]}"), TextColumn("{task.fields[rate]}"), TimeRemainingColumn()]
    with Progress(*columns, console=console, transient=False) as bar:
        already = prepared.total - len(prepared.pending_claim_ids)
        task = bar.add_task("answering", total=prepared.total, completed=already, counts="", rate="")
        started = time.monotonic()

        def on_event(event: RunEvent) -> None:
            if isinstance(event, ItemFinished):
                p = event.progress
                rate = (p.done + p.error - already) / max(time.monotonic() - started, 1e-6)
                bar.update(task, completed=p.done + p.error, rate=f"{rate:.1f}/s",
                           counts=f"failed {p.error + p.parse_failure} cached {p.cached}")
            elif isinstance(event, RunFinished):
                outcome["finished"] = event

        run_cancellable(lambda cancel: run_blocking(db_path, prepared, on_event, cancel), bar.console,
                        "workbench-run", "cancelling: answers in flight are dropped...")
    return outcome.get("finished")


def report_finished(prepared: PreparedRun, finished: RunFinished | None, again: str | None = None) -> None:
    """The run's end in one line; a non-zero exit unless every claim has an answer.

    `again`: the command that continues the run (default `workbench run --resume NAME`), as
    the user can type it (hints.suggested, hints.this_command)."""
    name = prepared.run.name
    again = again or suggested("run", "--resume", name)
    if finished is None:
        raise UserError(f"run {name} stopped without finishing; `{again}` continues it")
    p = finished.progress
    console.print(f"{finished.status}: {p.ok:,} ok, {p.abstain:,} abstained, {p.parse_failure:,} unparsed,"
                  f" {p.error:,} errors, {p.missing:,} not tried; {p.cached:,} from cache;"
                  f" tokens spent by the run so far {p.tokens_in:,} in / {p.tokens_out:,} out", markup=False)
    if finished.status == "failed":
        raise UserError(f"run {name} failed: {finished.message}; fix that, then `{again}`")
    if finished.status == "cancelled":
        console.print(f"cancelled; continue with: {again}", markup=False, soft_wrap=True)  # one line to copy
        raise SystemExit(130)
    if p.error or p.missing:
        print_error_causes(prepared.run.id)
        # Non-zero, so a script notices: the run is not complete.
        causes = " (why: above)" if p.error else ""
        raise UserError(f"{p.error + p.missing:,} of {p.total:,} claims have no answer{causes};"
                        f" `{again}` retries them")


def print_error_causes(run_id: int) -> None:
    """Each distinct error of a run with the number of claims it ended, most frequent first."""
    store = open_store()
    try:
        causes = store.runs.error_causes(run_id)
    finally:
        store.close()
    for message, count in causes:
        console.print(f"  {count:,} × {one_line(message, 200)}", markup=False)


@click.command("runs")
@click.option("--kind", "kinds", multiple=True, metavar="KIND",
              help=f"Only runs of this kind (repeatable): {', '.join(RUN_KINDS)}.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@shared_options
def runs_command(kinds: tuple[str, ...], as_json: bool) -> None:
    """List every run (answers, imported answers, judges, labellers, the contamination
    pipeline's steps) with its kind, status, counts, tokens and speed."""
    from workbench.runs.kinds import kind_of

    store = open_store()
    runs = store.runs.list(kind=None)
    if kinds:
        known = set(RUN_KINDS) | {kind_of(run) for run in runs}
        unknown = [kind for kind in kinds if kind not in known]
        if unknown:
            raise UserError(f"no kind of run {unknown[0]!r}; kinds: {', '.join(sorted(known))}")
        runs = [run for run in runs if kind_of(run) in kinds]
    rows = [_run_summary(store, run) for run in runs]
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    if not rows:
        console.print(f"no {' or '.join(kinds)} runs" if kinds else f"no runs yet: `{suggested('run')}` starts one",
                      markup=False, soft_wrap=True)
        return
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    table.add_column("id", no_wrap=True)
    table.add_column("run", min_width=22, overflow="fold")
    for header in ("total", "ok", "abst", "unpar", "err", "miss", "cache", "it/s"):
        table.add_column(header, justify="right", no_wrap=True)
    for r in rows:
        rate = f"{r['items_per_second']:.1f}" if r["items_per_second"] else ""
        label = literal(r["name"])
        label.append(f" {r['status']}", style="bold")
        kind = r["kind"] + (f" of #{r['of_run']}" if r["of_run"] is not None else "")
        parts = [kind, r["model"], r["prompt"], r["setting"], f"tokens {_short(r['tokens_in'])} in"
                 f" / {_short(r['tokens_out'])} out"]
        label.append("\n" + one_line(" · ".join(str(part) for part in parts if part)), style="dim")
        table.add_row(str(r["id"]), label,
                      *(f"{r[k]:,}" for k in ("total", "ok", "abstain", "parse_failure", "error", "missing",
                                              "cached")), rate)
    console.print(table)


def _short(count: int) -> str:
    return f"{count / 1000:.1f}k" if count >= 10_000 else str(count)


def _run_summary(store, run) -> dict:
    from workbench.runs.speed import items_per_second

    from workbench.runs.kinds import kind_of

    p = store.runs.progress(run.id)
    return {"id": run.id, "name": run.name, "kind": kind_of(run), "of_run": run.target_run_id,
            "status": run.status, "model": run.model, "prompt": run.prompt_name,
            "setting": run.setting, "total": p.total, "ok": p.ok, "abstain": p.abstain,
            "parse_failure": p.parse_failure, "error": p.error, "missing": p.missing, "cached": p.cached,
            "tokens_in": p.tokens_in, "tokens_out": p.tokens_out, "latency_s": round(p.latency_s, 3),
            "mean_latency_s": round(p.latency_s / max(p.done - p.cached, 1), 3),
            "items_per_second": items_per_second(p.done + p.error, run.started_at, run.finished_at),
            "created_at": run.created_at, "started_at": run.started_at, "finished_at": run.finished_at}


@click.command("predictions")
@click.argument("run_ref", metavar="RUN")
@click.option("--wrong", is_flag=True, help="Only answers that miss the gold label (as the filter `wrong`).")
@click.option("--limit", default=100, show_default=True, type=click.IntRange(1))
@click.option("--json", "as_json", is_flag=True, help="Print JSON lines (every field, raw output included).")
@shared_options
def predictions_command(run_ref: str, wrong: bool, limit: int, as_json: bool) -> None:
    """A run's answers beside the gold labels."""
    store = open_store()
    run = store.runs.get(run_ref)
    if run is None:
        raise UserError(f"no run {run_ref!r}; `workbench runs` lists them")
    compiled = store.claims.compile(f"run:{run.id}" + (" wrong" if wrong else ""))
    predictions = store.runs.predictions(run.id, compiled.where, list(compiled.params))
    shown = predictions[:limit]
    claims = {c.id: c for c in (store.claims.get(p.claim_id) for p in shown)}
    if as_json:
        for p in shown:
            claim = claims[p.claim_id]
            record = {"claim_id": p.claim_id, "external_id": claim.external_id, "gold": claim.label,
                      **p.model_dump(exclude={"id", "run_id", "claim_id"})}
            click.echo(json.dumps(record, ensure_ascii=False))
        return
    table = Table("claim", "ext id", "gold", "verdict", "status", "explanation / error")
    for p in shown:
        claim = claims[p.claim_id]
        note = p.error if p.status == "error" else p.explanation or p.raw_output
        table.add_row(str(p.claim_id), literal(claim.external_id), literal(claim.label or ""),
                      literal(p.verdict or p.raw_verdict or ""), p.status + (" (cached)" if p.cached else ""),
                      literal(one_line(note, 70)))
    console.print(table)
    console.print(f"{len(shown):,} shown of {len(predictions):,}", markup=False)
