"""The contamination pipeline's two model steps as run-engine tasks.

ArticleTask: the target model writes a fact-checking article for a claim, from memory.
ExtractTask: an extractor model lists the evidence sentences of an article as JSON; the
article is either the claim's oracle fact-check (claim.article_text) or the answer an
article run gave for the claim.

Both are RunTask objects (workbench.runs.types): the run engine renders, caches,
retries, commits and resumes them exactly as it does verdict runs.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from store import Claim, Store
from workbench.config import load_settings
from workbench.parsing import MAX_JSON_STARTS
from workbench.prompt_templates import (
    CLAIM_FIELDS,
    TemplateError,
    available_templates,
    placeholders,
    template_dirs,
)
from workbench.prompting import PromptError, RenderedPrompt, marked_response
from workbench.runs.types import TaskAnswer

ARTICLE_TEMPLATE = "contamination_article"
EXTRACT_TEMPLATE = "contamination_extract"
DEFAULT_MAX_EVIDENCE = 10
EXTRACT_TRIES = 3
EVIDENCE_KEYS = ("evidence", "evidence_sentences", "sentences", "items", "facts")
_FENCE = re.compile(r"```[a-zA-Z]*\s*\n?(.*?)```", re.S)


@dataclass(frozen=True)
class TaskTemplate:
    """A contamination prompt file: system + user text, optional detail lines."""

    name: str
    kind: str
    system: str
    user: str
    details: dict[str, str]
    answer: str
    retry: str
    content_hash: str


def load_task_template(name: str, kind: str, extra: Path | None = None) -> TaskTemplate:
    """The template `name` of this kind from prompts/ or the user's prompts_dir."""
    extra = extra if extra is not None else load_settings().prompts_dir
    _report_unreadable(name, extra)  # else a broken override would fall back to the built-in silently
    files = available_templates(extra, kind=kind)
    if name not in files:
        raise TemplateError(f"no {kind} template {name!r}; available: {', '.join(sorted(files)) or 'none'}")
    path = files[name]
    raw = path.read_bytes()
    data = tomllib.loads(raw.decode("utf-8"))
    texts = {key: data.get(key, "") for key in ("system", "user", "answer", "retry")}
    details = data.get("details", {})
    if not isinstance(texts["user"], str) or not texts["user"].strip():
        raise TemplateError(f"{path}: missing `user`")
    if not all(isinstance(v, str) for v in [*texts.values(), *details.values()]):
        raise TemplateError(f"{path}: every text (and every [details] entry) must be a string")
    _check_placeholders(path, kind, texts, details)
    return TaskTemplate(name, kind, texts["system"], texts["user"], dict(details), texts["answer"],
                        texts["retry"], hashlib.sha256(raw).hexdigest())


def _report_unreadable(name: str, extra: Path | None) -> None:
    """A template file of that name that is not valid TOML is reported as such."""
    for folder in reversed(template_dirs(extra)):
        path = folder / f"{name}.toml"
        if path.is_file():
            try:
                tomllib.loads(path.read_text(encoding="utf-8"))
            except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
                raise TemplateError(f"{path}: not valid TOML: {error}") from None


def _check_placeholders(path: Path, kind: str, texts: dict[str, str], details: dict[str, str]) -> None:
    allowed = set(CLAIM_FIELDS) | {"details", "max_evidence"}
    if kind == "extract":
        allowed |= {"article", "answer"}
    for key, text in [*texts.items(), *((f"details.{k}", v) for k, v in details.items())]:
        unknown = placeholders(text, f"{path}: {key}") - allowed
        if unknown:
            raise TemplateError(f"{path}: {key} uses unknown placeholder(s) "
                                f"{', '.join('{' + n + '}' for n in sorted(unknown))}; known: {', '.join(sorted(allowed))}")


def claim_values(claim: Claim) -> dict[str, str]:
    """The claim fields a template may use (missing ones as empty text)."""
    values = {"claim": claim.text, "question": claim.question, "response": marked_response(claim),
              "time": claim.reference_time or claim.claim_date, "reference_time": claim.reference_time,
              "claim_date": claim.claim_date, "source": claim.source, "domain": claim.domain,
              "task": claim.task, "importance": claim.importance}
    return {key: value or "" for key, value in values.items()}


def _details(template: TaskTemplate, values: dict[str, str]) -> str:
    """Detail lines for the fields this claim has, each on its own line."""
    lines = [text.format_map(values) for text in template.details.values()
             if all(values.get(name) for name in placeholders(text, template.name))]
    return "".join("\n" + line for line in lines)


def _messages(template: TaskTemplate, values: dict[str, str]) -> list[dict[str, str]]:
    values = {**values, "details": _details(template, values)}
    messages = []
    if template.system.strip():
        messages.append({"role": "system", "content": template.system.format_map(values).strip()})
    messages.append({"role": "user", "content": template.user.format_map(values).strip()})
    return messages


@dataclass
class _TemplatedTask:
    """A pipeline step worded by a task template (the run records its name and hash)."""

    template: TaskTemplate

    @property
    def template_name(self) -> str:
        return self.template.name

    @property
    def template_hash(self) -> str:
        return self.template.content_hash


