"""Preparing a run: every check that can fail happens here, before any work starts.

A run is defined by its configuration (model identity, template and its content hash,
setting, answer format, params that change answers) plus its exact claim ids; their hash
is the config key. Which run a command answers into (a new one, or an unfinished one
it continues) is runs.continuing's choice.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from store import FilterError, LabelSpace, Run, Store
from store.names import no_run
from store.records import as_dict, to_json
from workbench.backends import ModelSpec, ModelSpecError
from workbench.config import load_settings
from workbench.labels import normalise
from workbench.prompting import (
    PromptError,
    Template,
    TemplateError,
    answer_mode,
    available_templates,
    check_setting,
    load_template,
    parse_setting,
)
from workbench.runs.preflight import ModelCall, check_takes_images, model_takes_images, preflight
from workbench.runs.requirements import check_claims_have
from workbench.runs.run_record import (
    config_key,
    engine_of,
    find_or_create_run,
    package_versions,
    stored_model_text,
    task_config_key,
)
from workbench.runs.types import PreparedRun, RunRequest, RunSetupError, TaskRunRequest
from workbench.search.config import SearchConfig


def prepare_run(store: Store, request: RunRequest) -> PreparedRun:
    """Validate everything, then create the run row or find the unfinished one to continue.

    A local GGUF model is loaded here (once per process), so a file llama.cpp cannot load
    is reported now; with a big model that takes seconds, so call this off a UI thread.
    """
    if request.resume:
        return _prepare_resume(store, request)
    try:
        return _prepare(store, request)
    except FilterError as error:
        raise RunSetupError(f"bad filter: {error}") from None
    except (ModelSpecError, TemplateError, PromptError) as error:
        raise RunSetupError(str(error)) from None


def _prepare(store: Store, request: RunRequest, resuming: Run | None = None) -> PreparedRun:
    settings = load_settings()
    setting = parse_setting(request.setting)
    claim_ids = _select_claims(store, request)  # a misspelled dataset is said before a model loads
    model = preflight([ModelCall("model", request.model, request.base_url, request.params)], settings)[0]
    spec, params, backend = model.spec, model.params, model.backend
    space, dataset_id = _label_space(store, claim_ids)
    template = load_template(_template_name(request.prompt, space, settings.prompts_dir), settings.prompts_dir)
    check_setting(template, setting)
    json_answer = answer_mode(template, params.get("json")) == "json"
    allowed = _allowed_verdicts(template, space)
    check_claims_have(store, claim_ids, template, setting, json_answer)
    if setting.image and store.claims.any_with_images(claim_ids):
        check_takes_images(model, store)
    search = search_config(params, spec, settings)
    if search is not None and search.image_search and params.get("vision") is None:
        params = {**params, "vision": model_takes_images(model, store)}  # recorded: the run says what it assumed
        search = dataclasses.replace(search, vision=params["vision"])
    key = config_key(backend.identity, template, setting, json_answer, params, claim_ids)
    engine = engine_of(backend)
    run, resumed, choice = find_or_create_run(
        store, request, resuming, key, spec, template, setting, params, backend.identity, claim_ids, dataset_id, engine
    )
    concurrency = request.concurrency or backend.default_concurrency
    if concurrency < 1:
        raise RunSetupError("--concurrency must be at least 1")
    return PreparedRun(
        run,
        store.runs.pending_claim_ids(run.id),
        len(claim_ids),
        resumed,
        spec,
        template,
        setting,
        json_answer,
        params,
        space,
        allowed,
        concurrency,
        request.use_cache,
        search=search,
        engine=engine,
        name_taken_by=choice.taken_by.name if choice.taken_by else None,
        unfinished_twin=choice.unfinished_twin.name if choice.unfinished_twin else None,
    )


def selected_claims(store: Store, request: RunRequest) -> list[int]:
    """The claim ids a request selects (RunSetupError when none do)."""
    try:
        return _select_claims(store, request)
    except FilterError as error:
        raise RunSetupError(f"bad filter: {error}") from None


def resolve_template(store: Store, request: RunRequest) -> Template:
    """The template a request would run with (auto: the one named after the claims' label space)."""
    try:
        settings = load_settings()
        space, _dataset = _label_space(store, _select_claims(store, request))
        return load_template(_template_name(request.prompt, space, settings.prompts_dir), settings.prompts_dir)
    except FilterError as error:
        raise RunSetupError(f"bad filter: {error}") from None
    except TemplateError as error:
        raise RunSetupError(str(error)) from None


def search_config(params: dict, spec: ModelSpec, settings) -> SearchConfig | None:
    """A search run's tools from its params (None: not a search run)."""
    backend = params.get("search")
    if not backend:
        return None
    from workbench.search.backends import BACKENDS, IMAGE_BACKENDS, SearchError, check_search
    from workbench.search.guards import DEFAULT_BLOCKED_DOMAINS

    if backend not in BACKENDS:
        raise RunSetupError(f"no search backend {backend!r}; backends: {', '.join(BACKENDS)}")
    try:
        check_search(backend, params.get("search_url"), settings)  # a missing key is said now, not mid-run
    except SearchError as error:
        raise RunSetupError(str(error)) from None
    if params.get("image_search") and backend not in IMAGE_BACKENDS:
        raise RunSetupError(
            f"the {backend} backend has no image search; use {' or '.join(IMAGE_BACKENDS)}"
            " (--search serper, or --search searxng with --search-url)"
        )
    tools = params.get("tools") or ("text" if spec.scheme == "gguf" else "native")
    if tools not in ("native", "text"):
        raise RunSetupError(f"--param tools takes native or text, not {tools!r}")
    blocked = settings.search_blocked_domains
    return SearchConfig(
        backend,
        params.get("search_url"),
        int(params.get("max_steps") or 6),
        int(params.get("max_searches") or 4),
        int(params.get("search_results") or 5),
        tools,
        tuple(DEFAULT_BLOCKED_DOMAINS if blocked is None else blocked),
        claim_tokens=params.get("claim_tokens"),
        image_search=bool(params.get("image_search")),
        vision=bool(params.get("vision")),
        max_images=int(params.get("max_images") or 3),
        fetch_private=settings.search_fetch_private,
    )


def prepare_task_run(store: Store, request: TaskRunRequest) -> PreparedRun:
    """Validate and find-or-create a non-verdict run (an article or extraction step).

    The same configuration (model identity, task configuration, params, claims) reuses
    its newest run: unfinished claims are answered, finished ones stay. With use_cache
    False a finished run is not reused: a new run asks the model again.
    """
    if not request.claim_ids:
        raise RunSetupError(f"no claims for the {request.task.kind} step")
    model = preflight([ModelCall(request.task.kind, request.model, request.base_url, request.params)])[0]
    spec, params, backend = model.spec, model.params, model.backend
    key = task_config_key(backend.identity, request.task, params, request.claim_ids)
    engine = engine_of(backend)
    latest = store.runs.latest_with_config(key)
    unfinished = latest is not None and (latest.status != "finished" or store.runs.pending_claim_ids(latest.id))
    if latest is not None and (unfinished or request.use_cache):
        run, resumed = latest, True
    else:
        run, resumed = (
            store.runs.create(
                _task_run(store, request, spec, params, backend.identity, key, engine), request.claim_ids
            ),
            False,
        )
    concurrency = request.concurrency or backend.default_concurrency
    if concurrency < 1:
        raise RunSetupError("--concurrency must be at least 1")
    return PreparedRun(
        run,
        store.runs.pending_claim_ids(run.id),
        len(request.claim_ids),
        resumed,
        spec,
        None,
        None,
        True,
        params,
        None,
        [],
        concurrency,
        request.use_cache,
        task=request.task,
        engine=engine,
    )


def prepare_judge_part(store: Store, request, target: Run, task, claim_ids: list[int], name: str, params: dict):
    """A judge run of `target` (an explanation judge, a part of Ev2R's or AVerImaTeC's score),
    with the judge, server, concurrency and cache the request (JudgeRequest, Ev2rRequest,
    AverimatecRequest) asks."""
    return prepare_task_run(
        store,
        TaskRunRequest(
            task=task,
            model=request.judge,
            claim_ids=claim_ids,
            name=name,
            base_url=request.base_url,
            params=params,
            concurrency=request.concurrency,
            use_cache=request.use_cache,
            dataset_id=target.dataset_id,
            target_run_id=target.id,
        ),
    )


def _task_run(
    store: Store, request: TaskRunRequest, spec: ModelSpec, params: dict, identity: dict, key: str, engine: dict
) -> Run:
    task = request.task
    return Run(
        name=store.runs.unique_name(request.name),
        kind=task.kind,
        dataset_id=request.dataset_id,
        model=stored_model_text(spec),
        model_identity=identity,
        prompt_name=task.template_name,
        prompt_hash=task.template_hash,
        setting=task.source,
        params=params,
        subset_filter=request.subset_filter,
        config_key=key,
        versions=package_versions(),
        target_run_id=request.target_run_id,
        engine=engine,
    )


def _prepare_resume(store: Store, request: RunRequest) -> PreparedRun:
    run = store.runs.get(request.resume)
    if run is None:
        raise RunSetupError("nothing to resume: " + no_run(store.runs, request.resume, listing=False))
    if request.name and request.name != run.name:
        raise RunSetupError(
            f"--resume continues run {run.name} under its own name, and --name {request.name} would name a new"
            " run: give one of them"
        )
    if run.kind in ("ev2r", "averimatec"):
        judge = "Ev2R" if run.kind == "ev2r" else "AVerImaTeC"
        raise RunSetupError(
            f"run {run.name} is an {judge} judge run; run `workbench {run.kind} RUN` again (RUN: the run it"
            " judges) to continue it"
        )
    if run.kind != "verdict":
        raise RunSetupError(
            f"run {run.name} is a step of the contamination pipeline (kind {run.kind}); run the"
            " same `workbench contamination run` command again to continue it"
        )
    again = RunRequest(
        model=run.model,
        setting=run.setting or "claim",
        prompt=run.prompt_name or "auto",
        claim_ids=store.runs.claim_ids(run.id),
        base_url=run.model_identity.get("base_url") if not run.model.startswith("gguf:") else None,
        params=dict(run.params),
        concurrency=request.concurrency,
        use_cache=request.use_cache,
    )
    try:
        return _prepare(store, again, resuming=run)
    except (ModelSpecError, TemplateError, PromptError, FilterError) as error:
        raise RunSetupError(f"cannot resume {run.name}: {error}") from None


def _select_claims(store: Store, request: RunRequest) -> list[int]:
    if request.claim_ids is not None:
        known = store.claims.existing(request.claim_ids)
        unknown = [i for i in request.claim_ids if i not in known]
        if unknown:
            raise RunSetupError(
                f"no claim with id {unknown[0]}" + (f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else "")
            )
        ids = list(dict.fromkeys(request.claim_ids))
    else:
        if request.dataset and store.datasets.get(request.dataset) is None:
            names = ", ".join(d.name for d in store.datasets.list()) or "none; import one first"
            raise RunSetupError(f"no dataset {request.dataset!r}; datasets: {names}")
        ids = store.claims.ids(request.filter or "", request.limit, dataset=request.dataset)
    if request.limit is not None:
        ids = ids[: request.limit]
    if not ids:
        raise RunSetupError(
            "no claims match"
            + (f" {request.filter!r}" if request.filter else "")
            + ("" if store.datasets.list() else "; import a dataset first")
        )
    return ids


def _label_space(store: Store, claim_ids: list[int]) -> tuple[LabelSpace, int | None]:
    """The one label space the selected claims are scored in, and their dataset if just one."""
    spaces, dataset_ids = {}, []
    for dataset_id in sorted(store.claims.dataset_ids(claim_ids)):
        dataset = store.datasets.by_id(dataset_id)
        spaces[to_json(as_dict(dataset.label_space))] = (dataset.name, dataset.label_space)
        dataset_ids.append(dataset.id)
    if len(spaces) > 1:
        names = "; ".join(f"{name} ({space.name})" for name, space in spaces.values())
        raise RunSetupError(
            f"the selected claims come from datasets with different label spaces: {names}; run one dataset at a time"
        )
    ((_, space),) = spaces.values()
    return space, dataset_ids[0] if len(dataset_ids) == 1 else None


def _template_name(prompt: str, space: LabelSpace, prompts_dir: Path | None) -> str:
    if prompt and prompt != "auto":
        return prompt
    if space.name not in available_templates(prompts_dir):
        raise RunSetupError(
            f"--prompt auto picks the template named after the claims' label space, and there is no"
            f" template for the {space.name!r} label space ({', '.join(space.labels)}); choose one with"
            " --prompt (`workbench prompts` lists them), or add a template file for it to your prompts_dir"
        )
    return space.name


def _allowed_verdicts(template: Template, space: LabelSpace) -> list[str]:
    """The template's verdicts in the dataset's own spelling; RunSetupError if they don't fit."""
    allowed = [normalise(label, space) for label in template.answer_labels]
    classes_fit = all(a in space.labels for a in allowed[: len(template.verdicts)])
    abstain_fits = not template.abstain or (space.abstain is not None and allowed[-1] == space.abstain)
    if not (classes_fit and abstain_fits):
        raise RunSetupError(
            f"template {template.name!r} answers {', '.join(template.answer_labels)}, but these claims are scored"
            f" in the {space.name} label space ({', '.join(space.labels)}); pick a template for it"
            f" (`workbench prompts` lists them, e.g. --prompt {space.name})"
        )
    return allowed
