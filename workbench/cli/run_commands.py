"""Commands for model runs: run, runs, predictions."""

from __future__ import annotations

import json

import click

from store.names import no_run
from workbench.choices import RUN_KINDS
from workbench.cli import UserError, shared_options
from workbench.cli.dollars import DOLLARS
from workbench.cli.opening import open_store
from workbench.render.console import reading_console
from workbench.render.display import literal, one_line


def _language_hint(store, prepared) -> str | None:
    """A template in the claims' own language, when there is one (jsfactcheck-ja for Japanese claims)."""
    from workbench.config import load_settings
    from workbench.prompting import SAMPLE_CLAIMS, language_hint

    claims = (store.claims.get(claim_id) for claim_id in prepared.pending_claim_ids[:SAMPLE_CLAIMS])
    texts = [claim.text for claim in claims if claim is not None]
    return language_hint(prepared.template, texts, load_settings().prompts_dir) if texts else None


@click.command("run")
@click.option("--dataset", help="Only claims of this dataset.")
@click.option("--where", "filter_text", default="", help="Filter the claims (see `workbench filter-help`).")
@click.option(
    "--model",
    default="gguf:default",
    show_default=True,
    help="gguf:PATH | gguf:default | openai:MODEL | anthropic:MODEL | openai-compatible:NAME",
)
@click.option("--base-url", help="Server URL for openai-compatible (or a proxy for openai / anthropic).")
@click.option(
    "--setting",
    "settings",
    multiple=True,
    metavar="SETTING",
    help="CONTEXT[+EVIDENCE], e.g. claim+time+reference (see `workbench prompts`); default claim."
    " Repeat it for a sweep (one run per setting, each claim's settings asked back to back),"
    " or give `all`: every setting the template words and the claims have evidence for.",
)
@click.option(
    "--prompt",
    default="auto",
    show_default=True,
    help="Template name; auto picks the one named after the claims' label space.",
)
@click.option("--concurrency", type=click.IntRange(1), help="Requests at once (default: the backend's).")
@click.option(
    "--name",
    help="Name of the run: a new name makes a new run; the same command again continues it"
    " (default: MODEL-PROMPT-SETTING).",
)
@click.option("--no-cache", is_flag=True, help="Ask the model even when an answer is cached.")
@click.option("--resume", "resume", metavar="RUN", help="Continue this run (name or id) with its own settings.")
@click.option(
    "--param",
    "params",
    multiple=True,
    metavar="KEY=VALUE",
    help="temperature, max_tokens, seed, timeout, attempts, json, json_format, n_ctx, n_threads,"
    " n_batch, n_gpu_layers, prefix_cache_mb (repeatable).",
)
@click.option("--limit", type=click.IntRange(1), help="At most this many claims.")
@click.option(
    "--search",
    "search",
    type=click.Choice(["fts", "searxng", "tavily", "serper"]),
    help="Let the model search before it answers: fts (offline, this database's evidence and"
    " documents), searxng, tavily, serper (Google's results; $SERPER_API_KEY)."
    " Trajectories: `workbench trajectory RUN CLAIM`.",
)
@click.option("--search-url", help="The search backend's address (SearXNG; another Tavily or Serper endpoint).")
@click.option(
    "--image-search",
    is_flag=True,
    default=None,
    help="Search runs: image search too (searxng, serper); a vision model may look at the images it"
    " finds, and search by the claim's own image (serper).",
)
@click.option(
    "--max-images",
    type=click.IntRange(1),
    help="Search runs: retrieved images a claim's model may look at (default 3).",
)
@click.option("--max-steps", type=click.IntRange(1), help="Search runs: model turns per claim (default 6).")
@click.option("--max-searches", type=click.IntRange(1), help="Search runs: searches per claim (default 4).")
@click.option(
    "--max-claim-tokens",
    type=click.IntRange(1),
    help="Search runs: tokens (sent and written) per claim; past them the model is asked to answer.",
)
@click.option(
    "--max-cost",
    type=DOLLARS,
    metavar="DOLLARS",
    help="Stop cleanly before a request that could take the run's spending (what it spent before"
    " included) past this many US dollars; answers are kept, and the budget stays with the run:"
    " --resume goes on under it (--max-cost there replaces it, --max-cost none removes it)."
    " Prices: the built-in table and [prices] in the config.",
)
@click.option(
    "--batch",
    "as_batch",
    is_flag=True,
    help="Hand the claims to the provider's batch API and return; `workbench batch collect` reads"
    " the answers (API models).",
)
@shared_options
def run_command(
    dataset,
    filter_text,
    model,
    base_url,
    settings,
    prompt,
    concurrency,
    name,
    no_cache,
    resume,
    params,
    limit,
    search,
    search_url,
    image_search,
    max_images,
    max_steps,
    max_searches,
    max_claim_tokens,
    max_cost,
    as_batch,
) -> None:
    """Run a model over claims; every answer is saved the moment it arrives.

    Running the same command again continues an unfinished run, or starts a new run
    answered from the cache. Ctrl-C stops cleanly; --resume RUN picks up where it stopped.
    With --batch the requests go to the provider's batch API instead (cheaper, within a day).
    Several --setting make a sweep: one run per setting, answered together in the order
    that lets a local model reuse the most of each prompt.
    """
    if as_batch and isinstance(max_cost, float):  # (`--max-cost none` removes a budget)
        raise UserError(
            "--max-cost holds back live requests one at a time; a batch is sent whole: run it live to"
            " keep a budget, or check its estimate first"
        )
    if as_batch and not resume and model.startswith("gguf:"):
        raise UserError(
            "--batch needs an API model (openai:, anthropic:, or openai-compatible: with a server that"
            " implements /v1/batches); a GGUF model runs in process, without --batch"
        )
    from workbench.cli.run_progress import (
        announce,
        announce_engine,
        execute_sweep_with_progress,
        execute_with_progress,
        report_finished,
        report_sweep,
    )
    from workbench.render.waiting import status
    from workbench.runs.engine import RunRequest, prepare_run, waiting_message
    from workbench.runs.params import parse_param_pairs

    store = open_store()
    try:
        given = parse_param_pairs(list(params))
        for key, value in (
            ("search", search),
            ("search_url", search_url),
            ("max_steps", max_steps),
            ("max_searches", max_searches),
            ("claim_tokens", max_claim_tokens),
            ("image_search", image_search),
            ("max_images", max_images),
        ):
            if value is not None:
                given[key] = value
        if as_batch and given.get("search"):
            raise UserError("a search run goes turn by turn, searching between turns: it runs live, without --batch")
        request = RunRequest(
            model=model,
            setting=(settings or ("claim",))[0],
            prompt=prompt,
            dataset=dataset,
            filter=filter_text,
            base_url=base_url,
            params=given,
            concurrency=concurrency,
            name=name,
            use_cache=not no_cache,
            resume=resume,
            limit=limit,
        )
        skipped = []
        if len(settings) > 1 or "all" in settings:
            if resume or as_batch:
                raise UserError(
                    "a sweep of settings runs live, one new run per setting: give one --setting with"
                    " --resume or --batch"
                )
            from workbench.runs.sweeps import prepare_sweep

            with status(f"checking the setup of {len(settings)} settings ({model})…"):
                sweep = prepare_sweep(store, request, list(settings))
            runs, skipped = sweep.runs, sweep.skipped
        else:
            with status(f"checking the setup ({'the run to resume' if resume else model})…"):  # a GGUF file loads here
                runs = [prepare_run(store, request)]
        waiting = store.batches.waiting(runs[0].run.id) if len(runs) == 1 else []
        budget, estimate, budget_line = _plan(store, runs, max_cost, as_batch)
        hint = _language_hint(store, runs[0])
    finally:
        store.close()
    console = reading_console()
    for setting, why in skipped:
        console.print(f"skipped setting {setting}: {why}")
    for prepared in runs:
        announce(prepared, engine=False)
    if hint:
        console.print(f"hint: {hint}")  # a str is printed literally
    if budget_line:
        console.print(budget_line, markup=False)
    announce_engine(runs[0])
    if not any(p.pending_claim_ids for p in runs):
        console.print("nothing left to do: every claim has an answer")
        return
    if waiting:  # sending those claims again would pay for them twice
        raise UserError(waiting_message(runs[0].run.name, waiting))
    if estimate is not None:
        from workbench.render.usage import estimate_text

        console.print(estimate_text(estimate))
    if as_batch:
        from workbench.cli.batch_commands import submit_from_cli

        submit_from_cli(runs[0])
        return
    if len(runs) == 1:
        report_finished(runs[0], execute_with_progress(runs[0], budget), budget=budget)
    else:
        report_sweep(runs, execute_sweep_with_progress(runs, budget), budget)


