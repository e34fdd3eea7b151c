"""`workbench import` (any benchmark, through a profile or a field mapping) and `workbench profiles`."""

from __future__ import annotations

import json
from pathlib import Path

import click

from workbench.cli import UserError, current_db_path, shared_options
from workbench.cli.opening import open_store
from workbench.render.console import reading_console
from workbench.render.display import literal, one_line


@click.command("import")
@click.argument("file", type=click.Path(path_type=Path))
@click.option(
    "--format",
    "format_",
    default="auto",
    show_default=True,
    metavar="FORMAT",
    help="auto, jsonl, json, csv, tsv, parquet, arrow or claimreview (a profile's name here still works).",
)
@click.option("--profile", metavar="NAME", help="An import profile (`workbench profiles` lists them).")
@click.option(
    "--map",
    "maps",
    multiple=True,
    metavar="FIELD=PATH",
    help="Which file field is which of ours, e.g. claim=statement, evidence=evidences[] (repeatable).",
)
@click.option("--dataset", "dataset_name", help="Dataset name (default: from the file).")
@click.option(
    "--label-space", metavar="NAME", help="averitec, jsfactcheck, realfactbench (built-in), or own (the file's labels)."
)
@click.option(
    "--label-map",
    "label_maps",
    multiple=True,
    metavar="FILE_LABEL=LABEL",
    help="Rename or fold a label, e.g. pants-fire=false (repeatable).",
)
@click.option("--abstain-label", metavar="LABEL", help="The label that means 'cannot tell' (own spaces).")
@click.option(
    "--exclude-label",
    "excluded",
    multiple=True,
    metavar="LABEL",
    help="A gold label kept on claims but left out of scores (repeatable).",
)
@click.option("--split", help="For a dataset folder: which split (train, validation, test, ...).")
@click.option("--columns", metavar="A,B,C", help="Names of the columns of a CSV/TSV without a header row.")
@click.option("--delimiter", metavar="CHAR", help="A CSV's delimiter (, ; tab | @ ...); default: read from the file.")
@click.option(
    "--header/--no-header",
    "header",
    default=None,
    help="Whether a CSV's first row names its columns; default: read from the file.",
)
@click.option(
    "--encoding",
    metavar="NAME",
    help="The file's text encoding (utf-8, cp932, shift_jis, cp1252, utf-16, ...); default: read from its bytes.",
)
@click.option("--with", "extra", multiple=True, metavar="NAME=FILE", help="Another file a profile reads (corpus=...).")
@click.option(
    "--rating-map",
    type=click.Path(dir_okay=False, path_type=Path),
    help="ClaimReview: a TOML file of ratings and their meanings laid over the rating map (`workbench ratings`).",
)
@click.option("--strict", is_flag=True, help="Refuse the file at its first warning instead of importing.")
@click.option("--dry-run", is_flag=True, help="Show what would be imported (and every warning); write nothing.")
@click.option("--warnings", "show_warnings", is_flag=True, help="List every warning, not only their counts.")
@click.option("--save-profile", metavar="NAME", help="Also save this mapping as your own profile NAME.")
@click.option("--json", "as_json", is_flag=True, help="Print what happened as JSON.")
@shared_options
def import_command(
    file,
    format_,
    profile,
    maps,
    dataset_name,
    label_space,
    label_maps,
    abstain_label,
    excluded,
    split,
    columns,
    delimiter,
    header,
    encoding,
    extra,
    rating_map,
    strict,
    dry_run,
    show_warnings,
    save_profile,
    as_json,
) -> None:
    """Load a benchmark file, or a Hugging Face dataset folder, into the database (all of it,
    or nothing). Content oddities import with warnings; structural faults refuse the file."""
    from workbench.importers import ImportRequest

    extra_files = {**_extra(extra), **({"ratings": rating_map} if rating_map else {})}
    request = ImportRequest(
        Path(file),
        format_,
        profile,
        list(maps),
        dataset_name,
        label_space,
        list(label_maps),
        abstain_label,
        list(excluded),
        split,
        _columns(columns),
        strict,
        extra_files,
        encoding,
        delimiter,
        header,
    )
    if dry_run:
        _dry_run(request, as_json)
    else:
        _import(request, show_warnings, as_json)
    if save_profile:
        _save(request, save_profile)


