"""The run engine: a model applied to a fixed list of claims, one committed row per answer.

Public API (the TUI builds against exactly this):
    RunRequest, RunSetupError, PreparedRun, prepare_run, execute_run, run_blocking,
    RunEvent = RunStarted | ItemFinished | RunFinished.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Union

from store import Prediction, Run, RunProgress, Store


@dataclass
class RunRequest:
    """What a user asked to run."""

    model: str = "gguf:default"
    setting: str = "claim"
    prompt: str = "jsfactcheck"
    dataset: str | None = None
    filter: str = ""
    claim_ids: list[int] | None = None  # an explicit subset beats the filter
    base_url: str | None = None
    params: dict = field(default_factory=dict)
    """temperature, max_tokens, seed, n_ctx, n_threads, n_gpu_layers, timeout."""
    concurrency: int | None = None
    name: str | None = None
    use_cache: bool = True
    resume: str | None = None
    limit: int | None = None


class RunSetupError(Exception):
    """A clear message for the user, raised before any work starts."""


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
    progress: RunProgress


RunEvent = Union[RunStarted, ItemFinished, RunFinished]


@dataclass
class PreparedRun:
    """A validated run: its row in the store and everything needed to execute it."""

    run: Run
    pending_claim_ids: list[int]
    resumed: bool = False


def prepare_run(store: Store, request: RunRequest) -> PreparedRun:
    """Validate everything (raising RunSetupError), then create or find the run row."""
    raise NotImplementedError


async def execute_run(db_path: Path, prepared: PreparedRun,
                      on_event: Callable[[RunEvent], None] | None = None,
                      cancel: threading.Event | None = None) -> RunProgress:
    """Answer every pending claim, committing each result; opens its own Store."""
    raise NotImplementedError


def run_blocking(db_path: Path, prepared: PreparedRun,
                 on_event: Callable[[RunEvent], None] | None = None,
                 cancel: threading.Event | None = None) -> RunProgress:
    """execute_run for a thread (the TUI calls this from a worker)."""
    return asyncio.run(execute_run(db_path, prepared, on_event, cancel))
