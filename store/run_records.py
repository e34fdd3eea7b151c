"""A run, as the store reads and writes it (store.records); its answers are store.answer_records."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from store.records import RunStatus, record


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
