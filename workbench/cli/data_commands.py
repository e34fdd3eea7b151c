"""Commands for data: import, datasets, claims, show, export."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich import box
from rich.console import Console
from rich.table import Table

from store import DatasetConflict, FilterError, PageRequest, Store
from workbench import labels
from workbench.cli import UserError, current_db_path, db_path_option, main
from workbench.display import literal, one_line
from workbench.exporting import EXPORT_FORMATS, export_claims, export_predictions
from workbench.importers import FORMATS, BadInput, import_file
from workbench.showing import claim_panels

console = Console(highlight=False)


def open_store(create: bool = False) -> Store:
    """The store for this invocation; reading commands refuse to create an empty file."""
    path = current_db_path()
    if not create and not path.exists():
        raise UserError(f"no database at {path}; import a file first (workbench import FILE) or pass --db")
    return Store.open(path)


@main.command("import")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--format", "format_", type=click.Choice(FORMATS), default="auto", show_default=True)
@click.option("--dataset", "dataset_name", help="Dataset name (default: from the file).")
@click.option("--label-space", type=click.Choice(sorted(labels.BUILTIN_SPACES)),
              help="Label space for a generic file without a header.")
@db_path_option
def import_command(file: Path, format_: str, dataset_name: str | None, label_space: str | None) -> None:
    """Load a benchmark file into the database (all of it, or nothing)."""
    space = labels.BUILTIN_SPACES[label_space] if label_space else None
    store = open_store(create=True)
    try:
        dataset, counts = import_file(store, file, format_, dataset_name, space)
    except (BadInput, DatasetConflict) as error:
        raise UserError(str(error)) from None
    console.print(
        f"{literal(dataset.name)}: {counts.added:,} added, {counts.updated:,} updated, "
        f"{counts.unchanged:,} unchanged ({dataset.claim_count:,} claims, labels "
        f"{', '.join(dataset.label_space.labels)})",
        markup=False,
    )


@main.command("datasets")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@db_path_option
def datasets_command(as_json: bool) -> None:
    """List the datasets in the database."""
    store = open_store()
    datasets = store.datasets.list()
    if as_json:
        click.echo(json.dumps([d.model_dump() for d in datasets], indent=2, ensure_ascii=False))
        return
    table = Table("name", "format", "label space", "gold labels", "claims", "imported")
    for d in datasets:
        space = d.label_space
        gold = ", ".join(space.labels) + (f" (+abstain {space.abstain})" if space.abstain else "")
        table.add_row(literal(d.name), d.source_format, space.name, literal(gold),
                      f"{d.claim_count:,}", d.imported_at or "")
    console.print(table)


@main.command("claims")
@click.option("--where", "filter_text", default="", help="Filter (see `workbench filter-help`).")
@click.option("--limit", default=50, show_default=True, type=click.IntRange(1))
@click.option("--sort", type=click.Choice(["id", "label", "importance", "task", "domain", "date"]),
              default="id", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON lines.")
@db_path_option
def claims_command(filter_text: str, limit: int, sort: str, as_json: bool) -> None:
    """List claims matching a filter."""
    store = open_store()
    try:
        rows = store.claims.page(PageRequest(filter=filter_text, sort=sort, limit=limit))
        total = store.claims.count(filter_text)
    except FilterError as error:
        raise UserError(f"bad filter: {error}") from None
    if as_json:
        for row in rows:
            record = {k: v for k, v in row.__dict__.items() if k not in ("verdicts", "sort_value")}
            click.echo(json.dumps(record, ensure_ascii=False))
        return
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    for name, width in (("id", 3), ("dataset", 6), ("ext id", 6), ("label", 9), ("imp.", 4),
                        ("task/domain", 8), ("flags", 5)):
        table.add_column(name, no_wrap=True, overflow="ellipsis", min_width=width, max_width=max(width, 14))
    table.add_column("claim", no_wrap=True)
    claim_width = max(20, console.width - 66)  # what the short columns leave
    for row in rows:
        table.add_row(str(row.id), literal(row.dataset), literal(row.external_id), literal(row.label or ""),
                      row.importance or "", literal(" ".join(filter(None, [row.task, row.domain]))),
                      literal(",".join(row.flags)), literal(one_line(row.text, claim_width)))
    console.print(table)
    console.print(f"{len(rows):,} shown of {total:,} matching", markup=False)


@main.command("show")
@click.argument("claim_ref")
@click.option("--json", "as_json", is_flag=True, help="Print the claim and its evidence as JSON.")
@db_path_option
def show_command(claim_ref: str, as_json: bool) -> None:
    """Show one claim whole: CLAIM_REF is an id or DATASET:EXTERNAL_ID."""
    store = open_store()
    claim_id = store.claims.resolve(claim_ref)
    if claim_id is None:
        raise UserError(f"no claim {claim_ref!r} (use the id, or DATASET:EXTERNAL_ID)")
    claim = store.claims.get(claim_id)
    if as_json:
        click.echo(claim.model_dump_json(indent=2))
        return
    dataset = store.datasets.get(claim.dataset)
    for renderable in claim_panels(claim, dataset, store.annotations.flags_for(claim_id)):
        console.print(renderable)


@main.command("export")
@click.option("--what", type=click.Choice(["claims", "predictions"]), required=True)
@click.option("--format", "format_", type=click.Choice(EXPORT_FORMATS), default="jsonl", show_default=True)
@click.option("--where", "filter_text", default="", help="Filter claims (see `workbench filter-help`).")
@click.option("--run", "run_refs", multiple=True, help="Run name or id (predictions; repeatable).")
@click.option("-o", "--output", type=click.Path(path_type=Path), help="File to write (default: stdout).")
@db_path_option
def export_command(what: str, format_: str, filter_text: str, run_refs: tuple[str, ...],
                   output: Path | None) -> None:
    """Write claims (generic JSONL/CSV, re-importable) or predictions to a file or stdout."""
    store = open_store()
    try:
        if what == "claims":
            written = export_claims(store, filter_text, format_, output)
        else:
            runs = [_run(store, ref) for ref in run_refs] or store.runs.list()
            written = export_predictions(store, runs, filter_text, format_, output)
    except FilterError as error:
        raise UserError(f"bad filter: {error}") from None
    if output:
        console.print(f"wrote {written:,} {what} to {output}", markup=False)


@main.command("filter-help")
def filter_help_command() -> None:
    """Explain the filter language used by --where and the TUI's filter bar."""
    from store import FILTER_HELP

    click.echo(FILTER_HELP)


def _run(store: Store, reference: str):
    run = store.runs.get(reference)
    if run is None:
        raise UserError(f"no run {reference!r}; `workbench runs` lists them")
    return run


@main.command("demo")
@click.option("--no-tui", is_flag=True, help="Load the demo data and list it instead of opening the TUI.")
@db_path_option
def demo_command(no_tui: bool) -> None:
    """Load the bundled demo datasets (idempotent) and open the workbench on them."""
    from workbench.demo import load_demo

    store = open_store(create=True)
    for name, line in load_demo(store).items():
        console.print(f"{name}: {line}", markup=False)
    store.close()
    try:
        from workbench.tui import run_workbench
    except ImportError:
        run_workbench = None
    if no_tui or run_workbench is None:
        click.get_current_context().invoke(claims_command, filter_text="dataset:demo", limit=30,
                                           sort="id", as_json=False)
        return
    run_workbench(current_db_path())
