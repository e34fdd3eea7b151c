"""Rendering a claim into the messages a model sees, in one input setting (settings.py)
with one template's words (templates.py) and the evidence windows of evidence.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from store import Claim
from workbench.prompting import evidence as windows
from workbench.prompting.settings import CONTEXTS, EVIDENCE_NEEDS, PromptError, Setting, answer_mode, check_setting
from workbench.prompting.templates import Template, placeholders


@dataclass(frozen=True)
class RenderedPrompt:
    """Exactly what is sent: the messages, and the JSON schema when JSON is asked for."""

    messages: list[dict[str, Any]]
    """Each content is text, or (with images) a list of text and image parts."""
    json_schema: dict[str, Any] | None


def needs(template: Template, setting: Setting, mode: str) -> set[str]:
    """What a claim must have for this setting: claim fields, and `evidence:KIND`."""
    parts = [
        template.system,
        template.user,
        template.contexts[setting.context],
        template.evidence[setting.evidence],
        template.answer[mode],
    ]
    fields = set(CONTEXTS[setting.context])
    for part in parts:
        fields |= placeholders(part, template.name) & set(_FIELD_READERS)
    fields.discard("claim")
    if setting.evidence != "none":
        fields.add(f"evidence:{setting.evidence}")
    return fields


def lacks(claim: Claim, wanted: set[str]) -> list[str]:
    """The needs in `wanted` this claim does not meet (empty: it can be rendered)."""
    missing = []
    for need in sorted(wanted):
        if need.startswith("evidence:"):
            if not _EVIDENCE_TEXT[need.split(":", 1)[1]](claim):
                missing.append(need)
        elif not _FIELD_READERS[need](claim):
            missing.append(need)
    return missing


def describe_need(need: str, article: bool = True) -> str:
    """A need in words for error messages; without the article it follows "has no"."""
    if need.startswith("evidence:"):
        words = EVIDENCE_NEEDS[need.split(":", 1)[1]]
    else:
        words = "a reference time or claim date" if need == "time" else f"a {need.replace('_', ' ')}"
    return words if article else words.removeprefix("a ")


def render(claim: Claim, template: Template, setting: Setting, json_answer: bool | None = None) -> RenderedPrompt:
    """The messages for one claim (PromptError if the claim lacks what the setting shows)."""
    check_setting(template, setting)
    mode = answer_mode(template, json_answer)
    missing = lacks(claim, needs(template, setting, mode))
    if missing:
        lacking = ", no ".join(describe_need(need, article=False) for need in missing)
        raise PromptError(
            f"claim {claim.id} ({claim.external_id}) has no {lacking},"
            f" which template {template.name!r} shows in setting {setting.name}"
        )
    values = {name: reader(claim) or "" for name, reader in _FIELD_READERS.items()}
    values["verdicts"] = _listing(template.answer_labels)
    parts = {
        "context": _fill(template.contexts[setting.context], values),
        "evidence": _fill(
            template.evidence[setting.evidence],
            {**values, "evidence_text": _EVIDENCE_TEXT[setting.evidence](claim) or ""},
        ),
        "answer": _fill(template.answer[mode], values),
    }
    messages = []
    system = _fill(template.system, {**values, **parts}).strip()
    if system:
        messages.append({"role": "system", "content": system})
    user = _fill(template.user, {**values, **parts}).strip()
    images = claim.images if setting.image else []
    messages.append({"role": "user", "content": with_images(user, images, template.image) if images else user})
    return RenderedPrompt(messages, answer_schema(template) if mode == "json" else None)


def with_images(text: str, images, words: str) -> list[dict]:
    """A user message's content with the claim's images after its text (backends.images
    turns the parts into each provider's form; the bytes travel beside the messages)."""
    parts: list[dict] = [{"type": "text", "text": text}, {"type": "text", "text": words}]
    for image in images:
        if image.sha256 is not None:
            parts.append({"type": "image", "sha256": image.sha256, "mime": image.mime})
        else:
            parts.append({"type": "image", "url": image.url})
    return parts


def answer_schema(template: Template) -> dict[str, Any]:
    """The JSON shape of an answer: the verdict field first (an enum), then text fields."""
    first, *rest = template.output_fields
    properties = {first: {"type": "string", "enum": template.answer_labels}}
    properties.update({name: {"type": "string"} for name in rest})
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def _fill(text: str, values: dict[str, str]) -> str:
    return text.format_map(values)


def _listing(labels: list[str]) -> str:
    if not all(label.isascii() for label in labels):
        return "、".join(labels)  # Japanese (or other) labels: no English "or" among them
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " or " + labels[-1]


def marked_response(claim: Claim) -> str | None:
    """The response with the claim's span wrapped in « », when its offsets are known."""
    response, start, end = claim.response, claim.claim_start, claim.claim_end
    if not response or start is None or end is None or not 0 <= start < end <= len(response):
        return response
    return f"{response[:start]}«{response[start:end]}»{response[end:]}"


_FIELD_READERS = {
    "claim": lambda c: c.text,
    "question": lambda c: c.question,
    "response": marked_response,
    "time": lambda c: c.reference_time or c.claim_date,
    "reference_time": lambda c: c.reference_time,
    "claim_date": lambda c: c.claim_date,
    "source": lambda c: c.source,
    "domain": lambda c: c.domain,
    "task": lambda c: c.task,
    "importance": lambda c: c.importance,
}


def _source_line(window: windows.Window) -> str:
    parts = [p for p in (window.title, f"<{window.url}>" if window.url else None) if p]
    return " ".join(parts)


def _clipped(window: windows.Window) -> str:
    return ("…" if window.clipped_before else "") + window.text + ("…" if window.clipped_after else "")


def _reference_text(claim: Claim) -> str | None:
    passages = windows.reference_passages(claim)
    blocks = [
        (f"[{n}] {_source_line(w)}\n" if _source_line(w) else f"[{n}]\n") + f'"{w.text}"'
        for n, w in enumerate(passages, 1)
    ]
    return "\n\n".join(blocks) or None


def _full_text(claim: Claim) -> str | None:
    window = windows.full_window(claim)
    if window is None:
        return None
    source = _source_line(window)
    return (f"Page: {source}\n" if source else "") + _clipped(window)


def _pages_text(claim: Claim) -> str | None:
    pages = windows.page_windows(claim)
    blocks = [f"[Page {n}] {_source_line(w) or '(no title)'}\n{_clipped(w)}" for n, w in enumerate(pages, 1)]
    return "\n\n".join(blocks) or None


def _qa_text(claim: Claim) -> str | None:
    pairs = windows.qa_pairs(claim)
    return "\n".join(f"{n}. {windows.qa_text(item)}" for n, item in enumerate(pairs, 1)) or None


_EVIDENCE_TEXT = {
    "none": lambda claim: "",
    "reference": _reference_text,
    "full": _full_text,
    "pages": _pages_text,
    "qa": _qa_text,
}


def gold_evidence_text(claim: Claim) -> str | None:
    """What the benchmark's fact-checkers relied on, for a judge: their justification, else
    the question-answer evidence, the quoted passages, or the cited page's window."""
    if (claim.justification or "").strip():
        return claim.justification.strip()
    for evidence_of in (_qa_text, _reference_text, _full_text):
        text = evidence_of(claim)
        if text:
            return text
    return None
