"""The AVerImaTeC judge as a run-engine task: for one claim and one part (questions,
image-text evidence, justification) a judge counts the reference items the prediction covers
and the predicted items the reference covers (for the justification: atomic facts).

Our prompts (prompts/averimatec*.toml) ask for the four counts of the Ev2R judge as JSON and
are read by the same parser; a user's prompt (`--prompt-file`) may instead ask for the
organisers' tagged lines, `[REF in PRED]: n` and `[PRED in REF]: n` (with the listed facts of
the justification under `[REF in PRED Exp]:` and `[PRED in REF Exp]:`). A reply that gives
neither is a parse failure: asked again, then kept apart, never a made-up recall.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Any

from store import Claim, Store
from workbench.contamination.averimatec_evidence import (
    PART_WORDS,
    Item,
    item_parts,
    joined,
    predicted_items,
    reference_items,
)
from workbench.contamination.ev2r_task import COUNT_KEYS, is_users, parse_counts
from workbench.prompting import PromptError, RenderedPrompt, TemplatedTask, claim_values
from workbench.prompting.tasks import detail_lines
from workbench.runs.types import TaskAnswer

TEMPLATES = {"questions": "averimatec-questions", "evidence": "averimatec", "justification": "averimatec-justification"}
TRIES = 3
_MARK = "\x00{token}{side}\x00"
"""Where a side's items go in the filled text; the token is new for each prompt, so a claim's
own text cannot name a place for items (the marks never reach the judge)."""
SHOWN = " (images shown)"
"""Ends a judge run's setting when the judge saw the images as images."""


@dataclass
class AverimatecTask(TemplatedTask):
    """Judge one part of one imported AVerImaTeC answer (the target run's) against the gold."""

    target_run_id: int = 0
    target_run_name: str = ""
    part: str = "evidence"
    vision: bool = False
    """Whether images go to the judge as images (else each is named in words)."""
    kind: str = "averimatec"
    tries: int = TRIES

    @property
    def source(self) -> str:
        return f"{PART_WORDS[self.part]} of run {self.target_run_name}" + (SHOWN if self.vision else "")

    def configuration(self) -> dict[str, Any]:
        return {
            "template": self.template.name,
            "template_hash": self.template.content_hash,
            "target_run": self.target_run_id,
            "part": self.part,
            "tries": self.tries,
            "vision": self.vision,
        }

    def schema(self) -> dict[str, Any] | None:
        """Our prompts' four counts (a user's prompt names its own layout: no schema then)."""
        if is_users(self.template.name):
            return None
        count = {"type": "integer", "minimum": 0}
        keys = list(COUNT_KEYS)
        return {
            "type": "object",
            "additionalProperties": False,
            "required": keys,
            "properties": dict.fromkeys(keys, count),
        }

    def render(self, store: Store, claim: Claim) -> RenderedPrompt:
        reference = reference_items(claim, self.part)
        predicted = predicted_items(store.runs.prediction(self.target_run_id, claim.id), self.part)
        if not reference or not predicted:
            side = (
                "no reference" if not reference else f"no predicted {PART_WORDS[self.part]} in {self.target_run_name}"
            )
            raise PromptError(f"claim {claim.id} ({claim.external_id}) has {side}")
        token = secrets.token_hex(8)
        marks = {side: _MARK.format(token=token, side=side) for side in ("reference", "predicted")}
        sides = {marks["reference"]: ("R", reference), marks["predicted"]: ("P", predicted)}
        if is_users(self.template.name):
            names = {
                "claim": claim.text,
                "reference_evidence": marks["reference"],
                "predicted_evidence": marks["predicted"],
            }
            text = _users_text(self.template.user, names)
            return RenderedPrompt([{"role": "user", "content": self._parts(text, sides)}], None)
        values = {
            **claim_values(claim),
            "reference_count": str(len(reference)),
            "predicted_count": str(len(predicted)),
            **marks,
        }
        values["details"] = detail_lines(self.template, values)
        values["answer"] = self.template.answer.format_map(values)
        messages = []
        if self.template.system.strip():
            messages.append({"role": "system", "content": self.template.system.format_map(values).strip()})
        user = self.template.user.format_map(values).strip()
        messages.append({"role": "user", "content": self._parts(user, sides)})
        return RenderedPrompt(messages, self.schema())

    def _parts(self, text: str, sides: dict[str, tuple[str, list[Item]]]) -> str | list[dict]:
        """The filled text with each side's marker replaced by its items' text and image parts."""
        parts: list[dict] = []
        for n, piece in enumerate(re.split("(" + "|".join(map(re.escape, sides)) + ")", text)):
            if n % 2:
                mark, items = sides[piece]
                parts.extend(item_parts(items, mark, self.vision))
            elif piece:
                parts.append({"type": "text", "text": piece})
        found = joined(parts)
        # A prompt without images stays one text (what a text-only backend takes).
        return found[0]["text"] if len(found) == 1 and found[0]["type"] == "text" else found

    def retry_prompt(self, rendered: RenderedPrompt, attempt: int) -> RenderedPrompt:
        """The same request with the template's nudge as a last text part."""
        nudge = self.template.retry.strip().replace("{{", "{").replace("}}", "}")
        if not nudge:
            return rendered
        messages = [dict(m) for m in rendered.messages]
        content = messages[-1]["content"]
        if isinstance(content, str):
            messages[-1]["content"] = content + "\n\n" + nudge
        else:
            messages[-1]["content"] = [*content, {"type": "text", "text": "\n\n" + nudge}]
        return RenderedPrompt(messages, rendered.json_schema)

    def parse(self, text: str) -> TaskAnswer:
        return parse_reply(text)


def _users_text(text: str, names: dict[str, str]) -> str:
    """A user's prompt filled with `names`: the claim's text, and the marks where each side's
    items go (by name, or the organisers' three positional {} in the order claim, reference, predicted)."""
    import string

    fields = [name for _, name, _, _ in string.Formatter().parse(text) if name is not None]
    if any(name in ("", "0") for name in fields):
        return text.format(*names.values())
    return text.format_map(names)


_TAG = {"reference_supported": r"\[REF in PRED\]:\s*(\d+)", "predicted_supported": r"\[PRED in REF\]:\s*(\d+)"}
_LISTED = {
    "reference_facts": r"\[REF in PRED Exp\]:(.*)",
    "predicted_facts": r"\[PRED in REF Exp\]:(.*?)(?:\[REF in PRED|$)",
}


def parse_reply(text: str) -> TaskAnswer:
    """Four counts as JSON (our prompts), or the organisers' tagged counts; else a parse
    failure saying why. Tagged counts carry the facts listed for them when the reply lists any."""
    found = parse_counts(text)
    if found.status == "ok" or found.parsed is not None or not isinstance(text, str):
        return found
    tags = {key: re.search(pattern, text) for key, pattern in _TAG.items()}
    if not all(tags.values()):
        return found
    counts: dict[str, Any] = {key: int(match.group(1)) for key, match in tags.items()}
    for key, pattern in _LISTED.items():
        listed = re.search(pattern, text, re.DOTALL)
        if listed:  # their facts are numbered "1. ", "2. ", ...
            counts[key] = len(re.findall(r"\b\d+\.\s", listed.group(1)))
    return TaskAnswer("ok", counts, None)
