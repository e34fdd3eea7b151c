"""`workbench score-evidence`: AVeriTeC evidence and verdict scores of a prediction file."""

from __future__ import annotations

import json
from pathlib import Path

import click

from store.names import no_run
from workbench.cli import UserError, shared_options


@click.command("score-evidence")
@click.option(
    "--gold",
    "gold_path",
    metavar="GOLD.json",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Gold claims in AVeriTeC format (questions, answers, label).",
)
@click.option(
    "--predictions",
    "pred_path",
    metavar="PRED.json",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Predictions (evidence [question, answer], pred_label), same order.",
)
@click.option(
    "--run",
    "run_ref",
    metavar="RUN",
    help="Score a run instead: its claims' gold evidence against"
    " the evidence its answers carry (an imported submission).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON, including per-claim scores, instead of a table.")
@shared_options
def score_evidence_command(gold_path: Path | None, pred_path: Path | None, run_ref: str | None, as_json: bool) -> None:
    """Score predicted evidence and labels with the official AVeriTeC conventions, for two
    files (--gold, --predictions) or for a run (--run).

    Records are paired by position. Evidence is matched by METEOR with a one-to-one
    (Hungarian) assignment; the AVeriTeC score counts a correct label only when the
    claim's question+answer evidence score is above the threshold.
    """
    from workbench.nlp.nlp_data import NlpDataMissing
    from workbench.render.waiting import PhaseBar

    if bool(run_ref) == bool(gold_path or pred_path) or (not run_ref and not (gold_path and pred_path)):
        raise UserError("score two files (--gold FILE --predictions FILE) or a run (--run RUN)")
    try:  # the bar is up before the scorer's imports and WordNet, which take seconds
        with PhaseBar("loading the scorer") as bar:
            result = _run_scores(run_ref, bar) if run_ref else _file_scores(gold_path, pred_path, bar)
    except NlpDataMissing as exc:  # a data file that is not scorable is a WorkbenchError already
        raise UserError(str(exc)) from exc
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2))
    else:
        _print_table(result)


def _file_scores(gold_path: Path, pred_path: Path, report):
    from workbench.contamination.averitec_scorer import load_records, score_evidence

    report("reading the files", 0, None)
    gold, predictions = load_records(gold_path), load_records(pred_path)
    return score_evidence(gold, predictions, gold_name=str(gold_path), pred_name=str(pred_path), report=report)


def _run_scores(run_ref: str, report):
    from workbench.cli.opening import open_store

    store = open_store()
    try:
        run = store.runs.get(run_ref)  # a misspelled name is said before the scorer loads
        if run is None:
            raise UserError(no_run(store.runs, run_ref, listing=False))
        from workbench.contamination.averitec_runs import score_run_evidence

        report(f"reading run {run.name}", 0, None)
        return score_run_evidence(store, run, report=report)
    finally:
        store.close()


def _print_table(result) -> None:
    from workbench.render.averitec_scores import averitec_scores_view
    from workbench.render.console import output_console

    output_console().print(averitec_scores_view(result))
