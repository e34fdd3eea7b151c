"""Commands for explanation quality: judge (a judge model scores a run's explanations) and
judge-agreement (how judges and people agree)."""

from __future__ import annotations

import json

import click

from workbench.cli import UserError, shared_options
from workbench.cli.hints import this_command
from workbench.cli.judge_options import judge_options
from workbench.cli.opening import open_store
from workbench.render.console import output_console

console = output_console()


@click.command("judge")
@click.argument("run_ref", metavar="RUN")
@judge_options(
    base_url_help="Server URL for an openai-compatible judge (or a proxy).",
    max_tokens=300,
    repeats_help="Ask the judge this many times per explanation (each repeat cached apart): how consistent it"
    " is, per claim and overall (`workbench judge-consistency`).",
    own_options=(
        click.option(
            "--template",
            default="judge_explanation",
            show_default=True,
            help='A judge template in prompts/ (kind = "judge") or your prompts_dir.',
        ),
        click.option("--name", help="Judge run name (default: JUDGE-judges-RUN)."),
    ),
)
@click.option(
    "--batch",
    "as_batch",
    is_flag=True,
    help="Hand the judgments to the provider's batch API and return; `workbench batch collect JUDGE_RUN`"
    " reads them back (API judges; an unreadable judgment is not asked again).",
)
@shared_options
def judge_command(
    run_ref, judge_model, base_url, template, concurrency, name, no_cache, params, repeats, as_batch
) -> None:
    """Score a run's explanations from 0 to 10 with a judge model (RealFactBench's EQ).

    The judge sees each claim, its gold label and evidence, and the run's verdict and
    explanation. Every judgment is saved as it arrives; the same command again continues
    an unfinished judge run. `workbench metrics RUN` then shows EQ.
    """
    from workbench.cli.run_progress import announce, execute_with_progress, report_finished
    from workbench.judging.runs import JudgeRequest, prepare_judge_run
    from workbench.runs.params import parse_param_pairs

    if as_batch and repeats > 1:
        raise UserError("--batch asks once per explanation; run --repeats without --batch")
    store = open_store()
    try:
        prepared = prepare_judge_run(
            store,
            JudgeRequest(
                run_ref,
                judge_model,
                base_url,
                parse_param_pairs(list(params)),
                template,
                concurrency,
                name,
                not no_cache,
                repeats,
            ),
        )
    finally:
        store.close()
    announce(prepared)
    if not prepared.pending_claim_ids:
        console.print("nothing left to do: every explanation has a judgment", markup=False)
        return
    if as_batch:
        from workbench.cli.batch_commands import submit_from_cli

        submit_from_cli(prepared)
        return
    report_finished(prepared, execute_with_progress(prepared), this_command())
    if repeats > 1:
        _print_consistency(prepared.run.id, as_json=False)


@click.command("judge-agreement")
@click.argument("run_ref", metavar="RUN")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@shared_options
def judge_agreement_command(run_ref: str, as_json: bool) -> None:
    """How the judge runs of RUN and the people who scored its explanations agree:
    Spearman's rank correlation, mean absolute difference and the share within 1 point,
    for every pair, on the claims both scored."""
    from workbench.judging.calibration import agreements, scorings
    from workbench.render.explanations import agreement_dicts, agreement_table, scorings_table

    store = open_store()
    try:
        found = scorings(store, run_ref)
    finally:
        store.close()
    if len(found) < 2:
        names = ", ".join(s.name for s in found) or "none"
        raise UserError(
            f"agreement needs two scorings of run {run_ref!r}'s explanations (judge runs or people); it has: {names}"
        )
    rows = agreements(found)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "agreement": agreement_dicts(rows),
                    "scorings": [
                        {"scoring": s.name, "scores": len(s.scores), "unreadable": s.unreadable, "errors": s.errors}
                        for s in found
                    ],
                },
                indent=2,
                ensure_ascii=False,
            )
        )
        return
    console.print(agreement_table(rows))
    console.print(scorings_table(found))


@click.command("judge-consistency")
@click.argument("run_ref", metavar="RUN")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (every claim's repeats).")
@shared_options
def judge_consistency_command(run_ref: str, as_json: bool) -> None:
    """How consistent a judge run asked K times (`judge --repeats K`) is with itself: per
    claim (identical? spread) and overall (share identical, mean spread, Krippendorff's
    alpha); unreadable repeats and errors counted apart. RUN: the judge run, or the
    verdict run (its newest judge run with repeats)."""
    _print_consistency(run_ref, as_json)


def _print_consistency(reference, as_json: bool) -> None:
    from workbench.judging.consistency import judge_consistency
    from workbench.render.explanations import consistency_dict, consistency_view

    store = open_store()
    try:
        report = judge_consistency(store, reference)
    finally:
        store.close()
    if as_json:
        click.echo(json.dumps(consistency_dict(report), indent=2, ensure_ascii=False))
        return
    console.print(consistency_view(report))
