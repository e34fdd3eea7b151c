"""Commands for data: import, datasets, claims, show, export."""

from __future__ import annotations

from pathlib import Path

import click

from workbench.choices import EXPORT_FORMATS
from workbench.cli import UserError, current_db_path, shared_options
from workbench.cli.opening import open_store
from workbench.render.console import reading_console
from workbench.render.display import literal, one_line


@click.command("datasets")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@shared_options
def datasets_command(as_json: bool) -> None:
    """List the datasets in the database."""
    store = open_store()
    datasets = store.datasets.list()
    if as_json:
        import json  # here, as what follows: the table needs neither

        from store import as_dict

        click.echo(json.dumps([as_dict(d) for d in datasets], indent=2, ensure_ascii=False))
        return
    console = reading_console()
    datasets_listing(datasets).print(console)
    for d in datasets:  # what curation kept, for the datasets `workbench curate` has been run on
        if store.curation.steps(d.id):
            from workbench.cli.hints import suggested

            line = literal(
                f"{d.name}: curation keeps {store.curation.kept_count(d.id):,} of {d.claim_count:,}"
                f" claims (`{suggested('curate', d.name)}` shows the funnel)"
            )
            console.print(line)


def datasets_listing(datasets: list):
    """One row per dataset: name and count never cut, gold labels broken between labels."""
    from workbench.render.listing import Column, Listing, packed

    listing = Listing(
        Column("name", "name", 100),
        Column("claims", "number", 90, "right"),
        Column("imported", "number", 30),
        Column("format / label space", "label", 50),
        Column("gold labels", "text", 60, readable=24),
    )
    for d in datasets:
        space = d.label_space
        gold = list(space.labels) + ([f"(+abstain {space.abstain})"] if space.abstain else [])
        kind = d.source_format if d.source_format == space.name else f"{d.source_format} / {space.name}"
        listing.add_row(literal(d.name), f"{d.claim_count:,}", (d.imported_at or "")[:10], literal(kind), packed(gold))
    return listing


