"""A run as an Inspect AI eval log: one sample per claim, built with inspect_ai's own log
classes and written with its `write_eval_log` (the `inspect` extra), so `inspect view`
opens it and `read_eval_log` reads it back.

    count = write_inspect_log(store, run, Path("run.eval"))

A sample holds the prompt as the model saw it (the run's template rendered again in its
setting), a search run's steps as assistant tool calls and tool results, the gold label as
the target, the raw answer as the output, scores (the verdict, and explanation quality when
a judge run scored it) and the claim's metadata. The header holds the model, the template,
the setting, the parameters and the run's manifest. What does not fit is listed in
docs/exporting.md.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from store import Claim, Prediction, Run, Store
from workbench.errors import WorkbenchError
from workbench.interchange.files import as_a_new_file
from workbench.interchange.inspect_messages import answer_message, prompt_messages, trajectory_messages
from workbench.runs.manifest import run_manifest

VERDICT_SCORER = "verdict"
EQ_SCORER = "explanation_quality"
SCORE_VALUES = {"correct": "C", "wrong": "I", "abstain": "I", "parse_failure": "I"}
"""Our outcome -> Inspect's CORRECT / INCORRECT; unscored (a gold label outside the scored
ones) and error answers get NOANSWER ("N")."""
RUN_STATUS = {"finished": "success", "cancelled": "cancelled", "failed": "error"}
"""Our run status -> the log's; any other (pending, running, batched) is "started"."""


class ExportError(WorkbenchError, ValueError):
    """A run that cannot be written in the format asked for; the message says why."""


@dataclass
class _RunContext:
    """What every sample of one run shares: looked up once."""

    store: Store
    run: Run
    dataset: str
    template: Any
    template_note: str | None
    eq_scores: dict[int, float]
    price: Any


def write_inspect_log(store: Store, run: Run, output: Path, prompts_dir: Path | None = None) -> int:
    """Write `run` as an Inspect eval log (.eval, or .json by the name's ending), atomically;
    returns the number of samples."""
    from inspect_ai.log import write_eval_log

    log = inspect_log(store, run, prompts_dir)
    output = Path(output)
    handle, temporary = tempfile.mkstemp(dir=output.parent, prefix=f".{output.name}.", suffix=output.suffix)
    os.close(handle)
    try:
        write_eval_log(log, temporary, format="json" if output.suffix == ".json" else "eval")
        as_a_new_file(temporary)
        os.replace(temporary, output)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return len(log.samples or [])


def inspect_log(store: Store, run: Run, prompts_dir: Path | None = None):
    """The run as an inspect_ai EvalLog (samples in run order)."""
    from inspect_ai.log import EvalLog

    if run.kind != "verdict":
        raise ExportError(f"run {run.name!r} is a {run.kind} run; only verdict runs are exported as eval logs")
    context = _context(store, run, prompts_dir)
    predictions = store.runs.predictions(run.id)
    samples = [_sample(context, p, store.claims.get(p.claim_id)) for p in predictions]
    return EvalLog(
        status=RUN_STATUS.get(run.status, "started"),
        eval=_spec(context, samples),
        plan=_plan(run),
        results=_results(store, run, len(samples)),
        stats=_stats(run, predictions),
        samples=samples,
    )


def _context(store: Store, run: Run, prompts_dir: Path | None) -> _RunContext:
    from workbench.prompting import TemplateError, load_template
    from workbench.usage.prices import price_table

    template, note = None, None
    if run.prompt_name:
        try:
            template = load_template(run.prompt_name, prompts_dir)
        except TemplateError as error:
            note = f"the run's template could not be loaded ({error}): inputs are the claim text"
        if template is not None and run.prompt_hash and template.content_hash != run.prompt_hash:
            note = "the template has changed since the run: inputs are rendered with its current text"
    else:
        note = "the run was imported, not prompted here: inputs are the claim text"
    judges = store.judging.judge_runs(run.id)
    eq = {j.claim_id: j.score for j in store.judging.scores(judges[0].id)} if judges else {}
    dataset = store.datasets.name_of(run.dataset_id) if run.dataset_id is not None else None
    return _RunContext(store, run, dataset or "", template, note, eq, price_table().for_model(run.model))


def _sample(context: _RunContext, prediction: Prediction, claim: Claim):
    from inspect_ai.log import EvalSample
    from inspect_ai.model import ModelOutput, ModelUsage

    store, run = context.store, context.run
    prompt, input_note = prompt_messages(claim, context.template, run)
    steps = store.search.trajectory(run.id, claim.id) if run.params.get("search") else []
    answer = answer_message(prediction, run.model)
    output = ModelOutput.from_content(model=run.model, content=prediction.raw_output or "", error=prediction.error)
    usage = None
    if prediction.tokens_in is not None or prediction.tokens_out is not None:
        tokens_in, tokens_out = prediction.tokens_in or 0, prediction.tokens_out or 0
        usage = ModelUsage(input_tokens=tokens_in, output_tokens=tokens_out, total_tokens=tokens_in + tokens_out)
        output.usage = usage
    output.time = prediction.latency_s
    return EvalSample(
        id=claim.external_id or f"claim-{claim.id}",
        epoch=1,
        input=prompt,
        target=claim.label or "",
        messages=[*prompt, *trajectory_messages(steps), answer],
        output=output,
        scores=_scores(context, prediction),
        metadata=_sample_metadata(context, prediction, claim) | ({"input_note": input_note} if input_note else {}),
        model_usage={run.model: usage} if usage is not None else {},
        total_time=prediction.latency_s,
        working_time=prediction.latency_s,
        error=None,
    )


