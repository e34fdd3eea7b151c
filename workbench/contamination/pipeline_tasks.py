"""The contamination pipeline's two model steps as run-engine tasks.

ArticleTask: the target model writes a fact-checking article for a claim, from memory.
ExtractTask: an extractor model lists the evidence sentences of an article as JSON; the
article is either the claim's oracle fact-check (claim.article_text, else the one fetched from
its article_url by `workbench articles fetch`) or the answer an article run gave for the claim.

Both are RunTask objects (workbench.runs.types): the run engine renders, caches,
retries, commits and resumes them exactly as it does verdict runs.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from store import Claim, Store
from workbench.parsing import MAX_JSON_STARTS
from workbench.prompting import (  # noqa: F401 (load_task_template: the pipeline's way in)
    PromptError,
    RenderedPrompt,
    TaskTemplate,
    TemplatedTask,
    claim_values,
    load_task_template,
    task_messages,
    with_images,
)
from workbench.runs.types import TaskAnswer

ARTICLE_TEMPLATE = "contamination_article"
EXTRACT_TEMPLATE = "contamination_extract"
DEFAULT_MAX_EVIDENCE = 10
EXTRACT_TRIES = 3
EVIDENCE_KEYS = ("evidence", "evidence_sentences", "sentences", "items", "facts")
_FENCE = re.compile(r"```[a-zA-Z]*\s*\n?(.*?)```", re.S)


@dataclass
class ArticleTask(TemplatedTask):
    """Step 1: the target model writes a fact-checking article without evidence; with
    `image`, a claim's images go with it (as in a plain run's `+image` setting)."""

    image: bool = False
    kind: str = "article"
    tries: int = 1

    @property
    def source(self) -> str:
        return "the claim and its images (no evidence)" if self.image else "the claim alone (no evidence)"

    def configuration(self) -> dict[str, Any]:
        found = {"template": self.template.name, "template_hash": self.template.content_hash}
        return {**found, "image": True} if self.image else found  # text-only runs keep their keys

    def render(self, store: Store, claim: Claim) -> RenderedPrompt:
        messages = task_messages(self.template, {**claim_values(claim), "max_evidence": ""})
        if self.image and claim.images:  # the bytes go beside the messages (runs.requests)
            last = messages[-1]
            messages[-1] = {**last, "content": with_images(last["content"], claim.images, self.template.image)}
        return RenderedPrompt(messages, None)

    def retry_prompt(self, rendered: RenderedPrompt, attempt: int) -> RenderedPrompt:
        return rendered

    def parse(self, text: str) -> TaskAnswer:
        if not text.strip():
            return TaskAnswer("parse_failure", None, "the model wrote nothing")
        return TaskAnswer("ok")


@dataclass
class ExtractTask(TemplatedTask):
    """Step 2: an extractor model lists an article's evidence sentences.

    `article_run_id` None reads the oracle fact-check (claim.article_text, else the article
    fetched from claim.article_url); otherwise the
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
        return {
            "template": self.template.name,
            "template_hash": self.template.content_hash,
            "source": "oracle" if self.article_run_id is None else f"run:{self.article_run_id}",
            "max_evidence": self.max_evidence,
            "tries": self.tries,
        }

    def schema(self) -> dict[str, Any]:
        """Constrains a GGUF answer (and guides API ones) to {"evidence": [strings]}."""
        return {
            "type": "object",
            "additionalProperties": False,
            "required": ["evidence"],
            "properties": {"evidence": {"type": "array", "items": {"type": "string"}, "maxItems": self.max_evidence}},
        }

    def article(self, store: Store, claim: Claim) -> str:
        """The article to read for this claim; PromptError when there is none."""
        if self.article_run_id is None:
            from workbench.articles.oracle import oracle_article

            text = oracle_article(store, claim)  # the claim's own, else the one fetched from its article_url
            if not (text or "").strip():
                raise PromptError(
                    f"claim {claim.id} ({claim.external_id}) has no oracle article text"
                    " (`workbench articles fetch` gets it from the claim's article_url)"
                )
            return text
        prediction = store.runs.prediction(self.article_run_id, claim.id)
        if prediction is None or prediction.status != "ok" or not (prediction.raw_output or "").strip():
            raise PromptError(
                f"claim {claim.id} ({claim.external_id}) has no generated article in run {self.article_run_name}"
            )
        return prediction.raw_output

    def render(self, store: Store, claim: Claim) -> RenderedPrompt:
        values = {**claim_values(claim), "article": self.article(store, claim), "max_evidence": str(self.max_evidence)}
        values["answer"] = self.template.answer.format_map(values)
        return RenderedPrompt(task_messages(self.template, values), self.schema())

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
