"""Commands that move runs between the workbench and other tools' formats: `export-run`
(an Inspect AI eval log) and `import-run` (one back). Each format's library is an optional
extra, imported only here, inside the command."""

from __future__ import annotations

import json
from pathlib import Path

import click

from store.names import no_run
from workbench.cli import UserError, shared_options
from workbench.cli.opening import open_store
from workbench.interchange import EEE_RELATIONSHIPS as RELATIONSHIPS
from workbench.render.console import reading_console
from workbench.render.display import literal

RUN_FORMATS = ("inspect",)
"""What import-run reads (docs/exporting.md)."""
EXPORT_RUN_FORMATS = ("inspect", "hf-eval-results", "eee")
"""What export-run writes."""


def _require(module: str, extra: str) -> None:
    """A clear error, with the install line, when the format's extra is not installed."""
    import importlib.util

    from workbench.interchange import EXTRA_HINT

    if importlib.util.find_spec(module) is None:
        raise UserError(f"this format needs the {extra!r} extra: {EXTRA_HINT.format(extra=extra)}")


EEE_HINT = (
    "--format eee needs the every-eval-ever package: `make interchange` installs it in .venv-interchange"
    " (then run .venv-interchange/bin/workbench); elsewhere:"
    " pip install --no-deps --ignore-requires-python 'every-eval-ever>=0.3,<0.4'"
)
"""every-eval-ever declares Python >= 3.12 and its adapters' dependencies (pandas among
them), so it is no extra: the parts the export uses need pydantic alone and run on 3.11."""


@click.command("export-run")
@click.argument("run_ref", metavar="RUN")
@click.option("--format", "format_", type=click.Choice(EXPORT_RUN_FORMATS), default="inspect", show_default=True)
@click.option(
    "-o", "--output", type=click.Path(path_type=Path), required=True,
    help="File to write (.eval/.json; .yaml), or for eee a folder (a new one, or an EEE datastore checkout).",
)  # fmt: skip
@click.option("--hf-dataset", metavar="OWNER/NAME", help="hf-eval-results: the benchmark's dataset on the Hub.")
@click.option("--task-id", help="hf-eval-results: the benchmark's task, as its eval.yaml names it.")
@click.option(
    "--metric", type=click.Choice(["macro_f1", "accuracy", "mcc"]), default="macro_f1", show_default=True,
    help="hf-eval-results: the score to publish.",
)  # fmt: skip
@click.option("--source-url", help="hf-eval-results: where the evaluation can be seen (traces, a paper).")
@click.option("--organization", metavar="NAME", help="eee: who ran the evaluation (a lab, a company, a person).")
@click.option(
    "--relationship", type=click.Choice(RELATIONSHIPS), default="third_party", show_default=True,
    help="eee: the evaluator's relation to the model's developer.",
)  # fmt: skip
@click.option(
    "--model-id", metavar="OWNER/NAME", help="eee: the model's Hugging Face id (default: from the run's model)."
)
@shared_options
def export_run_command(
    run_ref: str,
    format_: str,
    output: Path,
    hf_dataset: str | None,
    task_id: str | None,
    metric: str,
    source_url: str | None,
    organization: str | None,
    relationship: str,
    model_id: str | None,
) -> None:
    """Write one run as an Inspect AI eval log (one sample per claim: prompt, trajectory,
    answer, gold label, scores, metadata; `inspect view` opens it), its score as a Hugging
    Face `.eval_results` YAML entry (--format hf-eval-results --hf-dataset OWNER/NAME), or
    Every Eval Ever records: the metrics with intervals and one record per claim (--format eee
    --organization NAME, -o a folder)."""
    from workbench.config import setting
    from workbench.errors import WorkbenchError

    store = open_store()
    run = store.runs.get(run_ref)
    if run is None:
        raise UserError(no_run(store.runs, run_ref, listing=False))
    try:
        if format_ == "inspect":
            written = _export_inspect(store, run, output, setting("prompts_dir"))
        elif format_ == "eee":
            written = _export_eee(store, run, output, organization, relationship, model_id, setting("prompts_dir"))
        else:
            written = _export_hub_result(store, run, output, hf_dataset, task_id, metric, source_url)
    except WorkbenchError as error:
        raise UserError(str(error)) from None
    except OSError as error:  # a missing folder, no permission: nothing is written
        raise UserError(f"cannot write {output}: {error.strerror or error}") from None
    summary, _, files = written.partition("\n")
    line = f"wrote {summary} of run {run.name} to {output}" + (f"\n{files}" if files else "")
    reading_console().print(literal(line), soft_wrap=True)


