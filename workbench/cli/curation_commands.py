"""Commands for post-cutoff benchmarks: curate (the steps and their funnel), cutoffs (the
models' knowledge cutoffs), ratings (how fact-checkers' ratings fold into label spaces)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from workbench.cli import UserError, shared_options
from workbench.render.console import output_console
from workbench.render.display import literal

console = output_console()


@click.command("cutoffs")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@shared_options
def cutoffs_command(as_json: bool) -> None:
    """List the models' knowledge cutoffs the workbench knows: the built-in table and your
    config's [model_cutoffs]. `--cutoff MODEL` and `curate --after-cutoff MODEL` split at the
    first day after a model's cutoff."""
    from workbench.cutoffs import cutoff_table

    rows = sorted(cutoff_table().values(), key=lambda row: row.model)
    if as_json:
        click.echo(
            json.dumps(
                [
                    {"model": r.model, "cutoff": r.cutoff, "first_day_after": r.first_day_after, "origin": r.origin}
                    for r in rows
                ],
                indent=2,
                ensure_ascii=False,
            )
        )
        return
    from workbench.render.listing import Column, Listing

    table = Listing(
        Column("model", "name", 100),
        Column("cutoff", "whole", 90),
        Column("after it", "whole", 80),
        Column("from", "text", 50),
    )
    for row in rows:
        table.add_row(literal(row.model), literal(row.cutoff), row.first_day_after, literal(row.origin))
    console.print(table)


