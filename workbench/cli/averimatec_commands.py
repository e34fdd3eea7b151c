"""`workbench import-averimatec` and `workbench averimatec`: the AVerImaTeC (FEVER-9, 2026)
image-text task's files brought in, and its scores computed with a judge of the user's choice."""

from __future__ import annotations

import json
from pathlib import Path

import click

from workbench.cli import UserError, shared_options
from workbench.cli.hints import this_command


@click.command("import-averimatec")
@click.argument("file", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option("--dataset", required=True, help="The dataset the gold claims go into, or the predictions answer.")
@click.option("--run", "run_name", metavar="NAME", help="Predictions: the run's name (default: imported-FILE).")
@click.option(
    "--images",
    "images_dir",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    help="The folder the file's image paths are in (default: the file's own folder).",
)
@click.option("--json", "as_json", is_flag=True, help="Print what happened as JSON.")
@shared_options
def import_averimatec_command(file: Path, dataset: str, run_name, images_dir, as_json: bool) -> None:
    """Load an AVerImaTeC file: the gold claims (with their images and image-text evidence) into
    DATASET, or a system's predictions (questions, evidence, verdict, justification) as a
    finished run on it, matched by position; `workbench averimatec RUN` then scores it."""
    from workbench.cli.opening import open_store
    from workbench.importers.averimatec import import_averimatec

    store = open_store(create=True)
    try:
        done = import_averimatec(store, file, dataset, run_name, images_dir)
    finally:
        store.close()
    summary = {"kind": done.kind, "dataset": done.dataset, "records": done.count, "images": done.images}
    if done.run is not None:
        summary["run"] = done.run.name
    if as_json:
        click.echo(json.dumps(summary, indent=2))
    elif done.run is None:
        click.echo(f"dataset {dataset}: {done.count} AVerImaTeC claims, {done.images} images")
    else:
        click.echo(f"run {done.run.name}: {done.count} answers on {dataset}, {done.images} evidence images")


@click.command("averimatec")
@click.argument("run_ref", metavar="RUN")
@click.option(
    "--judge",
    "judge_model",
    default="gguf:default",
    show_default=True,
    help="The judge: gguf:PATH | openai:MODEL | anthropic:MODEL | openai-compatible:NAME (vision-capable for images).",
)
@click.option("--base-url", help="Server URL for an openai-compatible judge (e.g. vLLM serving Gemma 3).")
@click.option(
    "--prompt-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Your judge prompt for the evidence part (UTF-8 text with {claim}, {reference_evidence},"
    " {predicted_evidence}, or three positional {}), instead of ours (prompts/averimatec.toml).",
)
@click.option(
    "--questions-prompt-file", type=click.Path(dir_okay=False, path_type=Path), help="Your prompt for the questions."
)
@click.option(
    "--justification-prompt-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Your prompt for the justification.",
)
@click.option(
    "--vision",
    type=click.Choice(["auto", "yes", "no"]),
    default="auto",
    show_default=True,
    help="Show evidence images to the judge as images (auto: when it takes them, asked once).",
)
@click.option("--concurrency", type=click.IntRange(1), help="Requests at once (default: the backend's).")
@click.option("--no-cache", is_flag=True, help="Ask the judge even when an answer is cached.")
@click.option("--param", "params", multiple=True, metavar="KEY=VALUE", help="temperature, max_tokens, seed, ...")
@click.option(
    "--threshold",
    type=click.FloatRange(0, 1),
    default=0.4,
    show_default=True,
    help="The evidence recall a claim must exceed for its verdict and justification to count.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@shared_options
def averimatec_command(
    run_ref,
    judge_model,
    base_url,
    prompt_file,
    questions_prompt_file,
    justification_prompt_file,
    vision,
    concurrency,
    no_cache,
    params,
    threshold,
    as_json,
) -> None:
    """Score a run as the AVerImaTeC task does: question, evidence and justification recall and the gated verdict score.

    A judge model compares the run's questions, image-text evidence (images shown as images
    when the judge takes them) and justification with the gold ones. A claim's verdict and
    justification count only when its evidence recall is above 0.4. A judge reply that
    cannot be read is asked again, then counted apart: the table gives the organisers'
    counting (failure = 0) beside the figures with failures left out, and the failure rate.
    Every judgment is saved as it arrives; the same command again continues.
    """
    from workbench.cli.opening import open_store
    from workbench.cli.run_progress import answer_what_is_left
    from workbench.contamination.averimatec_runs import AverimatecRequest, prepare_averimatec_runs
    from workbench.runs.params import parse_param_pairs

    files = {"evidence": prompt_file, "questions": questions_prompt_file, "justification": justification_prompt_file}
    request = AverimatecRequest(
        run_ref,
        judge_model,
        base_url,
        parse_param_pairs(list(params)),
        {part: path for part, path in files.items() if path is not None},
        concurrency,
        not no_cache,
        vision,
    )
    store = open_store()
    try:
        prepared = prepare_averimatec_runs(store, request)
    finally:
        store.close()
    answer_what_is_left(prepared, this_command())
    _print(run_ref, [one.run.id for one in prepared], threshold, as_json)


def _print(run_ref: str, judge_ids: list[int], threshold: float, as_json: bool) -> None:
    """The figures from the judge runs this command prepared."""
    from workbench.cli.opening import open_store
    from workbench.contamination.averimatec_runs import part_of
    from workbench.contamination.averimatec_scores import averimatec_dict, averimatec_of

    store = open_store()
    try:
        judges = {part_of(run): run for run in (store.runs.get(run_id) for run_id in judge_ids)}
        result = averimatec_of(store, store.runs.get(run_ref), judges, threshold)
    finally:
        store.close()
    if result is None:
        raise UserError(f"run {run_ref!r} has no finished AVerImaTeC judgment")
    found = averimatec_dict(result)
    if as_json:
        click.echo(json.dumps(found, indent=2, ensure_ascii=False))
        return
    from workbench.render.averimatec import averimatec_table
    from workbench.render.console import output_console

    output_console().print(averimatec_table(found))
