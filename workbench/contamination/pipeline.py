"""The contamination pipeline ("novel claim or déjà vu"), end to end.

    plan = plan_pipeline(store, ContaminationRequest(model=..., extractor=..., dataset=...))
    outcome = run_pipeline(db_path, plan, on_step, on_event, cancel)

1. oracle evidence: the extractor lists the evidence of each claim's oracle fact-check
   article (its own article_text, else the page `workbench articles fetch` got from its
   article_url) (an "extract" run; it depends only on the extractor, so every target model
   reuses it). Claims without an article but with gold question-answer pairs use those
   pairs directly; claims with neither are not scorable.
2. articles: the target model writes a fact-check from memory (an "article" run) of
   each claim whose oracle evidence is known (the others cannot be scored anyway);
   with setting claim+image it is shown the claim's images too (probes.py: the scores
   and flags of that probe are stored apart, under `METRIC+image`);
3. generated evidence: the extractor lists the evidence of each generated article;
4. scores: pair scores, the Hungarian assignment and s per claim (similarity.py), stored
   in contamination_scores; then pipeline flags at tau (flagging.py).

Every model step is an ordinary run of the run engine, so it is cached, resumable and
commits each answer at once: running the same request again continues where it
stopped, and a finished step is reused without calling any model.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from store import FilterError, Store
from workbench.backends import ModelSpecError
from workbench.contamination.pipeline_plan import ContaminationRequest, PipelineError, PipelineOutcome, PipelinePlan
from workbench.contamination.pipeline_steps import PipelineSteps
from workbench.contamination.pipeline_tasks import ARTICLE_TEMPLATE, EXTRACT_TEMPLATE, load_task_template
from workbench.contamination.probes import ARTICLE_SETTINGS, parse_article_setting
from workbench.contamination.similarity import Metric, MetricError, parse_metric
from workbench.nlp.embedding import EmbeddingModelError
from workbench.prompting import TemplateError
from workbench.runs.preflight import ModelCall, check_takes_images, preflight
from workbench.runs.run_record import stored_model_text
from workbench.runs.types import PreparedRun, RunEvent, RunSetupError


def plan_pipeline(store: Store, request: ContaminationRequest) -> PipelinePlan:
    """Check everything that can be checked without a model; PipelineError if something is wrong."""
    try:
        metric = parse_metric(request.metric)
        # Every model the steps will call, checked now: a missing key is said before any work.
        target_model, extractor_model = preflight(
            [
                ModelCall("target model", request.model, request.base_url, request.params),
                ModelCall("extractor", request.extractor, request.extractor_base_url, request.extractor_params),
            ]
        )
        target, extractor = stored_model_text(target_model.spec), stored_model_text(extractor_model.spec)
        article_template = load_task_template(ARTICLE_TEMPLATE, "article")
        extract_template = load_task_template(EXTRACT_TEMPLATE, "extract")
    except (MetricError, EmbeddingModelError, ModelSpecError, TemplateError, RunSetupError) as error:
        raise PipelineError(str(error)) from None
    image = parse_article_setting(request.setting)
    if image is None:
        raise PipelineError(
            f"--setting {request.setting!r}: the target model writes its article from memory, so the"
            f" settings are {' and '.join(ARTICLE_SETTINGS)}"
        )
    _check_metric_data(metric)
    if request.tau is not None and not 0 <= request.tau <= 1:
        raise PipelineError(f"--tau must lie between 0 and 1, not {request.tau}")
    if request.max_evidence < 1:
        raise PipelineError("--max-evidence must be at least 1")
    claim_ids = _select_claims(store, request)
    if metric.family == "meteor":  # said now, not after the models wrote their articles
        _check_meteor_language(store, claim_ids)
    with_article, with_qa = store.contamination.oracle_sources(claim_ids)
    qa_only = [c for c in claim_ids if c in with_qa and c not in with_article]
    missing = [c for c in claim_ids if c not in with_article and c not in with_qa]
    if len(missing) == len(claim_ids):
        raise PipelineError(
            f"none of the {len(claim_ids):,} selected claims has oracle evidence (an oracle"
            " fact-check article, or gold question-answer pairs), so none can be scored"
        )
    if image:
        _check_image_probe(store, claim_ids, target_model)
    dataset = store.datasets.get(request.dataset) if request.dataset else None
    return PipelinePlan(
        request,
        metric,
        claim_ids,
        [c for c in claim_ids if c in with_article],
        qa_only,
        missing,
        target,
        extractor,
        article_template,
        extract_template,
        dataset.id if dataset else None,
        request.dataset or "claims",
        image,
    )


def _check_image_probe(store: Store, claim_ids: list[int], target_model) -> None:
    """With claim+image, some claim must have an image (else the run is the text-only one
    again), and the target model must take images (asked before any article is written)."""
    if not store.claims.any_with_images(claim_ids):
        raise PipelineError(
            f"--setting claim+image, but none of the {len(claim_ids):,} selected claims has an image"
            " (its articles would be the text-only ones); narrow the claims with --where has:image"
        )
    try:
        check_takes_images(target_model, store)
    except RunSetupError as error:
        raise PipelineError(str(error)) from None


def _check_meteor_language(store: Store, claim_ids: list[int]) -> None:
    """PipelineError when the claims are Japanese, Chinese or another unspaced script (a
    sample of them is read): METEOR's English words do not apply; the message names embeddings."""
    from workbench.contamination.similarity import check_meteor_applies

    claims = (store.claims.get(claim_id) for claim_id in claim_ids[:50])
    try:
        check_meteor_applies([claim.text for claim in claims if claim is not None])
    except MetricError as error:
        raise PipelineError(str(error)) from None


def _check_metric_data(metric: Metric) -> None:
    if metric.family != "meteor":
        return
    from workbench.nlp.nlp_data import NlpDataMissing, check_nlp_data

    try:
        check_nlp_data()
    except NlpDataMissing as error:
        raise PipelineError(str(error)) from None


def _select_claims(store: Store, request: ContaminationRequest) -> list[int]:
    if request.claim_ids is not None:
        ids = list(dict.fromkeys(request.claim_ids))
    else:
        if request.dataset and store.datasets.get(request.dataset) is None:
            names = ", ".join(d.name for d in store.datasets.list()) or "none; import one first"
            raise PipelineError(f"no dataset {request.dataset!r}; datasets: {names}")
        text = (f'dataset:"{request.dataset}" ' if request.dataset else "") + (request.filter or "")
        try:
            ids = store.claims.ids(text, request.limit)
        except FilterError as error:
            raise PipelineError(f"bad filter: {error}") from None
    ids = ids[: request.limit] if request.limit is not None else ids
    if not ids:
        raise PipelineError("no claims match" + (f" {request.filter!r}" if request.filter else ""))
    return ids


def run_pipeline(
    db_path: Path,
    plan: PipelinePlan,
    on_step: Callable[[str, PreparedRun], None] | None = None,
    on_event: Callable[[RunEvent], None] | None = None,
    cancel: threading.Event | None = None,
) -> PipelineOutcome:
    """Run the three model steps (each resumable), then score and flag. Opens its own Store.

    Stops after a step that was cancelled or failed; what finished stays stored and the
    same request continues from there.
    """
    store = Store.open(db_path)
    try:
        steps = PipelineSteps(
            db_path,
            store,
            plan,
            on_step or (lambda step, prepared: None),
            on_event or (lambda event: None),
            cancel or threading.Event(),
        )
        return steps.run()
    finally:
        store.close()
