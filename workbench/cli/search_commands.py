"""Commands for search runs: trajectory, search-stats, import-knowledge."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.console import Console

from workbench.cli import UserError, shared_options
from workbench.cli.opening import open_store

console = Console(highlight=False)


@click.command("trajectory")
@click.argument("run_ref", metavar="RUN")
@click.argument("claim_ref", metavar="CLAIM")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (every step and result).")
@shared_options
def trajectory_command(run_ref: str, claim_ref: str, as_json: bool) -> None:
    """What a search run did for one claim: each search, read and answer, with the results
    (those the leakage guards dropped marked, with the reason)."""
    from workbench.render.trajectories import trajectory_dicts, trajectory_text

    store = open_store()
    run = store.runs.get(run_ref)
    if run is None:
        raise UserError(f"no run {run_ref!r}; `workbench runs` lists them")
    claim_id = store.claims.resolve(claim_ref)
    if claim_id is None:
        raise UserError(f"no claim {claim_ref!r} (give its id, DATASET:EXTERNAL_ID or its external id)")
    steps = store.search.trajectory(run.id, claim_id)
    if as_json:
        click.echo(json.dumps({"run": run.name, "claim_id": claim_id, "steps": trajectory_dicts(steps)},
                              indent=2, ensure_ascii=False))
        return
    console.print(trajectory_text(steps, console.width))


@click.command("search-stats")
@click.argument("run_ref", metavar="RUN")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@shared_options
def search_stats_command(run_ref: str, as_json: bool) -> None:
    """How a search run searched: searches per claim, domains shown, results dropped by the
    leakage guards (and why), claims flagged search-leak."""
    from workbench.render.display import literal
    from workbench.search.stats import search_stats

    store = open_store()
    run = store.runs.get(run_ref)
    if run is None:
        raise UserError(f"no run {run_ref!r}; `workbench runs` lists them")
    stats = search_stats(store, run)
    if as_json:
        click.echo(json.dumps({"run": run.name, "claims": stats.claims, "searches": stats.searches,
                               "steps": stats.steps, "searches_per_claim": stats.searches_per_claim,
                               "dropped": stats.dropped, "domains": dict(stats.domains), "leaks": stats.leaks},
                              indent=2, ensure_ascii=False))
        return
    console.print(f"{stats.claims:,} claims, {stats.searches:,} searches ({stats.searches_per_claim:.2f} per claim),"
                  f" {stats.steps:,} steps; {stats.leaks:,} claims flagged search-leak", markup=False)
    for reason, n in sorted(stats.dropped.items(), key=lambda item: -item[1]):
        console.print(f"  dropped {n:,}: {reason}", markup=False)
    for domain, n in stats.domains:
        line = literal(f"  {n:>5,}  ")
        line.append_text(literal(domain))
        console.print(line)


@click.command("import-knowledge")
@click.argument("path", type=click.Path(exists=True, path_type=Path))
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
    count = import_knowledge(store, found.id, path)
    console.print(f"{count:,} documents added to the search collection of {dataset}", markup=False)
