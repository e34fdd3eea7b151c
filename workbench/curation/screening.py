"""The screening step: an LLM labels each claim's wording ok, reveals-verdict, incomplete or
meta, with a reason (prompts/claim_screen.toml, kind "screen").

A screening is a run of kind "screen" on the run engine: the response cache, retries with a
nudge for unreadable answers, one commit per answer, resume after a kill, and batch APIs
(`curate --screen MODEL --batch`, then `workbench batch collect RUN`, then the same curate
command again applies what came back). Claims whose answer could not be read are kept and
counted, never removed on a guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from store import Claim, Run, Store
from workbench.parsing import json_objects
from workbench.prompting import RenderedPrompt, TemplatedTask, claim_values, load_task_template, task_messages
from workbench.runs.types import PreparedRun, TaskAnswer, TaskRunRequest

SCREEN_TEMPLATE = "claim_screen"
SCREEN_TRIES = 3
LABELS = ("ok", "reveals-verdict", "incomplete", "meta")
_KEYS = ("label", "category", "verdict", "class")
_REASONS = ("reason", "justification", "explanation", "rationale")


@dataclass
class ScreenTask(TemplatedTask):
    """Label one claim's wording."""

    kind: str = "screen"
    tries: int = SCREEN_TRIES
    source: str = "the claim's wording"

    def configuration(self) -> dict[str, Any]:
        return {"template": self.template.name, "template_hash": self.template.content_hash, "tries": self.tries}

    def schema(self) -> dict[str, Any]:
        """Constrains a GGUF answer (and guides API ones) to {"label": one of four, "reason": text}."""
        return {
            "type": "object",
            "additionalProperties": False,
            "required": ["label", "reason"],
            "properties": {"label": {"type": "string", "enum": list(LABELS)}, "reason": {"type": "string"}},
        }

    def render(self, store: Store, claim: Claim) -> RenderedPrompt:
        values = claim_values(claim)
        values["answer"] = self.template.answer.format_map(values)
        return RenderedPrompt(task_messages(self.template, values), self.schema())

    def parse(self, text: str) -> TaskAnswer:
        return parse_screening(text)


def parse_screening(text: str) -> TaskAnswer:
    """{"label": ..., "reason": ...} from an answer (also in fences or with text around); a
    label outside the four is a parse failure, never a guess."""
    for obj in json_objects(text if isinstance(text, str) else ""):
        lowered = {str(key).strip().lower(): value for key, value in obj.items()}
        raw = next((lowered[key] for key in _KEYS if isinstance(lowered.get(key), str)), None)
        if raw is None:
            continue
        label = "-".join(raw.strip().lower().replace("_", " ").replace("-", " ").split())
        if label not in LABELS:
            return TaskAnswer("parse_failure", None, f"the label {raw!r} is not one of {', '.join(LABELS)}")
        reason = next(
            (" ".join(str(lowered[key]).split()) for key in _REASONS if str(lowered.get(key) or "").strip()), None
        )
        return TaskAnswer("ok", {"label": label, "reason": reason}, reason)
    return TaskAnswer("parse_failure", None, "no JSON object with a label")


@dataclass
class ScreenRequest:
    model: str
    base_url: str | None = None
    params: dict | None = None
    concurrency: int | None = None
    use_cache: bool = True
    name: str | None = None
    template: str = SCREEN_TEMPLATE


def prepare_screening(
    store: Store, dataset_id: int, dataset_name: str, claim_ids: list[int], request: ScreenRequest
) -> PreparedRun:
    """The screening run for these claims: created, or found to continue (or reuse)."""
    from workbench.backends import parse_model_spec
    from workbench.config import load_settings
    from workbench.prompting import TemplateError
    from workbench.runs.setup import prepare_task_run
    from workbench.runs.types import RunSetupError

    try:
        template = load_task_template(request.template, "screen", load_settings().prompts_dir)
    except TemplateError as error:
        raise RunSetupError(str(error)) from None
    params = {"temperature": 0.0, "max_tokens": 120, **(request.params or {})}
    name = request.name or f"{parse_model_spec(request.model, request.base_url).short_name}-screens-{dataset_name}"
    return prepare_task_run(
        store,
        TaskRunRequest(
            task=ScreenTask(template),
            model=request.model,
            claim_ids=claim_ids,
            name=name,
            base_url=request.base_url,
            params=params,
            concurrency=request.concurrency,
            use_cache=request.use_cache,
            dataset_id=dataset_id,
            subset_filter=f'dataset:"{dataset_name}" (curation: screening)',
        ),
    )


def reopen_screening(store: Store, run: Run) -> PreparedRun:
    """A screening run prepared again from what it stored (to collect its batch)."""
    base_url = None if run.model.startswith("gguf:") else run.model_identity.get("base_url")
    dataset = store.datasets.by_id(run.dataset_id) if run.dataset_id else None
    return prepare_screening(
        store,
        run.dataset_id,
        dataset.name if dataset else "claims",
        store.runs.claim_ids(run.id),
        ScreenRequest(
            run.model, base_url, dict(run.params), name=run.name, template=run.prompt_name or SCREEN_TEMPLATE
        ),
    )


@dataclass
class Screened:
    removed: dict[int, str]
    """Claim id -> "label: reason", for the claims not labelled ok."""
    labels: dict[str, int]
    unreadable: int
    unanswered: int


def screened(store: Store, run: Run, claim_ids: list[int]) -> Screened:
    """What a screening run said about the claims (those it has not answered are counted)."""
    answers = {p.claim_id: p for p in store.runs.predictions(run.id)}
    removed, labels, unreadable, unanswered = {}, dict.fromkeys(LABELS, 0), 0, 0
    for claim_id in claim_ids:
        answer = answers.get(claim_id)
        if answer is None or answer.status == "error":
            unanswered += 1
        elif answer.status != "ok" or not isinstance(answer.parsed, dict):
            unreadable += 1
        else:
            label = answer.parsed.get("label")
            labels[label] = labels.get(label, 0) + 1
            if label != "ok":
                reason = answer.parsed.get("reason") or "no reason given"
                removed[claim_id] = f"{label}: {reason} (screened by {run.model}, run {run.name})"
    return Screened(removed, labels, unreadable, unanswered)


__all__ = [
    "LABELS",
    "ScreenRequest",
    "ScreenTask",
    "Screened",
    "parse_screening",
    "prepare_screening",
    "reopen_screening",
    "screened",
]