@click.command("claims")
@click.option("--where", "filter_text", default="", help="Filter (see `workbench filter-help`).")
@click.option("--limit", default=50, show_default=True, type=click.IntRange(1))
@click.option(
    "--sort",
    type=click.Choice(["id", "label", "importance", "task", "domain", "date"]),
    default="id",
    show_default=True,
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON lines.")
@shared_options
def claims_command(filter_text: str, limit: int, sort: str, as_json: bool) -> None:
    """List claims matching a filter."""
    from store import FilterError, PageRequest

    store = open_store()
    try:
        rows = store.claims.page(PageRequest(filter=filter_text, sort=sort, limit=limit))
    except FilterError as error:
        raise UserError(f"bad filter: {error}") from None
    if as_json:
        import json

        for row in rows:
            record = {k: v for k, v in row.__dict__.items() if k not in ("verdicts", "sort_value")}
            click.echo(json.dumps(record, ensure_ascii=False))
        return
    per_dataset = store.claims.counts_by_dataset(filter_text)  # the page compiled the filter already
    console = reading_console()
    console.print(_claims_table(rows, console.width, filter_text))
    total = sum(per_dataset.values())
    console.print(f"{len(rows):,} shown of {total:,} matching{_datasets_note(list(per_dataset))}")


def _datasets_note(found: list[str]) -> str:
    """' (dataset demo)' or ' (datasets a, b)': every dataset the matching claims come from."""
    names = [one_line(name) for name in found[:5]]
    if not names:
        return ""
    more = ", ..." if len(found) > 5 else ""
    return f" (dataset{'s' if len(found) > 1 else ''} {', '.join(names)}{more})"


def _claims_table(rows: list, width: int, find: str = ""):
    """One line per claim; columns that are empty (or one dataset throughout) are left out,
    and the short columns give way before the claim text drops below a readable width. What
    the filter `find` searches for is marked in the claim text."""
    from workbench.render.listing import Column, Listing
    from workbench.render.search_marks import finder

    spans = finder(find)
    listing = Listing(
        Column("id", "id", 100),
        Column("dataset", "whole", 60),
        Column("ext id", "whole", 75),
        Column("label", "label", 70),
        Column("imp.", "label", 40),
        Column("task/domain", "label", 30),
        Column("flags", "label", 50),
        Column("claim", "text", 95),
    )
    for row in rows:
        task = one_line(" ".join(filter(None, [row.task, row.domain])))
        cells = [row.dataset, row.external_id, row.label or "", row.importance or "", task, ",".join(row.flags)]
        listing.add_row(str(row.id), *(literal(one_line(cell)) for cell in cells), _claim_line(row.text, spans, width))
    # Columns that are empty (or one dataset throughout) say nothing.
    listing.columns = [
        c
        for c in listing.columns
        if c.kind == "id" or c.header == "claim" or (any(map(str, c.cells)) and not _one_dataset(c))
    ]
    return listing


def _one_dataset(column) -> bool:
    return column.header == "dataset" and len({str(cell) for cell in column.cells}) == 1


def _claim_line(text: str, spans, width: int):
    """The claim on one line, cut to its column with what the filter finds marked; it keeps
    a readable width (two fifths of the screen) before the short columns give way."""
    from workbench.render.display import cells
    from workbench.render.listing import Fitted
    from workbench.render.search_marks import marked

    def draw(column_width: int):
        shown = one_line(text, column_width)
        return marked(shown, spans(shown))

    return Fitted(min(cells(one_line(text)), max(24, width * 2 // 5)), cells(one_line(text)), draw)


@click.command("show")
@click.argument("claim_ref")
@click.option("--json", "as_json", is_flag=True, help="Print the claim and its evidence as JSON.")
@click.option(
    "--find",
    default="",
    metavar="FILTER",
    help='Mark what this filter\'s text terms find: in the claim (富士山, vacc*, "a phrase"),'
    " in the evidence (evidence:標高).",
)
@shared_options
def show_command(claim_ref: str, as_json: bool, find: str) -> None:
    """Show one claim whole: CLAIM_REF is an id or DATASET:EXTERNAL_ID."""
    from workbench.render.claim_panels import claim_panels

    store = open_store()
    claim_id = store.claims.resolve(claim_ref)
    if claim_id is None:
        raise UserError(f"no claim {claim_ref!r} (use the id, or DATASET:EXTERNAL_ID)")
    claim = store.claims.get(claim_id)
    if as_json:
        import json

        from store import as_dict

        click.echo(json.dumps(as_dict(claim), indent=2, ensure_ascii=False))
        return
    dataset = store.datasets.get(claim.dataset)
    console = reading_console()
    for panel in claim_panels(claim, dataset, store.annotations.flags_for(claim_id), find):
        console.print(panel)


@click.command("export")
@click.option("--what", type=click.Choice(["claims", "predictions"]), required=True)
@click.option("--format", "format_", type=click.Choice(EXPORT_FORMATS), default="jsonl", show_default=True)
@click.option("--where", "filter_text", default="", help="Filter claims (see `workbench filter-help`).")
@click.option("--run", "run_refs", multiple=True, help="Run name or id (predictions; repeatable).")
@click.option("-o", "--output", type=click.Path(path_type=Path), help="File to write (default: stdout).")
@click.option(
    "--with-articles",
    is_flag=True,
    help="Claims: write each claim's fetched oracle article as its article_text (`workbench articles fetch`).",
)
@shared_options
def export_command(
    what: str, format_: str, filter_text: str, run_refs: tuple[str, ...], output: Path | None, with_articles: bool
) -> None:
    """Write claims (generic JSONL/CSV, re-importable) or predictions to a file or stdout."""
    from store import FilterError
    from workbench.exporters import export_claims, export_predictions

    store = open_store()
    try:
        if what == "claims":
            written = export_claims(store, filter_text, format_, output, with_articles)
        else:
            runs = [_run(store, ref) for ref in run_refs] or store.runs.list()
            written = export_predictions(store, runs, filter_text, format_, output)
    except FilterError as error:
        raise UserError(f"bad filter: {error}") from None
    except BrokenPipeError:
        raise  # the reader went away (| head): the group ends quietly
    except OSError as error:  # a missing folder, a directory, no permission: nothing is written
        raise UserError(f"cannot write {output}: {error.strerror or error}") from None
    if output:
        reading_console().print(f"wrote {written:,} {what} to {output}")


@click.command("filter-help")
@shared_options
def filter_help_command() -> None:
    """Explain the filter language used by --where and the TUI's filter bar."""
    from store import FILTER_HELP

    click.echo(FILTER_HELP)


def _run(store, reference: str):
    run = store.runs.get(reference)
    if run is None:
        from store.names import no_run

        raise UserError(no_run(store.runs, reference, listing=False))
    return run


@click.command("demo")
@click.option("--no-tui", is_flag=True, help="Load the demo data and list it instead of opening the TUI.")
@shared_options
def demo_command(no_tui: bool) -> None:
    """Load the bundled demo datasets (idempotent) and open the workbench on them."""
    from workbench.cli.demo import CLAIMREVIEW_DATASET, load_claimreview_demo, load_demo, load_demo_team

    store = open_store(create=True)
    console = reading_console()
    for name, line in load_demo(store).items():
        console.print(f"{name}: {line}")
    console.print(f"team triage: {load_demo_team(store)}")
    console.print(f"{CLAIMREVIEW_DATASET}: {load_claimreview_demo(store)}")
    store.close()
    try:
        from workbench.tui import run_workbench
    except ImportError:
        run_workbench = None
    if no_tui or run_workbench is None:
        click.get_current_context().invoke(
            claims_command, filter_text="dataset:demo", limit=30, sort="id", as_json=False
        )
        return
    status = run_workbench(current_db_path())
    if status:
        raise SystemExit(status)
