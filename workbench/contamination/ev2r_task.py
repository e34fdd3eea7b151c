"""The Ev2R judge as a run-engine task: for one claim and one part (questions only, or
question-answer pairs) a judge counts the atomic facts of the predicted and the reference
evidence and how many of each the other side supports.

The answer must hold the four counts as whole numbers (our keys, or the keys the organisers'
prompt asks for); counts that leave a precision or recall undefined (no facts on a side) or
that support more facts than there are are a judge parse failure: asked again, then kept
apart, never a recall of 0 made up from prose.
"""

from __future__ import annotations

import hashlib
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from store import Claim, Store
from workbench.contamination.ev2r_evidence import PART_WORDS, organisers, ours, predicted_pairs, reference_pairs
from workbench.parsing import json_objects
from workbench.prompting import PromptError, RenderedPrompt, TemplatedTask, TemplateError, claim_values, task_messages
from workbench.prompting.tasks import TaskTemplate
from workbench.runs.judge_repeats import judge_repeat
from workbench.runs.types import TaskAnswer

EV2R_TEMPLATE = "ev2r"
EV2R_TRIES = 3
USER_PREFIX = "user:"
"""A run's prompt name starts with this when the prompt came from the user's file."""
COUNT_KEYS = ("predicted_facts", "predicted_supported", "reference_facts", "reference_supported")
# The organisers' prompts name the same counts in words, ending in "evidence" (Q+A) or "questions".
_THEIR_KEYS = {
    "facts count predicted": "predicted_facts",
    "support predicted": "predicted_supported",
    "facts count reference": "reference_facts",
    "support reference": "reference_supported",
}
USER_FIELDS = ("claim", "reference_evidence", "predicted_evidence")
"""What a user's prompt file may fill: by these names, or three positional {} in this order."""


