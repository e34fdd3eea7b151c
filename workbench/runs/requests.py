"""What a run asks a model about one claim, and what it makes of the answer: requests for
verdict and task runs (with image bytes), predictions from completions, and the response
cache's key (tool calls kept with a cached answer)."""

from __future__ import annotations

import dataclasses
import hashlib
import json

from store import Claim, Prediction, Store
from store.records import to_json
from workbench.backends import Completion, CompletionRequest, ToolCall
from workbench.parsing import parse_answer
from workbench.prompting import RenderedPrompt, render
from workbench.runs.types import PreparedRun
from workbench.search.shown_images import image_bytes


def cache_key(identity: dict, request: CompletionRequest) -> str:
    """The response cache key: model identity + exact messages + sampling params (+ tools)."""
    asked = {
        "identity": identity,
        "messages": request.messages,
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
        "seed": request.seed,
        "json_schema": request.json_schema,
        "stop": request.stop,
    }
    if request.tools:  # only then: the keys of every earlier answer stay as they were
        asked["tools"] = request.tools
        if request.answer_only:
            asked["answer_only"] = True
    if request.repeat:  # the same question asked again: its own answer, kept under its own key
        asked["repeat"] = request.repeat
    return hashlib.sha256(to_json(asked).encode()).hexdigest()


def tool_calls_text(calls) -> str | None:
    return json.dumps([[c.id, c.name, c.arguments] for c in calls]) if calls else None


def tool_calls_of(text: str | None) -> tuple[ToolCall, ...]:
    return tuple(ToolCall(*call) for call in json.loads(text)) if text else ()


def verdict_request(prepared: PreparedRun, claim: Claim, store: Store | None = None) -> CompletionRequest:
    """What a verdict run asks the model about one claim (PromptError if it cannot be
    rendered); with `store`, the bytes of the claim's images go along."""
    rendered = render(claim, prepared.template, prepared.setting, prepared.json_answer)
    params = prepared.params
    return CompletionRequest(
        rendered.messages,
        int(params["max_tokens"]),
        float(params.get("temperature") or 0.0),
        params.get("seed"),
        rendered.json_schema,
        images=image_bytes(store, rendered.messages) if store is not None else {},
    )


def spent(completion: Completion) -> dict:
    """A completion's tokens and timings as Prediction fields."""
    timings = completion.timings
    return {
        "latency_s": completion.latency_s,
        "tokens_in": completion.tokens_in,
        "tokens_out": completion.tokens_out,
        "tokens_cached": completion.tokens_cached,
        "prompt_eval_tokens": timings.prompt_tokens if timings else None,
        "prompt_eval_ms": round(timings.prompt_ms, 3) if timings else None,
        "eval_tokens": timings.generated_tokens if timings else None,
        "eval_ms": round(timings.generation_ms, 3) if timings else None,
    }


def verdict_prediction(
    prepared: PreparedRun, claim_id: int, completion: Completion, attempts: int, cached: bool
) -> Prediction:
    """A model's answer about one claim, parsed into the dataset's label space."""
    answer = parse_answer(
        completion.text, prepared.label_space, tuple(prepared.template.output_fields[:1]), prepared.allowed_verdicts
    )
    return Prediction(
        run_id=prepared.run.id,
        claim_id=claim_id,
        status=answer.status,
        verdict=answer.verdict,
        raw_verdict=answer.raw_verdict,
        explanation=answer.explanation,
        raw_output=completion.text,
        parsed=answer.parsed,
        attempts=attempts,
        finish_reason=completion.finish_reason,
        cached=cached,
        **spent(completion),
    )


REPEAT_SEED_STEP = 1000
"""Repeat r of a seeded task asks with seed + r * REPEAT_SEED_STEP (+ the try): a seeded
model would otherwise give the same answer every time."""


def task_request(
    prepared: PreparedRun, rendered: RenderedPrompt, attempt: int = 0, repeat: int = 0, store: Store | None = None
) -> CompletionRequest:
    """A task's request; each retry gets the next seed (with the nudge, a new answer), and
    each repeat its own cache key. With `store`, the bytes of any images the messages show
    go along (an article written with the claim's images)."""
    params = prepared.params
    seed = params.get("seed")
    return CompletionRequest(
        rendered.messages,
        int(params["max_tokens"]),
        float(params.get("temperature") or 0.0),
        None if seed is None else int(seed) + attempt + repeat * REPEAT_SEED_STEP,
        rendered.json_schema,
        repeat=repeat,
        images=image_bytes(store, rendered.messages) if store is not None else {},
    )


def item_request(store: Store, prepared: PreparedRun, claim: Claim) -> CompletionRequest:
    """The first request about one claim, for a verdict run or a task run (PromptError if
    it cannot be rendered): what a batch sends."""
    if prepared.task is None:
        return verdict_request(prepared, claim, store)
    return task_request(prepared, prepared.task.render(store, claim), store=store)


def item_prediction(
    prepared: PreparedRun, claim_id: int, completion: Completion, attempts: int, cached: bool, batched: bool = False
) -> Prediction:
    """One answer read into a prediction: parsed into the label space, or by the task."""
    if prepared.task is None:
        prediction = verdict_prediction(prepared, claim_id, completion, attempts, cached)
        return dataclasses.replace(prediction, batched=batched) if batched else prediction
    parsed = prepared.task.parse(completion.text)
    return Prediction(
        run_id=prepared.run.id,
        claim_id=claim_id,
        status=parsed.status,
        explanation=parsed.explanation,
        raw_output=completion.text,
        parsed=parsed.parsed,
        attempts=attempts,
        finish_reason=completion.finish_reason,
        cached=cached,
        batched=batched,
        **spent(completion),
    )
