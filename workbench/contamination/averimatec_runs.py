"""Starting the AVerImaTeC judge runs of an imported AVerImaTeC answer run: one run per part
(questions, image-text evidence, justification), each a run of kind "averimatec" on the run
engine (cache, retries, resume, concurrency, cost and time recorded) whose `target_run_id`
names the answer run.

Only claims whose answer holds something for a part are judged for it; a claim with nothing
there scores 0 without a judge (workbench.metrics.averimatec.NOTHING).

    prepared = prepare_averimatec_runs(store, AverimatecRequest("system-a", judge="openai-compatible:gemma"))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from store import Run, Store
from workbench.backends import parse_model_spec
from workbench.config import load_settings
from workbench.contamination.averimatec_evidence import PART_WORDS, PARTS, image_count, predicted_items, reference_items
from workbench.contamination.averimatec_task import TEMPLATES, AverimatecTask
from workbench.contamination.ev2r_runs import target_run
from workbench.contamination.ev2r_task import user_template
from workbench.prompting import TemplateError, load_task_template
from workbench.runs.setup import prepare_judge_part
from workbench.runs.types import PreparedRun, RunSetupError

VISION = ("auto", "yes", "no")


@dataclass
class AverimatecRequest:
    """What a user asked to judge."""

    target: str
    """The imported answer run (name or id) whose parts are judged."""
    judge: str = "gguf:default"
    base_url: str | None = None
    params: dict = field(default_factory=dict)
    prompt_files: dict[str, Path] = field(default_factory=dict)
    """Part -> the user's prompt file for it (a part not named: ours, prompts/averimatec*.toml)."""
    concurrency: int | None = None
    use_cache: bool = True
    vision: str = "auto"
    """auto: images go as images when the judge takes them (asked once with a 2x2 picture)."""


def prepare_averimatec_runs(store: Store, request: AverimatecRequest) -> list[PreparedRun]:
    """Check everything, then create the three judge runs (or find the unfinished ones to continue)."""
    target = target_run(store, request.target)
    claims = {part: judged_claim_ids(store, target, part) for part in PARTS}
    params = {"temperature": 0.0, "max_tokens": 600, **request.params}
    short = parse_model_spec(request.judge, request.base_url).short_name
    vision = _vision(store, request, target)
    prepared = []
    for part in PARTS:
        if not claims[part]:
            continue
        # Only the evidence part has images: the questions and the justification are text.
        task = AverimatecTask(_template(request, part), target.id, target.name, part, vision and part == "evidence")
        name = f"{short}-averimatec-{part}-{target.name}"
        prepared.append(prepare_judge_part(store, request, target, task, claims[part], name, params))
    if not prepared:
        raise RunSetupError(f"no answer of run {target.name} holds questions, evidence or a justification to judge")
    return prepared


def _template(request: AverimatecRequest, part: str):
    try:
        if part in request.prompt_files:
            return user_template(Path(request.prompt_files[part]))
        return load_task_template(TEMPLATES[part], "averimatec", load_settings().prompts_dir)
    except TemplateError as error:
        raise RunSetupError(str(error)) from None


def _vision(store: Store, request: AverimatecRequest, target: Run) -> bool:
    """Whether the judge sees images: as asked, or (auto) when there are images and it takes them."""
    if request.vision not in VISION:
        raise RunSetupError(f"--vision: one of {', '.join(VISION)}, not {request.vision!r}")
    if request.vision != "auto":
        return request.vision == "yes"
    if not _any_images(store, target):
        return False
    from workbench.runs.preflight import ModelCall, model_takes_images, preflight

    model = preflight([ModelCall("judge", request.judge, request.base_url, dict(request.params))])[0]
    return model_takes_images(model, store)


def _any_images(store: Store, target: Run) -> bool:
    for claim_id in store.runs.claim_ids(target.id):
        claim = store.claims.get(claim_id)
        answer = store.runs.prediction(target.id, claim_id)
        if image_count(reference_items(claim, "evidence")) or image_count(predicted_items(answer, "evidence")):
            return True
    return False


def judged_claim_ids(store: Store, run: Run, part: str) -> list[int]:
    """The run's claims to judge for one part: those whose answer holds something for it; every
    claim of the run must have a gold label (an AVerImaTeC-shaped claim)."""
    found = []
    for claim_id in store.runs.claim_ids(run.id):
        claim = store.claims.get(claim_id)
        if claim.label is None:
            raise RunSetupError(f"claim {claim.dataset}:{claim.external_id} of run {run.name} has no gold label")
        answer = store.runs.prediction(run.id, claim_id)
        if reference_items(claim, part) and predicted_items(answer, part):
            found.append(claim_id)
    return found


def part_of(run: Run) -> str | None:
    """Which part a judge run judged (from its setting, e.g. "questions of run x")."""
    return next((p for p in PARTS if (run.setting or "").startswith(PART_WORDS[p] + " of run")), None)