@click.command("ratings")
@click.option(
    "--label-space", "space", default="jsfactcheck", show_default=True, help="Show the folds into this label space."
)
@click.option("--rating-map", type=click.Path(dir_okay=False), help="A rating map file laid over the others.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@shared_options
def ratings_command(space: str, rating_map, as_json: bool) -> None:
    """Show the rating map: each meaning, the label it folds into, and the ratings that mean it
    (built-in, your config's [ratings], and a --rating-map file)."""
    from workbench.importers.claimreview.ratings import MEANINGS
    from workbench.importers.claimreview.ratings import rating_map as load_map
    from workbench.importers.mapping import MappingError

    try:
        found = load_map(Path(rating_map) if rating_map else None)
    except MappingError as error:
        raise UserError(str(error)) from None
    folds = found.folds.get(space)
    if folds is None:
        raise UserError(f"the rating map folds into {', '.join(sorted(found.folds))}, not {space!r}")
    by_meaning = {
        meaning: sorted((found.spelled[r] for r, m in found.ratings.items() if m == meaning), key=str.lower)
        for meaning in MEANINGS
    }
    if as_json:
        click.echo(
            json.dumps({"label_space": space, "folds": folds, "ratings": by_meaning}, indent=2, ensure_ascii=False)
        )
        return
    from workbench.render.listing import Column, Listing, packed

    table = Listing(
        Column("meaning", "name", 100),
        Column(f"{space} label", "label", 90),
        Column("ratings (case, accents, spaces and punctuation aside)", "text", 80, readable=24),
    )
    for meaning in MEANINGS:  # a rating is broken between ratings, never inside one
        label = folds.get(meaning) or ("the space's excluded label" if meaning == "excluded" else "(not folded)")
        table.add_row(meaning, literal(label), packed(by_meaning[meaning]))
    console.print(table)


@click.command("curate")
@click.argument("dataset")
@click.option("--after", metavar="DATE", help="Keep claims reviewed later than DATE (a day, a month or a year).")
@click.option("--before", metavar="DATE", help="Keep claims reviewed earlier than DATE.")
@click.option(
    "--after-cutoff",
    "after_cutoff",
    multiple=True,
    metavar="MODEL",
    help="Keep claims reviewed after the model's knowledge cutoff (repeatable: the newest;"
    " `workbench cutoffs` lists them).",
)
@click.option(
    "--date-of",
    type=click.Choice(["review", "claim"]),
    default="review",
    show_default=True,
    help="Which date the window reads: the review's publication, or the claim's.",
)
@click.option(
    "--language",
    "languages",
    multiple=True,
    metavar="CODE",
    help="Keep claims in these languages (en; repeatable or en,es): from the markup, else detected.",
)
@click.option(
    "--publishers",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Keep claims reviewed by a publisher on this allow-list (a name or site a line).",
)
@click.option("--dedup", is_flag=True, help="Keep each claim once when several agencies checked it.")
@click.option("--dedup-method", type=click.Choice(["minhash", "embedding"]), default="minhash", show_default=True)
@click.option(
    "--dedup-threshold",
    type=float,
    metavar="X",
    help="Similarity at which two claims are one (default: 0.8 Jaccard for minhash, 0.9 cosine).",
)
@click.option(
    "--embedding-model",
    type=click.Path(file_okay=False, path_type=Path),
    help="A sentence-transformers folder for --dedup-method embedding (default: all-MiniLM-L6-v2).",
)
@click.option(
    "--screen",
    "screen_model",
    metavar="MODEL",
    help="Screen the claim texts left in with this model: gguf:default | gguf:PATH | openai:MODEL |"
    " anthropic:MODEL | openai-compatible:NAME.",
)
@click.option("--base-url", help="Server URL for an openai-compatible screening model.")
@click.option(
    "--param",
    "params",
    multiple=True,
    metavar="KEY=VALUE",
    help="Screening run params: temperature (default 0), max_tokens (default 120), ... (repeatable).",
)
@click.option("--concurrency", type=click.IntRange(1), help="Screening requests at once (default: the backend's).")
@click.option("--no-cache", is_flag=True, help="Ask the screening model even when an answer is cached.")
@click.option(
    "--batch",
    "as_batch",
    is_flag=True,
    help="Hand the screening to the provider's batch API; after `workbench batch collect RUN`, the same"
    " curate command applies it.",
)
@click.option(
    "--clear",
    "clear",
    multiple=True,
    metavar="STEP",
    help="Take a step's flags off first: date, language, publisher, duplicate, screen or all (repeatable).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the funnel as JSON.")
@shared_options
def curate_command(
    dataset,
    after,
    before,
    after_cutoff,
    date_of,
    languages,
    publishers,
    dedup,
    dedup_method,
    dedup_threshold,
    embedding_model,
    screen_model,
    base_url,
    params,
    concurrency,
    no_cache,
    as_batch,
    clear,
    as_json,
) -> None:
    """Curate DATASET into a benchmark: a date window (e.g. after a model's cutoff), languages,
    an allow-list of publishers, duplicates across agencies, and an LLM screening of the claim
    texts. Each step flags what it removes (curated-out:STEP, with the reason) and deletes
    nothing; without options, shows the funnel. The curated claims: -flagged:curated-out."""
    from workbench.cli.opening import open_store
    from workbench.curation.steps import CurationRequest, curate
    from workbench.curation.window import window

    chosen = window(after, before, list(after_cutoff), date_of) if (after or before or after_cutoff) else None
    request = CurationRequest(
        dataset,
        chosen,
        list(languages),
        publishers,
        dedup_method if dedup else None,
        dedup_threshold,
        embedding_model,
        list(clear),
    )
    store = open_store()
    try:
        outcomes = curate(store, request)
    finally:
        store.close()
    if not as_json:
        for outcome in outcomes:
            _print_outcome(outcome)
    if screen_model:
        _screen(dataset, screen_model, base_url, params, concurrency, no_cache, as_batch, as_json)
    _show_funnel(dataset, as_json, [o.__dict__ for o in outcomes])


def _print_outcome(outcome) -> None:
    line = literal(f"{outcome.step}: ")
    if outcome.considered or outcome.removed:
        line.append_text(
            literal(f"{outcome.removed:,} of {outcome.considered:,} claims flagged curated-out:{outcome.step}")
        )
    if outcome.note:
        line.append_text(literal(("; " if outcome.considered or outcome.removed else "") + outcome.note))
    console.print(line, soft_wrap=True)  # one line each: scripts grep them


def _screen(dataset_name, model, base_url, params, concurrency, no_cache, as_batch, as_json) -> None:
    from workbench.cli.opening import open_store
    from workbench.cli.run_progress import announce, execute_with_progress, report_finished
    from workbench.curation.screening import ScreenRequest, prepare_screening
    from workbench.curation.steps import dataset_named, record_screening, screening_claims
    from workbench.runs.params import parse_param_pairs

    store = open_store()
    try:
        dataset = dataset_named(store, dataset_name)
        claim_ids = screening_claims(store, dataset)
        if not claim_ids:
            raise UserError(f"no claims of {dataset_name} are left to screen: every one was removed by an earlier step")
        prepared = prepare_screening(
            store,
            dataset.id,
            dataset.name,
            claim_ids,
            ScreenRequest(model, base_url, parse_param_pairs(list(params)), concurrency, not no_cache),
        )
    finally:
        store.close()
    if not as_json:
        announce(prepared)
    again = f"workbench curate {dataset_name} --screen {model}"
    finished = None
    if prepared.pending_claim_ids:
        if as_batch:
            from workbench.cli.batch_commands import submit_from_cli

            submit_from_cli(prepared)
            console.print(f"once collected, `{again}` applies the screening", markup=False)
            return
        finished = _quietly(prepared) if as_json else execute_with_progress(prepared)
    store = open_store()
    try:
        outcome = record_screening(store, dataset, store.runs.get(prepared.run.id), claim_ids)
    finally:
        store.close()
    if not as_json:
        _print_outcome(outcome)
    if finished is not None and not as_json:
        report_finished(prepared, finished, again)
    elif finished is not None and finished.status != "finished":
        raise UserError(
            f"the screening run {prepared.run.name} {finished.status}"
            f"{': ' + finished.message if finished.message else ''}; `{again}` continues it"
        )


def _quietly(prepared):
    """The screening run without a progress bar (stdout holds only the JSON)."""
    from workbench.cli import current_db_path
    from workbench.cli.cancellable import run_cancellable
    from workbench.runs.engine import RunFinished, run_blocking

    db_path, finished = current_db_path(), []
    run_cancellable(
        lambda cancel: run_blocking(
            db_path, prepared, lambda event: finished.append(event) if isinstance(event, RunFinished) else None, cancel
        ),
        console,
        "curate-screen",
        "cancelling...",
    )
    return finished[-1] if finished else None


def _show_funnel(dataset_name: str, as_json: bool, outcomes: list[dict]) -> None:
    from workbench.cli.opening import open_store
    from workbench.curation.funnel import dataset_funnel
    from workbench.curation.steps import dataset_named
    from workbench.render.curation import funnel_dict, funnel_table

    store = open_store()
    try:
        funnel = dataset_funnel(store, dataset_named(store, dataset_name))
    finally:
        store.close()
    if as_json:
        click.echo(json.dumps({**funnel_dict(funnel), "done_now": outcomes}, indent=2, ensure_ascii=False))
        return
    console.print(funnel_table(funnel, console.width))
