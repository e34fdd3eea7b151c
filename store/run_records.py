"""A run and its answers, as the store reads and writes them (store.records)."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from store.records import PredictionOutcome, PredictionStatus, RunStatus, record


@record
class Run:
    """One model configuration applied to a fixed list of claims."""

    id: int | None = None
    name: str
    kind: str = "verdict"
    """verdict (fact-checking), article / extract (contamination steps), judge."""
    dataset_id: int | None = None
    model: str
    model_identity: dict[str, Any] = field(default_factory=dict)
    prompt_name: str | None = None
    prompt_hash: str | None = None
    setting: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    subset_filter: str | None = None
    config_key: str | None = None
    status: RunStatus = "pending"
    created_at: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    versions: dict[str, Any] = field(default_factory=dict)
    notes: str | None = None
    owner: str | None = None
    """host:pid of the process executing the run while it is running; BATCH_OWNER while its
    requests wait in a provider's batch API."""
    target_run_id: int | None = None
    """A judge run: the verdict run whose explanations it scores."""
    engine: dict[str, Any] = field(default_factory=dict)
    """A local model's engine settings when the run was created (threads, batch size, the
    llama.cpp build's CPU features): what a reproduction has to match."""
    max_cost: float | None = None
    """The budget (--max-cost, US dollars) the run was started or last resumed with; None: none."""


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
