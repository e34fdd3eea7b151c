"""`workbench export-submission` and `import-submission`: a run's answers in the AVeriTeC
shared task's submission layouts (the system output JSON, the 2025 leaderboard CSV) and back."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import click

from store.names import no_run
from workbench.cli import UserError, shared_options
from workbench.errors import WorkbenchError


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
            raise UserError(no_run(store.runs, run_ref, listing=False))
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
    from workbench.importers.predictions import PredictionRequest, import_predictions
    from workbench.words import counted

    with tempfile.TemporaryDirectory() as folder:
        source, lines = file, None
        if file.suffix.lower() == ".csv":
            source, lines = _csv_as_json(file, Path(folder))
        request = PredictionRequest(source, dataset, run_name, model, "json", "averitec-predictions")
        store = open_store()
        try:
            report = import_predictions(store, request)
        except WorkbenchError as error:
            if lines is None:
                raise
            raise UserError(in_the_csv(error, file, source, lines)) from None
        finally:
            store.close()
    summary = {"run": report.run.name, "matched": report.matched, "unmatched": len(report.unmatched)}
    if as_json:
        click.echo(json.dumps(summary, indent=2))
        return
    matched = counted(report.matched, "answer")
    click.echo(f"run {report.run.name}: {matched} matched by id, {len(report.unmatched)} unmatched")


def _csv_as_json(file: Path, folder: Path) -> tuple[Path, list[int]]:
    """The leaderboard CSV as the JSON layout in `folder` (the same stem: the run's model says
    where it came from), and the CSV line each record starts on."""
    from workbench.exporters.averitec_submission import leaderboard_rows

    rows = leaderboard_rows(file)
    source = folder / f"{file.stem}.json"
    # one record a line: the JSON file's line 2 + n is record n, on the CSV's lines[n]
    text = "[\n" + ",\n".join(json.dumps(record) for _, record in rows) + "\n]\n"
    source.write_text(text, encoding="utf-8")
    return source, [line for line, _ in rows]


_CSV_FIELDS = {"claim_id": "id", "pred_label": "label", "evidence": "evi", "claim": "claim"}


def in_the_csv(error: Exception, csv_path: Path, json_path: Path, lines: list[int]) -> str:
    """An import error about the converted JSON told about the user's CSV: its path, the line
    a record starts on and the column's name (the JSON file is gone when the user reads it)."""
    from workbench.importers.reading import BadInput

    def line_of(json_line: int) -> int:
        return lines[json_line - 2] if 2 <= json_line < len(lines) + 2 else json_line

    if not isinstance(error, BadInput) or error.path != str(json_path):
        return str(error).replace(str(json_path), str(csv_path))
    message = re.sub(r"\bline (\d+)\b", lambda m: f"line {line_of(int(m[1]))}", error.message)
    field = error.field and re.sub(r"^\w+", lambda m: _CSV_FIELDS.get(m[0], m[0]), error.field)
    line = line_of(error.line) if error.line is not None else None
    return str(BadInput(csv_path, message.replace(str(json_path), str(csv_path)), line=line, field=field))
