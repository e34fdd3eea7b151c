"""The command that starts (or continues) a model run: run."""

from __future__ import annotations

import click

from workbench.cli import UserError, shared_options
from workbench.cli.dollars import DOLLARS
from workbench.cli.opening import open_store
from workbench.render.console import reading_console


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
