"""A model's answer to one claim in one run, as the store reads and writes it (store.records)."""

from __future__ import annotations

from typing import Any

from store.records import PredictionOutcome, PredictionStatus, record


@record
class Prediction:
    """A model's finished answer for one claim in one run."""

    id: int | None = None
    run_id: int
    claim_id: int
    status: PredictionStatus
    """ok (a verdict in the label space), abstain, parse_failure, or error (no answer)."""
    verdict: str | None = None
    raw_verdict: str | None = None
    explanation: str | None = None
    raw_output: str | None = None
    parsed: Any = None
    """Structured output, e.g. the evidence list of an extraction step."""
    error: str | None = None
    attempts: int = 1
    latency_s: float | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    finish_reason: str | None = None
    cached: bool = False
    created_at: str | None = None
    prompt_eval_tokens: int | None = None
    """A local model: prompt tokens evaluated (a prefix shared with an earlier prompt is not)."""
    prompt_eval_ms: float | None = None
    eval_tokens: int | None = None
    """A local model: tokens evaluated while generating."""
    eval_ms: float | None = None
    tokens_cached: int | None = None
    """Prompt tokens the provider served from its prompt cache."""
    batched: bool = False
    """Answered through a provider's batch API (its batch price)."""
    outcome: PredictionOutcome | None = None
    """Against the claim's gold label, kept by the store (never written by callers):
    correct, wrong, abstain or parse_failure when the gold label is scored, unscored when it
    is not, error for an API error."""
