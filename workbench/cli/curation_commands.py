"""Commands for post-cutoff benchmarks: curate (the steps and their funnel), cutoffs (the
models' knowledge cutoffs), ratings (how fact-checkers' ratings fold into label spaces)."""

from __future__ import annotations

import json

import click
from rich import box
from rich.console import Console
from rich.table import Table

from workbench.cli import UserError, shared_options
from workbench.render.display import literal

console = Console(highlight=False)


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
        click.echo(json.dumps([{"model": r.model, "cutoff": r.cutoff, "first_day_after": r.first_day_after,
                                "origin": r.origin} for r in rows], indent=2, ensure_ascii=False))
        return
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    for name in ("model", "cutoff", "after it", "from"):
        table.add_column(name, no_wrap=name != "from", overflow="fold")
    for row in rows:
        table.add_row(literal(row.model), literal(row.cutoff), row.first_day_after, literal(row.origin))
    console.print(table)


@click.command("ratings")
@click.option("--label-space", "space", default="jsfactcheck", show_default=True,
              help="Show the folds into this label space.")
@click.option("--rating-map", type=click.Path(dir_okay=False), help="A rating map file laid over the others.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@shared_options
def ratings_command(space: str, rating_map, as_json: bool) -> None:
    """Show the rating map: each meaning, the label it folds into, and the ratings that mean it
    (built-in, your config's [ratings], and a --rating-map file)."""
    from pathlib import Path

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
    by_meaning = {meaning: sorted((found.spelled[r] for r, m in found.ratings.items() if m == meaning), key=str.lower)
                  for meaning in MEANINGS}
    if as_json:
        click.echo(json.dumps({"label_space": space, "folds": folds, "ratings": by_meaning}, indent=2,
                              ensure_ascii=False))
        return
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    table.add_column("meaning", no_wrap=True)
    table.add_column(f"{space} label", no_wrap=True)
    table.add_column("ratings (case, accents, spaces and punctuation aside)", ratio=1)
    for meaning in MEANINGS:
        label = folds.get(meaning) or ("the space's excluded label" if meaning == "excluded" else "(not folded)")
        table.add_row(meaning, literal(label), literal(", ".join(by_meaning[meaning])))
    console.print(table)
