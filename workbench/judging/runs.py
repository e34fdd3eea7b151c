"""Starting a judge run: which run's explanations, which judge, which template.

A judge run is a run of kind "judge" on the run engine (concurrency, the response cache,
retries, resume after a kill, one commit per judgment); its `target_run_id` names the
verdict run it scores and its claims are that run's answered claims with an explanation.

    prepared = prepare_judge_run(store, JudgeRequest("gpt4-rfb", judge="openai:gpt-4o"))
"""

from __future__ import annotations

from dataclasses import dataclass, field

from store import Run, Store
from store.names import no_run
from workbench.backends import parse_model_spec
from workbench.config import load_settings
from workbench.judging.task import JUDGE_TEMPLATE, JudgeTask
from workbench.prompting import TemplateError, load_task_template
from workbench.runs.setup import prepare_judge_part
from workbench.runs.types import PreparedRun, RunSetupError


@dataclass
class JudgeRequest:
    """What a user asked to judge."""

    target: str
    """The verdict run (name or id) whose explanations are scored."""
    judge: str = "gguf:default"
    base_url: str | None = None
    params: dict = field(default_factory=dict)
    template: str = JUDGE_TEMPLATE
    concurrency: int | None = None
    name: str | None = None
    use_cache: bool = True
    repeats: int = 1
    """Ask the judge this many times per explanation (consistency; each repeat cached apart)."""


MAX_REPEATS = 20


def prepare_judge_run(store: Store, request: JudgeRequest) -> PreparedRun:
    """Check everything, then create the judge run or find the unfinished one to continue."""
    target = judged_run(store, request.target)
    claim_ids = store.runs.explained_claim_ids(target.id)
    if not claim_ids:
        raise RunSetupError(f"run {target.name!r} has no explanations to judge (no answer with an explanation)")
    try:
        template = load_task_template(request.template, "judge", load_settings().prompts_dir)
    except TemplateError as error:
        raise RunSetupError(str(error)) from None
    if not 1 <= request.repeats <= MAX_REPEATS:
        raise RunSetupError(
            f"--repeats is how many times the judge is asked per explanation: 1 to {MAX_REPEATS}, not {request.repeats}"
        )
    task = JudgeTask(template, target.id, target.name, repeats=request.repeats)
    params = {"temperature": 0.0, "max_tokens": 300, **request.params}
    times = f"-x{request.repeats}" if request.repeats > 1 else ""
    name = request.name or f"{parse_model_spec(request.judge, request.base_url).short_name}-judges-{target.name}{times}"
    return prepare_judge_part(store, request, target, task, claim_ids, name, params)


def reopen_judge_run(store: Store, run: Run) -> PreparedRun:
    """A judge run prepared again from what it stored (to collect its batch, or resume it)."""
    base_url = None if run.model.startswith("gguf:") else run.model_identity.get("base_url")
    repeats = int(store.judging.repeat_count(run.id) or 1)
    return prepare_judge_run(
        store,
        JudgeRequest(
            str(run.target_run_id),
            run.model,
            base_url,
            dict(run.params),
            run.prompt_name or JUDGE_TEMPLATE,
            name=run.name,
            repeats=repeats,
        ),
    )


def judged_run(store: Store, reference: str | int) -> Run:
    """The verdict run a user named; RunSetupError naming the runs there are otherwise."""
    run = store.runs.get(reference)
    if run is None:
        raise RunSetupError(no_run(store.runs, reference))
    if run.kind != "verdict":
        raise RunSetupError(f"run {run.name!r} is a {run.kind} run; only fact-checking runs have explanations to judge")
    return run
