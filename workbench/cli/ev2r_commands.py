"""`workbench ev2r`: the AVeriTeC 2025 score of a run, with a judge model of the user's choice."""

from __future__ import annotations

import json
from pathlib import Path

import click

from workbench.cli import UserError, shared_options
from workbench.cli.hints import this_command
from workbench.cli.judge_options import judge_options


@click.command("ev2r")
@click.argument("run_ref", metavar="RUN")
@judge_options(
    base_url_help="Server URL for an openai-compatible judge (e.g. vLLM serving the official judge).",
    max_tokens=600,
    repeats_help="Ask the judge this many times per claim and part (each repeat cached apart and kept).",
    own_options=(
        click.option(
            "--prompt-file",
            type=click.Path(dir_okay=False, path_type=Path),
            help="Your judge prompt (UTF-8 text with {claim}, {reference_evidence}, {predicted_evidence}, or the"
            " organisers' three positional {}), instead of ours (prompts/ev2r.toml).",
        ),
        click.option(
            "--questions-prompt-file",
            type=click.Path(dir_okay=False, path_type=Path),
            help="Your prompt for the questions-only part (default: --prompt-file).",
        ),
    ),
)
@click.option(
    "--threshold",
    type=click.FloatRange(0, 1),
    default=0.5,
    show_default=True,
    help="The Q+A recall a right verdict must exceed to score (the organisers' scorer: 0.5).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@shared_options
def ev2r_command(
    run_ref,
    judge_model,
    base_url,
    prompt_file,
    questions_prompt_file,
    concurrency,
    no_cache,
    params,
    repeats,
    threshold,
    as_json,
) -> None:
    """Score a run's evidence and verdicts as the AVeriTeC 2025 task does (Ev2R recall).

    A judge model counts the atomic facts of the run's evidence and of the gold evidence,
    and which the other side supports: once for the questions only, once for the
    question-answer pairs (the first 10 of each answer). A claim scores 1 when its verdict
    is right and its Q+A recall is above 0.5. A judge reply that cannot be read is asked
    again, then counted apart: the table gives the organisers' counting (failure = 0)
    beside the figures with failures left out, and the failure rate. Every judgment is
    saved as it arrives; the same command again continues.
    """
    from workbench.cli.opening import open_store
    from workbench.cli.run_progress import answer_what_is_left
    from workbench.contamination.ev2r_runs import Ev2rRequest, prepare_ev2r_runs
    from workbench.runs.params import parse_param_pairs

    store = open_store()
    try:
        prepared = prepare_ev2r_runs(
            store,
            Ev2rRequest(
                run_ref,
                judge_model,
                base_url,
                parse_param_pairs(list(params)),
                prompt_file,
                questions_prompt_file,
                concurrency,
                not no_cache,
                repeats,
            ),
        )
    finally:
        store.close()
    answer_what_is_left(prepared, this_command())
    _print(run_ref, [one.run.id for one in prepared], threshold, as_json)


def _print(run_ref: str, judge_ids: list[int], threshold: float, as_json: bool) -> None:
    """The figures from the judge runs this command prepared (not the newest of any judge)."""
    from workbench.cli.opening import open_store
    from workbench.contamination.ev2r_evidence import PARTS
    from workbench.contamination.ev2r_scores import ev2r_of

    store = open_store()
    try:
        judges = {part: store.runs.get(run_id) for part, run_id in zip(PARTS, judge_ids)}
        result = ev2r_of(store, store.runs.get(run_ref), threshold=threshold, judges=judges)
    finally:
        store.close()
    if result is None:
        raise UserError(f"run {run_ref!r} has no finished Ev2R judgment")
    if as_json:
        from workbench.render.ev2r import ev2r_dict

        click.echo(json.dumps(ev2r_dict(result), indent=2, ensure_ascii=False))
        return
    from workbench.render.console import output_console
    from workbench.render.ev2r import ev2r_table

    output_console().print(ev2r_table(result))
