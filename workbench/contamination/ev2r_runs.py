"""Starting the Ev2R judge runs of a verdict run: one run per part (questions only, and
question-answer pairs), each a run of kind "ev2r" on the run engine (cache, retries, resume,
concurrency, cost and time recorded, repeats), whose `target_run_id` names the verdict run.

Only claims whose answer carries evidence are judged; a claim without any scores recall 0
without a judge (workbench.metrics.ev2r.NO_EVIDENCE).

    prepared = prepare_ev2r_runs(store, Ev2rRequest("baseline", judge="openai-compatible:llama"))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from store import Run, Store
from store.names import no_run
from workbench.backends import parse_model_spec
from workbench.config import load_settings
from workbench.contamination.ev2r_evidence import PARTS, predicted_pairs, reference_pairs
from workbench.contamination.ev2r_task import EV2R_TEMPLATE, Ev2rTask, user_template
from workbench.prompting import TemplateError, load_task_template
from workbench.runs.setup import prepare_judge_part
from workbench.runs.types import PreparedRun, RunSetupError

MAX_REPEATS = 20
SHORT_PART = {"questions": "q", "pairs": "qa"}


@dataclass
class Ev2rRequest:
    """What a user asked to judge."""

    target: str
    """The verdict run (name or id) whose evidence is judged."""
    judge: str = "gguf:default"
    base_url: str | None = None
    params: dict = field(default_factory=dict)
    prompt_file: Path | None = None
    """The user's judge prompt for the question-answer part (and the questions part unless
    questions_prompt_file is given); None: ours (prompts/ev2r.toml)."""
    questions_prompt_file: Path | None = None
    concurrency: int | None = None
    use_cache: bool = True
    repeats: int = 1


def prepare_ev2r_runs(store: Store, request: Ev2rRequest) -> list[PreparedRun]:
    """Check everything, then create both judge runs (or find the unfinished ones to continue)."""
    target = target_run(store, request.target)
    claim_ids = judged_claim_ids(store, target)
    if not 1 <= request.repeats <= MAX_REPEATS:
        raise RunSetupError(f"--repeats: 1 to {MAX_REPEATS}, not {request.repeats}")
    params = {"temperature": 0.0, "max_tokens": 600, **request.params}
    short = parse_model_spec(request.judge, request.base_url).short_name
    prepared = []
    for part in PARTS:
        task = Ev2rTask(_template(request, part), target.id, target.name, part, repeats=request.repeats)
        name = f"{short}-ev2r-{SHORT_PART[part]}-{target.name}"
        prepared.append(prepare_judge_part(store, request, target, task, claim_ids, name, params))
    return prepared


def _template(request: Ev2rRequest, part: str):
    path = request.questions_prompt_file if part == "questions" and request.questions_prompt_file else None
    path = path or request.prompt_file
    try:
        if path is not None:
            return user_template(Path(path))
        return load_task_template(EV2R_TEMPLATE, "ev2r", load_settings().prompts_dir)
    except TemplateError as error:
        raise RunSetupError(str(error)) from None


def target_run(store: Store, reference: str | int) -> Run:
    """The verdict run a user named; RunSetupError naming the runs there are otherwise."""
    run = store.runs.get(reference)
    if run is None:
        raise RunSetupError(no_run(store.runs, reference, fact_checking=True))
    if run.kind != "verdict":
        raise RunSetupError(f"run {run.name!r} is a {run.kind} run; Ev2R judges the evidence of a fact-checking run")
    return run


def judged_claim_ids(store: Store, run: Run) -> list[int]:
    """The run's claims to put to the judge: those whose answer carries evidence; every claim
    of the run must have a gold label and reference question-answer evidence."""
    found = []
    for claim_id in store.runs.claim_ids(run.id):
        claim = store.claims.get(claim_id)
        if claim.label is None or not reference_pairs(claim):
            raise RunSetupError(
                f"claim {claim.dataset}:{claim.external_id} of run {run.name} has no gold label or no reference"
                " question-answer evidence; Ev2R needs AVeriTeC-shaped claims"
            )
        if predicted_pairs(store.runs.prediction(run.id, claim_id))[0]:
            found.append(claim_id)
    if not found:
        raise RunSetupError(
            f"no answer of run {run.name!r} carries evidence (question-answer pairs) to judge;"
            " import a submission with `workbench import-predictions` or `workbench import-submission`"
        )
    return found
