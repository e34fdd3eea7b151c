"""The explanation judge as a run-engine task: a judge model scores one claim's explanation.

JudgeTask reads the target run's answer for the claim (verdict and explanation) and shows
the judge the claim, the gold label and the gold evidence (prompts/judge_explanation.toml).
The answer must hold a score from 0 to 10; anything else is a judge parse failure (asked
again with a nudge, then recorded as such), never a number made up from prose.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from store import Claim, Store
from workbench.parsing import json_objects
from workbench.prompting import (
    PromptError,
    RenderedPrompt,
    TemplatedTask,
    claim_values,
    gold_evidence_text,
    task_messages,
)
from workbench.runs.judge_repeats import judge_repeat
from workbench.runs.types import TaskAnswer

JUDGE_TEMPLATE = "judge_explanation"
JUDGE_TRIES = 3
SCORE_RANGE = (0.0, 10.0)
REASON_KEYS = ("justification", "reason", "rationale", "explanation")


@dataclass
class JudgeTask(TemplatedTask):
    """Score the explanations of one verdict run (the target)."""

    target_run_id: int = 0
    target_run_name: str = ""
    kind: str = "judge"
    tries: int = JUDGE_TRIES
    repeats: int = 1
    """How many times the judge is asked about each explanation (`judge --repeats K`)."""

    @property
    def source(self) -> str:
        return f"explanations of run {self.target_run_name}"

    def configuration(self) -> dict[str, Any]:
        found = {
            "template": self.template.name,
            "template_hash": self.template.content_hash,
            "target_run": self.target_run_id,
            "tries": self.tries,
        }
        if self.repeats > 1:  # only then: a judge run of one answer keeps its configuration key
            found["repeats"] = self.repeats
        return found

    def keep_repeat(
        self,
        store: Store,
        run_id: int,
        claim_id: int,
        repeat: int,
        parsed: TaskAnswer | None,
        completion,
        error: str | None,
        cached: bool,
    ) -> None:
        """Commit one repeat's outcome: a readable score, a parse failure or an error (a
        failure is never a score)."""
        repeat_kept = judge_repeat(
            (run_id, claim_id, repeat), parsed, completion, error, cached, "score", "justification"
        )
        store.judging.record_repeat(repeat_kept)

    def schema(self) -> dict[str, Any]:
        """Constrains a GGUF answer (and guides API ones) to {"score": n, "justification": s}."""
        return {
            "type": "object",
            "additionalProperties": False,
            "required": ["score", "justification"],
            "properties": {
                "score": {"type": "integer", "minimum": 0, "maximum": 10},
                "justification": {"type": "string"},
            },
        }

    def render(self, store: Store, claim: Claim) -> RenderedPrompt:
        answer = store.runs.prediction(self.target_run_id, claim.id)
        if answer is None or answer.status not in ("ok", "abstain") or not (answer.explanation or "").strip():
            raise PromptError(
                f"claim {claim.id} ({claim.external_id}) has no explanation in run {self.target_run_name}"
            )
        if not claim.label:
            raise PromptError(f"claim {claim.id} ({claim.external_id}) has no gold label to judge against")
        values = {
            **claim_values(claim),
            "gold_label": claim.label,
            "gold_evidence": gold_evidence_text(claim) or "(none recorded)",
            "verdict": answer.verdict or answer.raw_verdict or "(none)",
            "explanation": answer.explanation,
        }
        values["answer"] = self.template.answer.format_map(values)
        return RenderedPrompt(task_messages(self.template, values), self.schema())

    def parse(self, text: str) -> TaskAnswer:
        return parse_judgment(text)


def parse_judgment(text: str) -> TaskAnswer:
    """{"score": 0..10, "justification": "..."} from a judge's answer (also in ``` fences
    or with text around); a missing, unreadable or out-of-range score is a parse failure."""
    for obj in json_objects(text if isinstance(text, str) else ""):
        lowered = {str(key).strip().lower(): value for key, value in obj.items()}
        if "score" not in lowered:
            continue
        score = _number(lowered["score"])
        if score is None:
            return TaskAnswer("parse_failure", None, f"the score {lowered['score']!r} is not a number")
        low, high = SCORE_RANGE
        if not low <= score <= high:
            return TaskAnswer("parse_failure", None, f"the score {score:g} is outside {low:g}-{high:g}")
        reason = next((str(lowered[key]).strip() for key in REASON_KEYS if str(lowered.get(key) or "").strip()), None)
        return TaskAnswer("ok", {"score": score, "justification": reason}, reason)
    return TaskAnswer("parse_failure", None, "no JSON object with a score")


def _number(value: Any) -> float | None:
    """A score written as a number (or a string holding only one); None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    return None