def _columns(text: str | None) -> list[str] | None:
    return [name.strip() for name in text.split(",")] if text else None


def _extra(pairs: tuple[str, ...]) -> dict[str, Path]:
    found = {}
    for pair in pairs:
        name, sep, path = pair.partition("=")
        if not sep or not name.strip() or not path.strip():
            raise UserError(f"--with wants NAME=FILE, not {pair!r} (e.g. --with corpus=corpus.jsonl)")
        found[name.strip()] = Path(path.strip())
    return found


def _import(request, show_warnings: bool, as_json: bool) -> None:
    from store import DatasetConflict
    from workbench.cli.import_progress import import_with_progress, label_of
    from workbench.importers import run_import
    from workbench.importers.meter import ImportCancelled

    db_path = current_db_path()
    created = not db_path.exists()
    open_store(create=True).close()  # its checks said here; the import opens it in its own thread

    def work(meter):
        from store import Store

        store = Store.open(db_path)
        try:
            return run_import(store, request, meter)
        finally:
            store.close()

    try:
        report, cancelled = import_with_progress(work, label_of(request.path))
    except Exception as error:
        if created:  # a failed first import leaves no empty database behind
            _remove_database(db_path)
        if isinstance(error, ImportCancelled):
            reading_console().print(str(error))
            raise SystemExit(130) from None
        if isinstance(error, DatasetConflict):
            raise UserError(str(error)) from None
        raise
    if cancelled:  # Ctrl-C while the store committed: the import is whole, and kept
        counts = report.counts
        reading_console().print(
            f"import cancelled too late: it was written whole ({counts.added:,} added, {counts.updated:,} updated)"
        )
        raise SystemExit(130)
    if as_json:
        click.echo(json.dumps(_report_dict(report), indent=2, ensure_ascii=False))
        return
    _print_report(report, show_warnings)


