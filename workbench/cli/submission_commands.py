"""`workbench export-submission` and `import-submission`: a run's answers in the AVeriTeC
shared task's submission layouts (the system output JSON, the 2025 leaderboard CSV) and back."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import click

from workbench.cli import UserError, shared_options


@click.command("export-submission")
@click.argument("run_ref", metavar="RUN")
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="FILE.csv: the 2025 leaderboard layout (id, claim, evi, label, split); any other name:"
    " the system output JSON (claim_id, claim, evidence, pred_label).",
)
@shared_options
def export_submission_command(run_ref: str, output: Path) -> None:
    """Write a run's verdicts and evidence exactly in the AVeriTeC shared task's submission layout."""
    from workbench.cli.opening import open_store
    from workbench.exporters.averitec_submission import write_submission

    store = open_store()
    try:
        run = store.runs.get(run_ref)
        if run is None:
            raise UserError(f"no run {run_ref!r}; `workbench runs` lists them")
        try:
            count = write_submission(store, run, output)
        except OSError as error:
            raise UserError(f"cannot write {output}: {error.strerror}") from None
    finally:
        store.close()
    click.echo(f"wrote {count} claims of run {run.name} to {output}")


@click.command("import-submission")
@click.argument("file", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option("--dataset", required=True, help="The dataset whose claims the submission answers.")
@click.option("--run", "run_name", metavar="NAME", help="The run's name (default: imported-FILE).")
@click.option("--model", help="The system that made it (default: the file's name).")
@click.option("--json", "as_json", is_flag=True, help="Print what happened as JSON.")
@shared_options
def import_submission_command(file: Path, dataset: str, run_name, model, as_json: bool) -> None:
    """Load an AVeriTeC submission (the leaderboard CSV or the system output JSON) as a finished
    run, matched to DATASET's claims by id; `workbench ev2r RUN` then scores it."""
    from workbench.cli.opening import open_store
    from workbench.exporters.averitec_submission import read_leaderboard_csv
    from workbench.importers.predictions import PredictionRequest, import_predictions

    with tempfile.TemporaryDirectory() as folder:
        source = file
        if file.suffix.lower() == ".csv":
            source = Path(folder) / f"{file.stem}.json"  # the same name: the run's model says where it came from
            source.write_text(json.dumps(read_leaderboard_csv(file)), encoding="utf-8")
        request = PredictionRequest(source, dataset, run_name, model, "json", "averitec-predictions")
        store = open_store()
        try:
            report = import_predictions(store, request)
        finally:
            store.close()
    summary = {"run": report.run.name, "matched": report.matched, "unmatched": len(report.unmatched)}
    if as_json:
        click.echo(json.dumps(summary, indent=2))
        return
    click.echo(f"run {report.run.name}: {report.matched} answers matched by id, {len(report.unmatched)} unmatched")
