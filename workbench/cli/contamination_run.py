"""`workbench contamination run`: the pipeline (article -> evidence extraction -> matching
-> scores -> flags) with its progress bars, kept apart from the reading commands of
contamination_commands (which registers it on the group)."""

from __future__ import annotations

import click

from workbench.choices import CONTAMINATION_METRICS
from workbench.cli import UserError, current_db_path, shared_options
from workbench.cli.hints import suggested
from workbench.cli.opening import open_store, require_dataset
from workbench.render.console import output_console
from workbench.render.display import literal
from workbench.render.waiting import status
from workbench.words import counted

console = output_console()


@click.command("run")
@click.option("--model", required=True, help="The target model (gguf:default, openai:MODEL, ...).")
@click.option(
    "--extractor",
    default="gguf:default",
    show_default=True,
    help="The model that lists evidence sentences from articles.",
)
@click.option("--dataset", help="Only claims of this dataset.")
@click.option("--where", "filter_text", default="", help="Filter the claims (see `workbench filter-help`).")
@click.option("--metric", default="meteor", show_default=True, help=CONTAMINATION_METRICS)
@click.option(
    "--tau",
    type=float,
    help="Flag at s >= tau (default: 0.25 METEOR, 0.6 embeddings, or the threshold the stored flags were set at).",
)
@click.option("--limit", type=click.IntRange(1), help="At most this many claims.")
@click.option("--no-cache", is_flag=True, help="Ask the models again instead of reusing stored answers.")
@click.option("--param", "params", multiple=True, metavar="KEY=VALUE", help="Run param for the target model.")
@click.option(
    "--extractor-param",
    "extractor_params",
    multiple=True,
    metavar="KEY=VALUE",
    help="Run param for the extractor (e.g. max_tokens=400).",
)
@click.option("--base-url", help="Server URL for an openai-compatible target model.")
@click.option("--extractor-base-url", help="Server URL for an openai-compatible extractor.")
@click.option("--concurrency", type=click.IntRange(1), help="Requests at once (default: the backend's).")
@click.option(
    "--max-evidence",
    default=10,
    show_default=True,
    type=click.IntRange(1),
    help="At most this many evidence sentences per article.",
)
@click.option(
    "--setting",
    default="claim",
    show_default=True,
    metavar="claim|claim+image",
    help="What the target model is shown: the claim alone, or with its images (a vision model; its"
    " scores and flags are kept apart as METRIC+image).",
)
@shared_options
def run_command(
    model,
    extractor,
    dataset,
    filter_text,
    metric,
    tau,
    limit,
    no_cache,
    params,
    extractor_params,
    base_url,
    extractor_base_url,
    concurrency,
    max_evidence,
    setting,
) -> None:
    """Run the contamination pipeline and flag claims with s >= tau.

    Every step is stored: the articles and both evidence lists are runs (resumable and
    cached: the same command again continues, or reuses finished steps without calling a
    model), and each claim's score keeps its matched pairs. Ctrl-C loses nothing finished.
    With --setting claim+image the articles are written with the claims' images shown;
    `contamination summary` then compares that probe with the text-only one.
    """
    store = open_store()
    try:
        if dataset:
            require_dataset(store, dataset)
        with status("checking the models and planning the pipeline…"):  # nltk, scipy and GGUF models load
            from workbench.contamination.pipeline import ContaminationRequest, plan_pipeline
            from workbench.runs.params import parse_param_pairs

            request = ContaminationRequest(
                model=model,
                extractor=extractor,
                dataset=dataset,
                filter=filter_text,
                metric=metric,
                tau=tau,
                limit=limit,
                use_cache=not no_cache,
                params=parse_param_pairs(list(params)),
                extractor_params=parse_param_pairs(list(extractor_params)),
                base_url=base_url,
                extractor_base_url=extractor_base_url,
                concurrency=concurrency,
                max_evidence=max_evidence,
                setting=setting,
            )
            plan = plan_pipeline(store, request)
    finally:
        store.close()
    _announce(plan)
    outcome = _run_with_progress(plan)
    if outcome.status != "finished":
        _stopped(outcome)
    _finished(plan, outcome)


