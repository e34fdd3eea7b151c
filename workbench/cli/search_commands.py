"""Commands for search runs: trajectory, search-stats, import-knowledge."""

from __future__ import annotations

import json
from pathlib import Path

import click

from store.names import no_run
from workbench.cli import UserError, shared_options
from workbench.cli.opening import open_store
from workbench.render.console import reading_console
from workbench.words import counted


@click.command("trajectory")
@click.argument("run_ref", metavar="RUN")
@click.argument("claim_ref", metavar="CLAIM")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (every step and result).")
@click.option(
    "--save-images",
    "save_to",
    type=click.Path(file_okay=False, path_type=Path),
    help="Also write the images the model was shown into this folder (SHA256.png, ...).",
)
@shared_options
def trajectory_command(run_ref: str, claim_ref: str, as_json: bool, save_to: Path | None) -> None:
    """What a search run did for one claim: each search, read and answer, with the results
    (those the leakage guards dropped marked, with the reason), image results with their
    picture's address, and the images the model looked at (type, size, sha256)."""
    from workbench.render.trajectories import trajectory_dicts, trajectory_text, viewed_images

    store = open_store()
    run = store.runs.get(run_ref)
    if run is None:
        raise UserError(no_run(store.runs, run_ref, listing=False))
    claim_id = store.claims.resolve(claim_ref)
    if claim_id is None:
        raise UserError(f"no claim {claim_ref!r} (give its id, DATASET:EXTERNAL_ID or its external id)")
    steps = store.search.trajectory(run.id, claim_id)
    facts = store.search.image_facts([result.sha256 for _, result in viewed_images(steps)])
    saved = _save_images(store, facts, save_to) if save_to is not None else []
    if as_json:
        click.echo(
            json.dumps(
                {
                    "run": run.name,
                    "claim_id": claim_id,
                    "steps": trajectory_dicts(steps),
                    "images": {
                        sha: {"mime": m, "bytes": b, "width": w, "height": h} for sha, (m, b, w, h) in facts.items()
                    },
                    "saved": [str(path) for path in saved],
                },
                indent=2,
                ensure_ascii=False,
            )
        )
        return
    console = reading_console()
    console.print(trajectory_text(steps, console.width, facts=facts))
    if save_to is not None:
        console.print(f"{counted(len(saved), 'image')} written to {save_to}")


def _save_images(store, facts: dict, folder: Path) -> list[Path]:
    """Each shown image as SHA256.EXT in `folder` (made if needed); the files written."""
    from workbench.exporters import IMAGE_EXTENSIONS

    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UserError(f"{folder}: cannot be made ({error.strerror or error})") from None
    written = []
    for sha, (mime, *_rest) in sorted(facts.items()):
        path = folder / f"{sha}.{IMAGE_EXTENSIONS.get(mime, 'img')}"
        path.write_bytes(store.claims.image_data(sha))
        written.append(path)
    return written


@click.command("search-stats")
@click.argument("run_ref", metavar="RUN")
@click.option("--by", metavar="FIELD", help="Also per subset of claims (modality, flag:contaminated, domain, ...).")
@click.option("--cutoff", metavar="DATE", help="With --by cutoff: the date that splits the claims.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@shared_options
def search_stats_command(run_ref: str, by: str | None, cutoff: str | None, as_json: bool) -> None:
    """How a search run searched: searches per claim, domains shown, results dropped by the
    leakage guards (and why), claims flagged search-leak; image searches per claim, images
    looked at and image-evidence claims (claims whose model looked at a retrieved image)."""
    from workbench.render.searches import stats_dict, stats_view
    from workbench.search.stats import search_stats

    store = open_store()
    run = store.runs.get(run_ref)
    if run is None:
        raise UserError(no_run(store.runs, run_ref, listing=False))
    stats = search_stats(store, run, by=by, cutoff=cutoff)  # a ScoringError is one line (a WorkbenchError)
    if as_json:
        click.echo(json.dumps({"run": run.name, **stats_dict(stats)}, indent=2, ensure_ascii=False))
        return
    reading_console().print(stats_view(stats))


@click.command("import-knowledge")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--dataset", required=True, help="The dataset whose searches may find these documents.")
@shared_options
def import_knowledge_command(path: Path, dataset: str) -> None:
    """Documents a search run's offline backend (fts) can find: a JSONL file (or a folder of
    them) with url and text (or AVeriTeC's url2text sentences), e.g. AVeriTeC's
    per-claim knowledge store (CLAIM_ID.json files: the claim id is taken from the name)."""
    from workbench.search.knowledge import import_knowledge

    store = open_store()
    found = store.datasets.get(dataset)
    if found is None:
        raise UserError(f"no dataset {dataset!r}; `workbench datasets` lists them")
    added, read = import_knowledge(store, found.id, path)
    there = f" ({read - added:,} already there)" if read > added else ""
    reading_console().print(f"{counted(added, 'document')} added to the search collection of {dataset}{there}")


def _cutoff_date(cutoff: str | None) -> str | None:
    from workbench.scoring.fields import FieldError, check_cutoff
    from workbench.scoring.runs import ScoringError

    try:
        return check_cutoff(cutoff) if cutoff else None
    except FieldError as error:
        raise ScoringError(str(error)) from None


@click.command("reformulations")
@click.argument("run_ref", metavar="RUN")
@click.option(
    "--judge",
    "judge_model",
    help="Label the query pairs with this model first (unlabelled ones only):"
    " openai:MODEL, anthropic:MODEL, openai-compatible:NAME, gguf:PATH.",
)
@click.option("--base-url", help="Server URL for an openai-compatible judge.")
@click.option(
    "--by",
    metavar="FIELD",
    help="Subsets to compare (e.g. flag:contaminated): each label's average per"
    " claim in each, and the second minus the first with a bootstrap test.",
)
@click.option(
    "--cutoff",
    metavar="DATE",
    help="With --by cutoff: the date that splits the claims (or a model's"
    " name: the day after its knowledge cutoff, see `workbench cutoffs`).",
)
@click.option("--resamples", type=click.IntRange(0), default=1000, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@shared_options
def reformulations_command(run_ref, judge_model, base_url, by, cutoff, resamples, seed, as_json) -> None:
    """How a search run changed its queries: each consecutive pair labelled specialization,
    generalization, exploration or repetition by a judge model; the average count of each
    per claim, overall and per subset of --by."""
    from workbench.judging.reformulation import prepare_labelling, reformulation_table
    from workbench.render.searches import reformulation_dict, reformulation_grid
    from workbench.scoring.runs import ScoringError

    if judge_model:
        from workbench.cli.hints import this_command
        from workbench.cli.run_progress import announce, execute_with_progress, report_finished

        store = open_store()
        try:
            prepared = prepare_labelling(store, run_ref, judge_model, base_url)
        finally:
            store.close()
        announce(prepared)
        if prepared.pending_claim_ids:
            report_finished(prepared, execute_with_progress(prepared), this_command())
    store = open_store()
    if store.runs.get(run_ref) is None:
        raise UserError(no_run(store.runs, run_ref, listing=False))
    try:
        cutoff = _cutoff_date(cutoff)
        table = reformulation_table(store, run_ref, by, resamples, seed, cutoff)
    except ScoringError as error:
        raise UserError(str(error)) from None
    if as_json:
        click.echo(json.dumps({"run": table.run.name, **reformulation_dict(table)}, indent=2, ensure_ascii=False))
        return
    console = reading_console()
    if table.labeller is None:
        console.print("no labels yet: add --judge MODEL to have the query pairs labelled")
    console.print(reformulation_grid(table))