def user_template(path: Path) -> TaskTemplate:
    """A judge prompt from the user's text file (UTF-8), checked before any run starts."""
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except OSError as error:
        raise TemplateError(f"{path}: cannot read the prompt file: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise TemplateError(f"{path}: the prompt file is not UTF-8 text: {error}") from None
    try:
        fields = [name for _, name, _, _ in string.Formatter().parse(text) if name is not None]
    except ValueError as error:
        raise TemplateError(f"{path}: unbalanced braces ({error}); write a literal brace as {{{{ or }}}}") from None
    positional = [name for name in fields if name == "" or name.isdigit()]
    unknown = sorted({name for name in fields if name not in positional and name not in USER_FIELDS})
    if unknown:
        raise TemplateError(f"{path}: unknown placeholder {{{unknown[0]}}}; it may use {', '.join(USER_FIELDS)}")
    if positional and (len(positional) != 3 or len(positional) != len(fields)):
        raise TemplateError(
            f"{path}: {len(positional)} positional {{}} placeholders; the organisers' layout has exactly three"
            " (claim, reference evidence, predicted evidence) and no named ones"
        )
    if not text.strip():
        raise TemplateError(f"{path}: the prompt file is empty")
    name = USER_PREFIX + path.name
    return TaskTemplate(name, "ev2r", "", text, {}, "", "", hashlib.sha256(raw).hexdigest())


def is_users(prompt_name: str | None) -> bool:
    """Whether a run's prompt came from the user's file (else it is ours, from prompts/)."""
    return bool(prompt_name) and prompt_name.startswith(USER_PREFIX)


@dataclass
class Ev2rTask(TemplatedTask):
    """Judge one part of the evidence of one verdict run (the target) against the gold evidence."""

    target_run_id: int = 0
    target_run_name: str = ""
    part: str = "pairs"
    kind: str = "ev2r"
    tries: int = EV2R_TRIES
    repeats: int = 1

    @property
    def source(self) -> str:
        return f"{PART_WORDS[self.part]} of run {self.target_run_name}"

    def configuration(self) -> dict[str, Any]:
        found = {
            "template": self.template.name,
            "template_hash": self.template.content_hash,
            "target_run": self.target_run_id,
            "part": self.part,
            "tries": self.tries,
        }
        if self.repeats > 1:
            found["repeats"] = self.repeats
        return found

    def schema(self) -> dict[str, Any] | None:
        """Our prompt's four counts (a user's prompt names its own keys: no schema then)."""
        if is_users(self.template.name):
            return None
        count = {"type": "integer", "minimum": 0}
        return {
            "type": "object",
            "additionalProperties": False,
            "required": list(COUNT_KEYS),
            "properties": {key: count for key in COUNT_KEYS},
        }

    def render(self, store: Store, claim: Claim) -> RenderedPrompt:
        reference = reference_pairs(claim)
        if not reference:
            raise PromptError(f"claim {claim.id} ({claim.external_id}) has no reference question-answer evidence")
        predicted, _ = predicted_pairs(store.runs.prediction(self.target_run_id, claim.id))
        if not predicted:
            raise PromptError(
                f"claim {claim.id} ({claim.external_id}) has no predicted evidence in {self.target_run_name}"
            )
        if is_users(self.template.name):
            values = {
                "claim": claim.text,
                "reference_evidence": organisers(reference, self.part),
                "predicted_evidence": organisers(predicted, self.part),
            }
            return RenderedPrompt([{"role": "user", "content": _fill(self.template.user, values)}], None)
        values = {
            **claim_values(claim),
            "evidence_kind": PART_WORDS[self.part],
            "reference_evidence": ours(reference, self.part),
            "predicted_evidence": ours(predicted, self.part),
        }
        values["answer"] = self.template.answer.format_map(values)
        return RenderedPrompt(task_messages(self.template, values), self.schema())

    def parse(self, text: str) -> TaskAnswer:
        return parse_counts(text)

    def keep_repeat(self, store: Store, run_id, claim_id, repeat, parsed, completion, error, cached) -> None:
        """One repeat's counts (its recall kept as the repeat's score), a parse failure or an error."""
        repeat_kept = judge_repeat((run_id, claim_id, repeat), parsed, completion, error, cached, "recall")
        store.judging.record_repeat(repeat_kept)


def _fill(text: str, values: dict[str, str]) -> str:
    if any(name in ("", "0") for _, name, _, _ in string.Formatter().parse(text) if name is not None):
        return text.format(*(values[key] for key in USER_FIELDS))
    return text.format_map(values)


OVER_COUNTED = "over_counted"
"""Marks a refused reply's counts kept because they support more facts than there are."""


def parse_counts(text: str) -> TaskAnswer:
    """The four counts from a judge's answer (also in ``` fences or with text around), with
    the precision and recall they give; anything else is a parse failure saying why."""
    problem = "no JSON object with the four fact counts"
    for obj in json_objects(text if isinstance(text, str) else ""):
        counts = _counts(obj)
        if len(counts) < len(COUNT_KEYS):
            continue
        bad = next((key for key in COUNT_KEYS if _whole(counts[key]) is None), None)
        if bad is not None:
            return TaskAnswer("parse_failure", None, f"{bad} is {counts[bad]!r}, not a whole number >= 0")
        found = {key: _whole(counts[key]) for key in COUNT_KEYS}
        sides = [(side, found[f"{side}_facts"], found[f"{side}_supported"]) for side in ("predicted", "reference")]
        for side, facts, _ in sides:
            if facts == 0:
                return TaskAnswer("parse_failure", None, f"no {side} facts counted: its share is undefined")
        for side, facts, supported in sides:
            if supported > facts:  # kept: the organisers' scorer divides them anyway
                over = {**found, OVER_COUNTED: True}
                return TaskAnswer("parse_failure", over, f"{supported} of {facts} {side} facts supported")
        found["precision"] = found["predicted_supported"] / found["predicted_facts"]
        found["recall"] = found["reference_supported"] / found["reference_facts"]
        return TaskAnswer("ok", found, None)
    return TaskAnswer("parse_failure", None, problem)


def _counts(obj: dict) -> dict[str, Any]:
    found = {}
    for key, value in obj.items():
        words = " ".join(str(key).lower().replace("_", " ").replace("-", " ").split())
        if words.replace(" ", "_") in COUNT_KEYS:
            found[words.replace(" ", "_")] = value
            continue
        for prefix, ours_key in _THEIR_KEYS.items():
            if words in (prefix + " evidence", prefix + " questions"):
                found[ours_key] = value
    return found


def _whole(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    # ASCII digits only: "²".isdigit() is true but int("²") raises
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdecimal():
        return int(value.strip())
    if isinstance(value, float) and value.is_integer() and value >= 0:
        return int(value)
    if isinstance(value, int) and value >= 0:
        return value
    return None