def _export_inspect(store, run, output: Path, prompts_dir) -> str:
    if output.suffix not in (".eval", ".json"):
        raise UserError(f"{output}: an Inspect eval log is named .eval (or .json for its JSON form)")
    _require("inspect_ai", "inspect")
    from workbench.interchange.inspect_export import write_inspect_log

    return f"{write_inspect_log(store, run, output, prompts_dir):,} samples"


def _export_eee(store, run, output: Path, organization, relationship, model_id, prompts_dir) -> str:
    import importlib.util

    if not organization:
        raise UserError("--format eee needs --organization NAME (who ran the evaluation: EEE's source organization)")
    if output.exists() and not output.is_dir():
        raise UserError(f"{output}: EEE records go in a folder (a new one, or an EEE datastore checkout)")
    if importlib.util.find_spec("every_eval_ever") is None:
        raise UserError(EEE_HINT)
    from workbench.interchange.eee_export import EeeOptions, write_eee_records

    written = write_eee_records(store, run, output, EeeOptions(organization, relationship, model_id), prompts_dir)
    for warning in written.warnings:
        click.echo(f"note: the every-eval-ever validator advises: {warning}", err=True)
    # the files' paths, on lines of their own below the summary: a path is never cut
    return f"{written.records:,} records" + "".join(f"\n  {path}" for path in (written.aggregate, written.samples))


def _export_hub_result(store, run, output: Path, hf_dataset, task_id, metric, source_url) -> str:
    from workbench.interchange.hf_eval_results import HubResultOptions, write_eval_results

    if not hf_dataset:
        raise UserError("--format hf-eval-results needs --hf-dataset OWNER/NAME (the benchmark on the Hub)")
    if output.suffix not in (".yaml", ".yml"):
        raise UserError(f"{output}: a Hub result is a .yaml file (in the model repository's .eval_results/)")
    entry = write_eval_results(store, run, output, HubResultOptions(hf_dataset, task_id, metric, source_url=source_url))
    return f"{metric} {entry['value']}"


@click.command("import-run")
@click.argument("file", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option("--dataset", required=True, help="The dataset whose claims the log's samples are about.")
@click.option("--format", "format_", type=click.Choice(RUN_FORMATS), default="inspect", show_default=True)
@click.option("--run", "run_name", metavar="NAME", help="The run's name (default: imported-MODEL).")
@click.option("--dry-run", is_flag=True, help="Match and check everything; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print what happened as JSON.")
@shared_options
def import_run_command(file: Path, dataset: str, format_: str, run_name: str | None, dry_run: bool, as_json: bool):
    """Load an Inspect AI eval log as a finished run against DATASET: samples matched to its
    claims by id (or by input text), verdicts from each score's answer (or the output, parsed);
    what does not match is listed."""
    _require("inspect_ai", "inspect")
    from workbench.interchange.inspect_import import LogImportRequest, import_inspect_log

    store = open_store()
    try:
        report = import_inspect_log(store, LogImportRequest(file, dataset, run_name), write=not dry_run)
    finally:
        store.close()
    summary = report.as_dict()
    if as_json:
        click.echo(json.dumps(summary, indent=2, ensure_ascii=False))
        return
    console = reading_console()
    for line in report.lines(dry_run):
        console.print(literal(line), soft_wrap=True)


@click.command("export-croissant")
@click.argument("dataset")
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True, help="A new folder to write.")
@click.option("--license", "license_", required=True, help="The claims' licence: a URL or SPDX name (CC-BY-4.0).")
@click.option("--url", help="Where the benchmark is published.")
@click.option(
    "--version",
    "version",
    default="1.0.0",
    show_default=True,
    metavar="MAJOR.MINOR.PATCH",
    help="The benchmark's release (Croissant's version): a new MAJOR when claims go or labels change,"
    " MINOR when claims are added, PATCH for corrections.",
)
@click.option("--with-articles", is_flag=True, help="Write each claim's article text (only where its licence allows).")
@shared_options
def export_croissant_command(
    dataset: str, output: Path, license_: str, url: str | None, version: str, with_articles: bool
) -> None:
    """Write a curated benchmark (the claims its curation kept) as JSON Lines with Croissant
    metadata: fields, label space, curation funnel, sources, date window; checked by mlcroissant."""
    from workbench.errors import WorkbenchError

    _require("mlcroissant", "croissant")
    from workbench.interchange.croissant import CroissantOptions, write_croissant

    store = open_store()
    try:
        written = write_croissant(store, dataset, output, CroissantOptions(license_, with_articles, url, version))
    except WorkbenchError as error:
        raise UserError(str(error)) from None
    except OSError as error:
        raise UserError(f"cannot write {output}: {error.strerror or error}") from None
    reading_console().print(literal(f"wrote {written:,} claims of {dataset} with Croissant metadata to {output}"))