def _plan(store, runs, max_cost, as_batch):
    """The budget (--max-cost, or the one a resumed run keeps), the estimate and a line on
    the budget; a budget that cannot work removes the runs this command created (nothing
    half-made stays) and says why."""
    from workbench.usage.budget import BudgetError
    from workbench.usage.planning import estimate_runs
    from workbench.usage.prices import price_table
    from workbench.usage.run_budget import keep_budget

    prices = price_table()
    try:
        budget, line = keep_budget(store, runs, max_cost, prices, as_batch)
    except (BudgetError, UserError) as error:
        for prepared in runs:
            if not prepared.resumed and not store.runs.progress(prepared.run.id).done:
                store.runs.delete(prepared.run.id)
        raise UserError(str(error)) from None
    return budget, estimate_runs(store, runs, prices), line


@click.command("runs")
@click.option(
    "--kind",
    "kinds",
    multiple=True,
    metavar="KIND",
    help=f"Only runs of this kind (repeatable): {', '.join(RUN_KINDS)}.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@shared_options
def runs_command(kinds: tuple[str, ...], as_json: bool) -> None:
    """List every run (answers, imported answers, judges, labellers, the contamination
    pipeline's steps) with its kind, status, counts, tokens, speed, time per claim and cost."""
    from workbench.runs.kinds import kind_of
    from workbench.usage.prices import price_table

    store = open_store()
    runs = store.runs.list(kind=None)
    if kinds:
        known = set(RUN_KINDS) | {kind_of(run) for run in runs}
        unknown = [kind for kind in kinds if kind not in known]
        if unknown:
            raise UserError(f"no kind of run {unknown[0]!r}; kinds: {', '.join(sorted(known))}")
        runs = [run for run in runs if kind_of(run) in kinds]
    prices = price_table() if runs else None
    rows = [_run_summary(store, run, prices) for run in runs]
    if as_json:
        from workbench.runs.manifest import run_manifest

        for run, row in zip(runs, rows):
            row.pop("_usage_line")
            row["manifest"] = run_manifest(store, run)
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    console = reading_console()
    if not rows:
        from workbench.cli.hints import suggested

        console.print(
            f"no {' or '.join(kinds)} runs" if kinds else f"no runs yet: `{suggested('run')}` starts one",
            soft_wrap=True,
        )
        return
    runs_listing(rows).print(console)


def runs_listing(rows: list[dict]):
    """The runs as a listing: id and name never cut, the counts giving way from the right
    (it/s, cache, ...) on a narrow terminal, the details under each name wrapped at words."""
    from workbench.render.listing import Column, Listing

    counts = [("total", "total", 80), ("ok", "ok", 70), ("err", "error", 60), ("abst", "abstain", 50)]
    counts += [("unpar", "parse_failure", 40), ("miss", "missing", 30), ("cache", "cached", 20)]
    listing = Listing(
        Column("id", "id", 100),
        Column("run", "name", 90, readable=36),
        *(Column(header, "number", priority, "right") for header, _, priority in counts),
        Column("it/s", "number", 10, "right"),
    )
    for r in rows:
        rate = f"{r['items_per_second']:.1f}" if r["items_per_second"] else ""
        label = literal(r["name"])
        label.append(f" {r['status']}", style="bold")
        kind = r["kind"] + (f" of #{r['of_run']}" if r["of_run"] is not None else "")
        parts = [
            kind,
            r["model"],
            r["prompt"],
            r["setting"],
            f"tokens {_short(r['tokens_in'])} in / {_short(r['tokens_out'])} out",
        ]
        label.append("\n" + one_line(" · ".join(str(part) for part in parts if part)), style="dim")
        label.append("\n" + one_line(r.pop("_usage_line")), style="dim")
        listing.add_row(str(r["id"]), label, *(f"{r[key]:,}" for _, key, _ in counts), rate)
    return listing


def _short(count: int) -> str:
    return f"{count / 1000:.1f}k" if count >= 10_000 else str(count)


def _run_summary(store, run, prices) -> dict:
    from workbench.render.usage import usage_dict, usage_summary
    from workbench.runs.kinds import kind_of
    from workbench.runs.speed import items_per_second
    from workbench.usage.summary import run_usage

    p = store.runs.progress(run.id)
    usage = run_usage(store, run, prices)
    return {
        "id": run.id,
        "name": run.name,
        "kind": kind_of(run),
        "of_run": run.target_run_id,
        "status": run.status,
        "model": run.model,
        "prompt": run.prompt_name,
        "setting": run.setting,
        "total": p.total,
        "ok": p.ok,
        "abstain": p.abstain,
        "parse_failure": p.parse_failure,
        "error": p.error,
        "missing": p.missing,
        "cached": p.cached,
        "tokens_in": p.tokens_in,
        "tokens_out": p.tokens_out,
        "latency_s": round(p.latency_s, 3),
        "mean_latency_s": round(p.latency_s / max(p.done - p.cached, 1), 3),
        "items_per_second": items_per_second(p.done + p.error, run.started_at, run.finished_at),
        "created_at": run.created_at,
        "started_at": run.started_at,
        "finished_at": run.finished_at,
        "engine": run.engine,
        "usage": usage_dict(usage),
        "_usage_line": usage_summary(usage),
    }


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
        raise UserError(no_run(store.runs, run_ref, listing=False))
    compiled = store.claims.compile(f"run:{run.id}" + (" wrong" if wrong else ""))
    predictions = store.runs.predictions(run.id, compiled.where, list(compiled.params))
    shown = predictions[:limit]
    claims = store.claims.ids_and_labels([p.claim_id for p in shown])  # (external id, gold label)
    if as_json:
        from store import as_dict

        for p in shown:
            external_id, gold = claims[p.claim_id]
            record = {
                "claim_id": p.claim_id,
                "external_id": external_id,
                "gold": gold,
                **as_dict(p, exclude={"id", "run_id", "claim_id"}),
            }
            click.echo(json.dumps(record, ensure_ascii=False))
        return
    listing = predictions_listing(shown, claims)
    console = reading_console()
    listing.print(console)
    console.print(f"{len(shown):,} shown of {len(predictions):,}")


def predictions_listing(shown: list, claims: dict):
    """A run's answers: claim id and external id whole, gold and verdict, the explanation (or
    error) wrapped at words; `claims` maps a claim id to (external id, gold label)."""
    from workbench.render.listing import Column, Listing

    listing = Listing(
        Column("claim", "id", 100),
        Column("ext id", "whole", 90),
        Column("gold", "label", 80),
        Column("verdict", "label", 85),
        Column("status", "label", 70),
        Column("explanation / error", "text", 60, readable=24),
    )
    for p in shown:
        external_id, gold = claims[p.claim_id]
        note = p.error if p.status == "error" else p.explanation or p.raw_output
        listing.add_row(
            str(p.claim_id),
            literal(one_line(external_id)),
            literal(one_line(gold or "")),
            literal(one_line(p.verdict or p.raw_verdict or "")),
            p.status + (" (cached)" if p.cached else ""),
            literal(one_line(note, 200)),
        )
    return listing


@click.command("show-run")
@click.argument("run_ref", metavar="RUN")
@click.option("--json", "as_json", is_flag=True, help="Print the manifest as JSON.")
@shared_options
def show_run_command(run_ref: str, as_json: bool) -> None:
    """A run's manifest: the data (its content hash), subset, template, setting, parameters,
    engine, model file or API model, package versions; what `compare` checks is like for like."""
    from workbench.render.console import output_console
    from workbench.render.manifest import manifest_view
    from workbench.runs.manifest import run_manifest

    store = open_store()
    run = store.runs.get(run_ref)
    if run is None:
        raise UserError(no_run(store.runs, run_ref, listing=False))
    manifest = run_manifest(store, run)
    if as_json:
        click.echo(json.dumps({"run": run.name, "id": run.id, "manifest": manifest}, indent=2, ensure_ascii=False))
        return
    output_console().print(manifest_view(run.name, manifest))