def _announce(plan) -> None:
    shown = "the claim and its images" if plan.image else "the claim alone"
    console.print(
        f"contamination pipeline over {counted(len(plan.claim_ids), 'claim')}: target {literal(plan.target)}"
        f" (shown {shown}), extractor {literal(plan.extractor)}, metric {literal(plan.metric.name)}"
        + (f" (stored as {literal(plan.stored_metric)})" if plan.image else ""),
        markup=False,
    )
    console.print(
        f"oracle evidence: {len(plan.article_claims):,} claims extracted from their oracle fact-check"
        f" article; {len(plan.qa_claims):,} use their gold question-answer pairs directly (no extraction);"
        f" {len(plan.missing):,} have neither and are not scorable",
        markup=False,
    )


def _run_with_progress(plan):
    """The pipeline in a worker thread, so Ctrl-C lands here and cancels cleanly."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from workbench.cli.cancellable import run_cancellable
    from workbench.cli.run_progress import Pace
    from workbench.contamination.pipeline import run_pipeline
    from workbench.runs.types import ItemFinished

    columns = [
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[counts]}"),
        # A clock that runs (the time left went to 0:00:00 for a step done from the
        # cache, and stayed there), then the rate and time left of the model's answers.
        TimeElapsedColumn(),
        TextColumn("{task.fields[pace]}"),
    ]
    with Progress(*columns, console=console) as bar:
        tasks = {}

        def on_step(step, prepared) -> None:
            done_already = prepared.total - len(prepared.pending_claim_ids)
            verb = "reused" if not prepared.pending_claim_ids else "continuing" if prepared.resumed else "new"
            bar.console.print(
                f"{step}: run {literal(prepared.run.name)} ({verb}), {counted(prepared.total, 'claim')},"
                f" {len(prepared.pending_claim_ids):,} to answer",
                markup=False,
            )
            if "current" in tasks:
                bar.stop_task(tasks["current"])  # its clock stops at the time the step took
            tasks["current"] = bar.add_task(step, total=prepared.total, completed=done_already, counts="", pace="")
            tasks["pace"] = Pace(len(prepared.pending_claim_ids))

        def on_event(event) -> None:
            if isinstance(event, ItemFinished) and "current" in tasks:
                p = event.progress
                tasks["pace"].step(event.prediction)
                bar.update(
                    tasks["current"],
                    completed=p.done + p.error,
                    counts=f"unreadable {p.parse_failure} errors {p.error} cached {p.cached}",
                    pace=tasks["pace"].text(),
                )

        db_path = current_db_path()
        return run_cancellable(
            lambda cancel: run_pipeline(db_path, plan, on_step, on_event, cancel),
            bar.console,
            "contamination-pipeline",
            "cancelling: answers in flight are dropped, finished ones are kept...",
        )


def _stopped(outcome) -> None:
    if outcome.status == "cancelled":
        console.print("cancelled; run the same command again to continue", markup=False)
        raise SystemExit(130)
    raise UserError(
        f"the pipeline stopped: {outcome.message or outcome.status}; fix that, then run the same"
        " command again to continue"
    )


def _finished(plan, outcome) -> None:
    from store import Store
    from workbench.contamination.flagging import pick_group, summarise
    from workbench.render.contamination import number

    store = Store.open(current_db_path())
    try:
        group = pick_group(store, plan.target, plan.stored_metric, plan.extractor)
        summary = summarise(store, group, outcome.tau, set(plan.claim_ids))
        failures = _unreadable(store, outcome.runs)
    finally:
        store.close()
    console.print(
        f"{outcome.scored:,} claims scored, {summary.scorable:,} scorable; S = "
        f"{number(summary.mean_score)}; flagged at tau {summary.tau:.2f}: {summary.would_flag:,}"
        f" of {summary.scorable:,}" + (f" ({summary.share_flagged:.1%})" if summary.share_flagged is not None else ""),
        markup=False,
    )
    if failures:
        console.print(f"unreadable answers (kept as parse failures): {failures}", markup=False)
    more = f"details: {suggested('contamination', 'show')} CLAIM; all models: {suggested('contamination', 'summary')}"
    console.print(more, markup=False)


def _unreadable(store, runs: dict[str, str]) -> str:
    parts = []
    for step, name in runs.items():
        run = store.runs.get(name)
        count = store.runs.progress(run.id).parse_failure if run else 0
        if count:
            parts.append(f"{step} {count}")
    return ", ".join(parts)
