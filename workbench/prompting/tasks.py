"""Templates for runs that are not verdict runs (contamination steps, explanation judges):
a TOML file in prompts/ (or the user's prompts_dir) with `kind`, `system`, `user`, optional
[details] lines and `answer` / `retry` texts, filled with a claim's fields and whatever the
kind adds (KIND_PLACEHOLDERS). The run records the file's name and content hash. The
file is found and read by files.py, as verdict templates are.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from store import Claim
from workbench.config import setting
from workbench.prompting.files import TemplateError, available_templates, read_template_file, template_files
from workbench.prompting.messages import RenderedPrompt, marked_response
from workbench.prompting.templates import CLAIM_FIELDS, DEFAULT_IMAGE_WORDS, placeholders

KIND_PLACEHOLDERS = {
    "article": {"details", "max_evidence"},
    "averimatec": {"details", "answer", "reference", "predicted", "reference_count", "predicted_count"},
    "ev2r": {"details", "answer", "evidence_kind", "reference_evidence", "predicted_evidence"},
    "extract": {"details", "max_evidence", "article", "answer"},
    "judge": {"details", "answer", "gold_label", "gold_evidence", "verdict", "explanation"},
    "reformulate": {"details", "answer", "pairs", "count"},
    "screen": {"details", "answer"},
}
"""What a template of each kind may use besides the claim's fields."""


@dataclass(frozen=True)
class TaskTemplate:
    """A task prompt file: system + user text, optional detail lines."""

    name: str
    kind: str
    system: str
    user: str
    details: dict[str, str]
    answer: str
    retry: str
    content_hash: str
    image: str = DEFAULT_IMAGE_WORDS
    """Said before a claim's images when the task shows them (`image` in the file)."""


def load_task_template(name: str, kind: str, extra: Path | None = None) -> TaskTemplate:
    """The template `name` of this kind from prompts/ or the user's prompts_dir."""
    extra = extra if extra is not None else setting("prompts_dir")
    winners = template_files(name, extra)
    # Read first: a broken override would otherwise fall back to the built-in silently.
    file = read_template_file(winners[0]) if winners else None
    files = available_templates(extra, kind=kind)
    if name not in files:
        raise TemplateError(f"no {kind} template {name!r}; available: {', '.join(sorted(files)) or 'none'}")
    path = files[name]
    if file is None or file.path != path:
        file = read_template_file(path)
    data = file.data
    texts = {key: data.get(key, "") for key in ("system", "user", "answer", "retry")}
    image = data.get("image", DEFAULT_IMAGE_WORDS)
    details = data.get("details", {})
    if not isinstance(texts["user"], str) or not texts["user"].strip():
        raise TemplateError(f"{path}: missing `user`")
    if not all(isinstance(v, str) for v in [*texts.values(), *details.values(), image]):
        raise TemplateError(f"{path}: every text (and every [details] entry) must be a string")
    _check_placeholders(path, kind, texts, details)
    return TaskTemplate(
        name,
        kind,
        texts["system"],
        texts["user"],
        dict(details),
        texts["answer"],
        texts["retry"],
        file.content_hash,
        image,
    )


def _check_placeholders(path: Path, kind: str, texts: dict[str, str], details: dict[str, str]) -> None:
    allowed = set(CLAIM_FIELDS) | KIND_PLACEHOLDERS.get(kind, {"details"})
    for key, text in [*texts.items(), *((f"details.{k}", v) for k, v in details.items())]:
        unknown = placeholders(text, f"{path}: {key}") - allowed
        if unknown:
            raise TemplateError(
                f"{path}: {key} uses unknown placeholder(s) "
                f"{', '.join('{' + n + '}' for n in sorted(unknown))}; known: {', '.join(sorted(allowed))}"
            )


def claim_values(claim: Claim) -> dict[str, str]:
    """The claim fields a template may use (missing ones as empty text)."""
    values = {
        "claim": claim.text,
        "question": claim.question,
        "response": marked_response(claim),
        "time": claim.reference_time or claim.claim_date,
        "reference_time": claim.reference_time,
        "claim_date": claim.claim_date,
        "source": claim.source,
        "domain": claim.domain,
        "task": claim.task,
        "importance": claim.importance,
    }
    return {key: value or "" for key, value in values.items()}


def detail_lines(template: TaskTemplate, values: dict[str, str]) -> str:
    """Detail lines for the fields this claim has, each on its own line."""
    lines = [
        text.format_map(values)
        for text in template.details.values()
        if all(values.get(name) for name in placeholders(text, template.name))
    ]
    return "".join("\n" + line for line in lines)


def task_messages(template: TaskTemplate, values: dict[str, str]) -> list[dict[str, str]]:
    values = {**values, "details": detail_lines(template, values)}
    messages = []
    if template.system.strip():
        messages.append({"role": "system", "content": template.system.format_map(values).strip()})
    messages.append({"role": "user", "content": template.user.format_map(values).strip()})
    return messages


@dataclass
class TemplatedTask:
    """A task worded by a task template (the run records its name and hash)."""

    template: TaskTemplate

    @property
    def template_name(self) -> str:
        return self.template.name

    @property
    def template_hash(self) -> str:
        return self.template.content_hash

    def retry_prompt(self, rendered: RenderedPrompt, attempt: int) -> RenderedPrompt:
        """The same request with the template's nudge (its `retry` text, written with doubled
        braces like the other texts) added to the last message."""
        nudge = self.template.retry.strip().replace("{{", "{").replace("}}", "}")
        if not nudge:
            return rendered
        messages = [dict(m) for m in rendered.messages]
        messages[-1]["content"] += "\n\n" + nudge
        return RenderedPrompt(messages, rendered.json_schema)