@dataclass
class ArticleTask(_TemplatedTask):
    """Step 1: the target model writes a fact-checking article without evidence."""

    kind: str = "article"
    tries: int = 1
    source: str = "the claim alone (no evidence)"

    def configuration(self) -> dict[str, Any]:
        return {"template": self.template.name, "template_hash": self.template.content_hash}

    def render(self, store: Store, claim: Claim) -> RenderedPrompt:
        return RenderedPrompt(_messages(self.template, {**claim_values(claim), "max_evidence": ""}), None)

    def retry_prompt(self, rendered: RenderedPrompt, attempt: int) -> RenderedPrompt:
        return rendered

    def parse(self, text: str) -> TaskAnswer:
        if not text.strip():
            return TaskAnswer("parse_failure", None, "the model wrote nothing")
        return TaskAnswer("ok")


@dataclass
class ExtractTask(_TemplatedTask):
    """Step 2: an extractor model lists an article's evidence sentences.

    `article_run_id` None reads the oracle fact-check (claim.article_text); otherwise the
    article is that run's answer for the claim.
    """

    article_run_id: int | None = None
    article_run_name: str | None = None
    max_evidence: int = DEFAULT_MAX_EVIDENCE
    kind: str = "extract"
    tries: int = EXTRACT_TRIES

    @property
    def source(self) -> str:
        return "oracle articles" if self.article_run_id is None else f"articles of run {self.article_run_name}"

    def configuration(self) -> dict[str, Any]:
        return {"template": self.template.name, "template_hash": self.template.content_hash,
                "source": "oracle" if self.article_run_id is None else f"run:{self.article_run_id}",
                "max_evidence": self.max_evidence, "tries": self.tries}

    def schema(self) -> dict[str, Any]:
        """Constrains a GGUF answer (and guides API ones) to {"evidence": [strings]}."""
        return {"type": "object", "additionalProperties": False, "required": ["evidence"],
                "properties": {"evidence": {"type": "array", "items": {"type": "string"},
                                            "maxItems": self.max_evidence}}}

    def article(self, store: Store, claim: Claim) -> str:
        """The article to read for this claim; PromptError when there is none."""
        if self.article_run_id is None:
            if not (claim.article_text or "").strip():
                raise PromptError(f"claim {claim.id} ({claim.external_id}) has no oracle article text")
            return claim.article_text
        prediction = store.runs.prediction(self.article_run_id, claim.id)
        if prediction is None or prediction.status != "ok" or not (prediction.raw_output or "").strip():
            raise PromptError(f"claim {claim.id} ({claim.external_id}) has no generated article in run"
                              f" {self.article_run_name}")
        return prediction.raw_output

    def render(self, store: Store, claim: Claim) -> RenderedPrompt:
        values = {**claim_values(claim), "article": self.article(store, claim), "max_evidence": str(self.max_evidence)}
        values["answer"] = self.template.answer.format_map(values)
        return RenderedPrompt(_messages(self.template, values), self.schema())

    def retry_prompt(self, rendered: RenderedPrompt, attempt: int) -> RenderedPrompt:
        """The same request with the template's nudge added to the last message."""
        messages = [dict(m) for m in rendered.messages]
        if self.template.retry.strip():
            messages[-1]["content"] += "\n\n" + self.template.retry.strip()
        return RenderedPrompt(messages, rendered.json_schema)

    def parse(self, text: str) -> TaskAnswer:
        evidence = parse_evidence_list(text)
        if evidence is None:
            return TaskAnswer("parse_failure", None, "not a JSON list of evidence sentences")
        return TaskAnswer("ok", {"evidence": evidence[: self.max_evidence]})


def parse_evidence_list(text: str) -> list[str] | None:
    """The evidence strings in an answer: {"evidence": [...]} or a bare JSON list, also
    inside ``` fences or with text around. Blank and repeated items are dropped; None
    when no list can be read."""
    text = text if isinstance(text, str) else ""
    for candidate in [text] + [m.group(1) for m in _FENCE.finditer(text)]:
        for value in _json_values(candidate):
            items = value if isinstance(value, list) else _items_of(value)
            if items is not None:
                return list(dict.fromkeys(t for t in map(_text_of, items) if t))
    return None


def _json_values(text: str):
    """JSON objects and lists found in `text`, in order of where they start."""
    decoder, tried = json.JSONDecoder(), 0
    starts = (i for i, char in enumerate(text) if char in "{[")
    for start in starts:
        tried += 1
        if tried > MAX_JSON_STARTS:
            return
        try:
            value, _ = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, (dict, list)):
            yield value


def _items_of(obj: dict) -> list | None:
    lowered = {str(k).strip().lower(): v for k, v in obj.items()}
    for key in EVIDENCE_KEYS:
        if isinstance(lowered.get(key), list):
            return lowered[key]
    return None


def _text_of(item: Any) -> str:
    """An evidence item as one line: a string, or the text of {"text": ...}-like objects."""
    if isinstance(item, dict):
        values = [v for v in item.values() if isinstance(v, str)]
        item = values[0] if len(values) == 1 else item.get("text") or item.get("sentence") or ""
    return " ".join(str(item).split()) if isinstance(item, (str, int, float)) else ""