def _scores(context: _RunContext, prediction: Prediction) -> dict:
    from inspect_ai.scorer import Score

    scores = {
        VERDICT_SCORER: Score(
            value=SCORE_VALUES.get(prediction.outcome or "", "N"),
            answer=prediction.verdict,
            explanation=prediction.explanation,
            metadata={
                "status": prediction.status,
                "outcome": prediction.outcome,
                "raw_verdict": prediction.raw_verdict,
            },
        )
    }
    if prediction.claim_id in context.eq_scores:
        scores[EQ_SCORER] = Score(value=context.eq_scores[prediction.claim_id])
    return scores


def _sample_metadata(context: _RunContext, prediction: Prediction, claim: Claim) -> dict[str, Any]:
    store = context.store
    cost = None
    if context.price is not None and prediction.tokens_in is not None and not prediction.cached:
        cost = context.price.cost(
            prediction.tokens_in, prediction.tokens_out or 0, prediction.tokens_cached or 0, prediction.batched
        )
    found = {
        "claim_id": claim.id,
        "external_id": claim.external_id,
        "claim": claim.text,
        "dataset": context.dataset,
        "setting": context.run.setting,
        "importance": claim.importance,
        "task": claim.task,
        "domain": claim.domain,
        "claim_date": claim.claim_date,
        "flags": sorted({flag.kind for flag in store.annotations.flags_for(claim.id)}),
        "failure_categories": [c.name for c in store.annotations.categories_for(prediction.id)]
        if prediction.id is not None
        else [],
        "status": prediction.status,
        "verdict": prediction.verdict,
        "raw_verdict": prediction.raw_verdict,
        "parsed": prediction.parsed,
        "attempts": prediction.attempts,
        "cached": prediction.cached,
        "latency_s": prediction.latency_s,
        "cost_usd": cost,
    }
    return {key: value for key, value in found.items() if value not in (None, [], "")}


def _spec(context: _RunContext, samples: list):
    from inspect_ai.log import EvalConfig, EvalDataset, EvalSpec
    from inspect_ai.model import GenerateConfig

    run = context.run
    params = run.params
    generate = GenerateConfig(
        temperature=params.get("temperature"),
        max_tokens=params.get("max_tokens"),
        top_p=params.get("top_p"),
        seed=params.get("seed"),
    )
    metadata = {
        "workbench_run": {"id": run.id, "name": run.name, "config_key": run.config_key},
        "manifest": run_manifest(context.store, run),
        "model_identity": run.model_identity,
        "engine": run.engine,
        "versions": run.versions,
    }
    if context.template_note:
        metadata["input_note"] = context.template_note
    return EvalSpec(
        created=run.created_at or run.started_at or "",
        task=f"workbench/{context.dataset or 'run'}",
        task_args={"setting": run.setting, "template": run.prompt_name, "subset": run.subset_filter},
        dataset=EvalDataset(name=context.dataset, samples=len(samples), sample_ids=[s.id for s in samples]),
        model=run.model,
        model_generate_config=generate,
        model_args={key: value for key, value in params.items() if _jsonable(value)},
        config=EvalConfig(),
        metadata=metadata,
    )


def _plan(run: Run):
    from inspect_ai.log import EvalPlan, EvalPlanStep

    steps = [EvalPlanStep(solver="workbench_prompt", params={"template": run.prompt_name, "setting": run.setting})]
    if run.params.get("search"):
        steps.append(EvalPlanStep(solver="workbench_search", params={"search": run.params["search"]}))
    steps.append(EvalPlanStep(solver="generate", params={}))
    return EvalPlan(name="workbench", steps=steps)


def _results(store: Store, run: Run, total: int):
    from inspect_ai.log import EvalMetric, EvalResults, EvalScore

    from workbench.scoring.runs import ScoringError, score_run

    try:
        overall = score_run(store, run.id).full.overall
    except ScoringError:
        return EvalResults(total_samples=total, completed_samples=total)
    summary = overall.summary
    metrics = {
        "accuracy": summary.accuracy,
        "macro_f1": summary.macro_f1,
        "mcc": summary.mcc,
        "unknown_rate": summary.unknown_rate,
        "parse_failure_rate": summary.parse_failure_rate,
    }
    score = EvalScore(
        name=VERDICT_SCORER,
        scorer=VERDICT_SCORER,
        scored_samples=summary.scored,
        metrics={name: EvalMetric(name=name, value=float(value)) for name, value in metrics.items()},
        metadata={
            "intervals": {name: [i.low, i.high] for name, i in overall.intervals.items()},
            "classes": list(summary.classes),
        },
    )
    return EvalResults(total_samples=total, completed_samples=total, scores=[score])


def _stats(run: Run, predictions: list[Prediction]):
    from inspect_ai.log import EvalStats
    from inspect_ai.model import ModelUsage

    tokens_in = sum(p.tokens_in or 0 for p in predictions)
    tokens_out = sum(p.tokens_out or 0 for p in predictions)
    usage = ModelUsage(input_tokens=tokens_in, output_tokens=tokens_out, total_tokens=tokens_in + tokens_out)
    return EvalStats(
        started_at=run.started_at or run.created_at or "",
        completed_at=run.finished_at or "",
        model_usage={run.model: usage},
    )


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True
