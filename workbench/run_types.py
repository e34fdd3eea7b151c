"""The run engine's public data: what a user asks for, what a prepared run holds, and the
events a run reports. `workbench.runner` re-exports all of it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Union

from store import LabelSpace, Prediction, Run, RunProgress
from workbench.backends import ModelSpec
from workbench.prompt_templates import Template
from workbench.prompting import Setting


@dataclass
class RunRequest:
    """What a user asked to run."""

    model: str = "gguf:default"
    setting: str = "claim"
    prompt: str = "jsfactcheck"
    """A template name, or "auto": the template named after the claims' label space."""
    dataset: str | None = None
    filter: str = ""
    claim_ids: list[int] | None = None
    """An explicit subset; it beats dataset and filter."""
    base_url: str | None = None
    params: dict = field(default_factory=dict)
    """temperature, max_tokens, seed, n_ctx, n_threads, n_gpu_layers, timeout, attempts,
    json (ask for JSON or text), json_format (schema / object / off, API models)."""
    concurrency: int | None = None
    name: str | None = None
    use_cache: bool = True
    resume: str | None = None
    """A run name or id to continue with its own configuration."""
    limit: int | None = None
    """At most this many claims (the first ones in id order)."""


class RunSetupError(Exception):
    """A clear message for the user, raised before any work starts."""


@dataclass
class PreparedRun:
    """A validated run: its row in the store and everything needed to execute it."""

    run: Run
    pending_claim_ids: list[int]
    total: int
    resumed: bool
    """True when this continues an unfinished run instead of starting one."""
    spec: ModelSpec
    template: Template
    setting: Setting
    json_answer: bool
    params: dict[str, Any]
    label_space: LabelSpace
    allowed_verdicts: list[str]
    concurrency: int
    use_cache: bool = True

    @property
    def run_id(self) -> int:
        return self.run.id


@dataclass
class RunStarted:
    run_id: int
    name: str
    total: int
    pending: int


@dataclass
class ItemFinished:
    run_id: int
    claim_id: int
    prediction: Prediction
    progress: RunProgress


@dataclass
class RunFinished:
    run_id: int
    status: str
    """finished, cancelled or failed."""
    progress: RunProgress
    message: str | None = None
    """Why a run failed (e.g. the API key was refused)."""


RunEvent = Union[RunStarted, ItemFinished, RunFinished]