def _remove_database(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def _print_report(report, show_warnings: bool) -> None:
    from workbench.render.imports import import_summary

    console = reading_console()
    for line in import_summary(report, show_warnings):
        console.print(line, soft_wrap=True)  # one line each: scripts grep them


def _report_dict(report) -> dict:
    from store import as_dict

    plan, counts = report.plan, report.counts
    return {
        "dataset": report.dataset.name,
        "profile": plan.mapping.name,
        "picked": plan.how_picked,
        "format": plan.source.format,
        "shape": _shape(plan),
        "files": [str(path) for path in plan.source.files],
        "added": counts.added,
        "updated": counts.updated,
        "unchanged": counts.unchanged,
        "claims": report.dataset.claim_count,
        "label_space": as_dict(report.dataset.label_space),
        "labels": {str(k): v for k, v in report.label_counts.items()},
        "warnings": [w.__dict__ for w in report.warnings.items],
        "notes": report.warnings.notes,
    }


def _shape(plan) -> str | None:
    """The file's shape in one line (format, encoding, dialect, header), as the sniffer read it."""
    return plan.source.shape.describe() if plan.source.shape is not None else None


def _dry_run(request, as_json: bool) -> None:
    from workbench.importers import dry_run
    from workbench.render.imports import dry_run_lines

    preview = dry_run(request)
    if as_json:
        from store import as_dict

        click.echo(
            json.dumps(
                {
                    "profile": preview.plan.mapping.name,
                    "picked": preview.plan.how_picked,
                    "format": preview.plan.source.format,
                    "shape": _shape(preview.plan),
                    "dataset": preview.plan.name,
                    "claims": preview.claims,
                    "label_space": as_dict(preview.space),
                    "labels": {str(k): v for k, v in preview.label_counts.items()},
                    "first": [as_dict(claim, exclude_none=True) for claim in preview.first],
                    "warnings": [w.__dict__ for w in preview.warnings.items],
                    "notes": preview.warnings.notes,
                },
                indent=2,
                ensure_ascii=False,
            )
        )
        return
    console = reading_console()
    for line in dry_run_lines(preview):
        console.print(line, soft_wrap=True)


def _save(request, name: str) -> None:
    from workbench.importers.pipeline import plan_import
    from workbench.importers.profiles import profile_toml, save_profile

    plan = plan_import(request)
    path = save_profile(name, profile_toml(plan.mapping.spec, name, f"saved from {request.path.name}"))
    reading_console().print(f"saved profile {name} to {path}; next time: workbench import FILE --profile {name}")


@click.command("profiles")
@click.argument("name", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@shared_options
def profiles_command(name: str | None, as_json: bool) -> None:
    """List the import profiles (built-in and your own); with NAME, print that profile."""
    from workbench.importers.profiles import available, load_profile, read_profile, user_dir

    if name:
        mapping = load_profile(name)
        click.echo(mapping.source_text or "", nl=False)
        return
    rows = []
    for profile_name, profile in available().items():
        mapping = read_profile(profile.path)  # the file load_profile(profile_name) would find, found once
        rows.append(
            {
                "name": profile_name,
                "builtin": profile.builtin,
                "path": str(profile.path),
                "description": mapping.description,
            }
        )
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    console = reading_console()
    console.print(profiles_listing(rows))
    console.print(f"your own profiles go in {user_dir()}; `workbench profiles NAME` prints one")


def profiles_listing(rows: list[dict]):
    """The import profiles: name whole, what each reads wrapped under itself (never back to
    column 0), yours marked."""
    from workbench.render.listing import Column, Listing

    listing = Listing(Column("profile", "name", 100), Column("what it reads", "text", 50, readable=30))
    for row in rows:
        mark = "" if row["builtin"] else " (yours)"
        listing.add_row(literal(one_line(row["name"])), literal(one_line(row["description"]) + mark))
    return listing


@click.command("import-predictions")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--dataset", required=True, help="The dataset whose claims the predictions are about.")
@click.option("--run", "run_name", metavar="NAME", help="The run's name (default: imported-MODEL).")
@click.option("--model", help="The model that made them (default: from the file, else its name).")
@click.option("--profile", metavar="NAME", help="A predictions profile (`workbench profiles` lists them).")
@click.option(
    "--map",
    "maps",
    multiple=True,
    metavar="FIELD=PATH",
    help="id, claim, verdict, explanation, model, evidence=...[] (repeatable).",
)
@click.option(
    "--label-map",
    "label_maps",
    multiple=True,
    metavar="FILE_LABEL=LABEL",
    help="Put a verdict the file spells its own way into the label space (repeatable).",
)
@click.option("--format", "format_", default="auto", show_default=True, metavar="FORMAT")
@click.option("--split", help="For a dataset folder: which split.")
@click.option("--dry-run", is_flag=True, help="Match and check everything; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print what happened as JSON.")
@shared_options
def import_predictions_command(
    file, dataset, run_name, model, profile, maps, label_maps, format_, split, dry_run, as_json
) -> None:
    """Load predictions made elsewhere as a finished run against DATASET: matched to its claims
    by id (or exact claim text), verdicts put in its label space (others kept as parse
    failures), explanations and predicted evidence kept."""
    from workbench.importers.predictions import PredictionRequest, import_predictions

    request = PredictionRequest(
        Path(file), dataset, run_name, model, format_, profile, list(maps), list(label_maps), split
    )
    store = open_store()
    try:
        report = import_predictions(store, request, write=not dry_run)
    finally:
        store.close()
    summary = _predictions_dict(report)
    if as_json:
        click.echo(json.dumps(summary, indent=2, ensure_ascii=False))
        return
    from workbench.render.imports import predictions_summary

    console = reading_console()
    for line in predictions_summary(report, dry_run):
        console.print(line, soft_wrap=True)


def _predictions_dict(report) -> dict:
    return {
        "run": report.run.name if report.run else None,
        "run_id": report.run.id if report.run else None,
        "already_imported": report.already is not None,
        "profile": report.plan.mapping.name,
        "matched": report.matched,
        "matched_by": report.matched_by,
        "unmatched": report.unmatched,
        "claims_without_prediction": report.without,
        "statuses": dict(report.statuses),
        "verdicts": {str(k): v for k, v in report.verdicts.items()},
        "warnings": [w.__dict__ for w in report.plan.warnings.items],
    }
