"""A run's answers as Every Eval Ever instance-level records: one per claim, built with the
every-eval-ever package's own `InstanceLevelEvaluationLog` (the `eee` extra, imported inside
each function).

A claim's record holds the claim text as the raw input, the prompt as the run sent it (the
run's template rendered again in its setting) as the formatted input, the gold label as the
reference, the label space as the choices, the raw answer as the output, the parsed verdict
as the extracted answer, and whether it was right. A search run's record is `agentic`: its
steps are tool calls and tool results before the answer. docs/exporting.md lists what is lost.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from store import Claim, Prediction, Run, Store

EXTRACTION_METHOD = "workbench verdict parser"
"""How a verdict was read from the answer (an imported run's verdicts came parsed)."""
IMAGE_PLACEHOLDER = "[image {what}: not carried into the record]"


@dataclass
class InstanceContext:
    """What every record of one run shares: looked up once."""

    store: Store
    run: Run
    schema_version: str
    evaluation_id: str
    evaluation_name: str
    result_id: str | None
    """The aggregate result each record's correctness counts towards (accuracy)."""
    model_id: str
    choices: list[str]
    template: Any


def instance_records(context: InstanceContext) -> list:
    """One InstanceLevelEvaluationLog per answered claim, in run order."""
    store, run = context.store, context.run
    return [_record(context, p, store.claims.get(p.claim_id)) for p in store.runs.predictions(run.id)]


def _record(context: InstanceContext, prediction: Prediction, claim: Claim):
    from every_eval_ever.instance_level_types import InstanceLevelEvaluationLog

    run = context.run
    reference = [claim.label] if claim.label else []
    steps = context.store.search.trajectory(run.id, claim.id) if run.params.get("search") else []
    answer, prompt = prediction.raw_output or "", _prompt_text(context, claim)
    conversation = {"output": {"raw": [answer]}}
    kind = "single_turn"
    if steps:
        kind = "agentic"
        conversation = {"messages": _messages(prompt, steps, answer)}
    right, calls = prediction.outcome == "correct", sum(1 for step in steps if step.kind != "answer")
    return InstanceLevelEvaluationLog.model_validate(
        {
            "schema_version": context.schema_version,
            "evaluation_id": context.evaluation_id,
            "model_id": context.model_id,
            "evaluation_name": context.evaluation_name,
            # API errors and unscored gold labels do not count towards accuracy
            "evaluation_result_id": context.result_id if prediction.outcome not in ("unscored", "error") else None,
            "sample_id": claim.external_id or f"claim-{claim.id}",
            "sample_hash": hashlib.sha256((claim.text + "".join(reference)).encode()).hexdigest(),
            "interaction_type": kind,
            "input": {"raw": claim.text, "formatted": prompt, "reference": reference, "choices": context.choices},
            **conversation,
            "answer_attribution": _attribution(prediction, len(conversation.get("messages", [None])) - 1),
            "evaluation": {"score": 1.0 if right else 0.0, "is_correct": right, "tool_calls_count": calls or None},
            "token_usage": _usage(prediction),
            "performance": {"latency_ms": prediction.latency_s * 1000} if prediction.latency_s is not None else None,
            "error": prediction.error,
            "metadata": _metadata(context, prediction, claim),
        }
    )


def _attribution(prediction: Prediction, last_turn: int) -> list[dict]:
    """The verdict read from the answer; none for an answer with no verdict (an error, an
    unreadable answer): the schema's extracted value is text, and there is none to give."""
    if prediction.verdict is None:
        return []
    source = "output.raw" if last_turn == 0 else f"messages[{last_turn}].content"
    return [
        {
            "turn_idx": last_turn,
            "source": source,
            "extracted_value": prediction.verdict,
            "extraction_method": EXTRACTION_METHOD,
            "is_terminal": True,
        }
    ]


def _usage(prediction: Prediction) -> dict | None:
    if prediction.tokens_in is None and prediction.tokens_out is None:
        return None
    tokens_in, tokens_out = prediction.tokens_in or 0, prediction.tokens_out or 0
    return {
        "input_tokens": tokens_in,
        "output_tokens": tokens_out,
        "total_tokens": tokens_in + tokens_out,
        "input_tokens_cache_read": prediction.tokens_cached,
    }


def _metadata(context: InstanceContext, prediction: Prediction, claim: Claim) -> dict[str, Any]:
    store = context.store
    found = {
        "claim_id": claim.id,
        "status": prediction.status,
        "outcome": prediction.outcome,
        "verdict": prediction.verdict,
        "raw_verdict": prediction.raw_verdict,
        "explanation": prediction.explanation,
        "importance": claim.importance,
        "claim_date": claim.claim_date,
        "flags": sorted({flag.kind for flag in store.annotations.flags_for(claim.id)}),
        "failure_categories": [c.name for c in store.annotations.categories_for(prediction.id)]
        if prediction.id is not None
        else [],
        "attempts": prediction.attempts,
        "cached": prediction.cached,
    }
    return {key: value for key, value in found.items() if value not in (None, [], "")}


def _prompt_text(context: InstanceContext, claim: Claim) -> str | None:
    """The prompt as the run sent it, one `role: text` block per message; None where it
    cannot be rendered again (an imported run, a template gone, a claim changed)."""
    from workbench.prompting import PromptError, parse_setting, render

    run = context.run
    if context.template is None or not run.setting:
        return None
    try:
        rendered = render(claim, context.template, parse_setting(run.setting), run.params.get("json"))
    except (PromptError, ValueError):
        return None
    return "\n\n".join(f"{m['role']}: {_text(m['content'])}" for m in rendered.messages)


def _text(content: Any) -> str:
    """Text stays text; image parts become a placeholder (the pictures stay in the database)."""
    if isinstance(content, str):
        return content
    parts = []
    for part in content:
        if part.get("type") == "text":
            parts.append(part["text"])
        else:
            parts.append(IMAGE_PLACEHOLDER.format(what=part.get("url") or f"sha256 {part.get('sha256')}"))
    return "\n".join(parts)


def _messages(prompt: str | None, steps: list, answer: str) -> list[dict]:
    """A search run's conversation: the prompt, each step's tool call and its results, the answer."""
    messages: list[dict] = [{"role": "user", "content": prompt}]
    for step in steps:
        if step.kind == "answer":
            continue
        call_id = f"step-{step.step}"
        call = {"id": call_id, "name": step.tool or step.kind, "arguments": _arguments(step)}
        messages.append({"role": "assistant", "content": step.text or None, "tool_calls": [call]})
        messages.append({"role": "tool", "content": _results_text(step), "tool_call_id": [call_id]})
    messages.append({"role": "assistant", "content": answer})
    return [{"turn_idx": index, **message} for index, message in enumerate(messages)]


def _arguments(step) -> dict[str, str]:
    """The schema wants the arguments' values as text."""
    found: Any = {"query": step.query} if step.query else {}
    if step.arguments:
        try:
            found = json.loads(step.arguments)
        except ValueError:
            found = {"raw": step.arguments}
    if not isinstance(found, dict):
        found = {"value": found}
    return {str(k): v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for k, v in found.items()}


def _results_text(step) -> str:
    lines = [step.note] if step.note else []
    for result in step.results:
        lines.append(f"[{result.rank}] {result.title or ''} {result.url or ''}".rstrip())
        if result.snippet:
            lines.append(result.snippet)
    return "\n".join(lines) or "(no results)"
