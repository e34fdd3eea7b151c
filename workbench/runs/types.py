"""The run engine's public data: what a user asks for, what a prepared run holds, and the
events a run reports. `workbench.runs.engine` re-exports all of it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from store import Claim, LabelSpace, Prediction, Run, RunProgress, Store
from workbench.backends import ModelSpec
from workbench.errors import WorkbenchError
from workbench.prompting import RenderedPrompt, Setting, Template


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


@dataclass(frozen=True)
class TaskAnswer:
    """What a task run's parser made of one answer."""

    status: str
    """ok or parse_failure (the raw text is kept either way)."""
    parsed: Any = None
    """The structured result stored in predictions.parsed (e.g. {"evidence": [...]})."""
    explanation: str | None = None
    """A short note for people (e.g. why the answer could not be read)."""


class RunTask(Protocol):
    """A run that is not a verdict run: its own prompt and its own parser.

    The engine answers a task run exactly like a verdict run (cache, retries, one
    commit per answer, resume); only rendering and parsing come from the task. When an
    answer cannot be parsed, the engine asks again up to `tries` times in all, each time
    with `retry_prompt` (a different seed and a nudge), then records a parse_failure.
    """

    kind: str
    """The runs.kind it creates, e.g. article or extract."""
    tries: int
    template_name: str
    template_hash: str
    source: str
    """What the task reads, in words (stored as the run's setting), e.g. "oracle articles"."""

    def configuration(self) -> dict[str, Any]:
        """Everything besides model and params that defines its answers (for the config key)."""

    def render(self, store: Store, claim: Claim) -> RenderedPrompt:
        """The messages for one claim (PromptError when the claim cannot be rendered)."""

    def retry_prompt(self, rendered: RenderedPrompt, attempt: int) -> RenderedPrompt:
        """The prompt for try number `attempt` (1, 2, ...) after unreadable answers."""

    def parse(self, text: str) -> TaskAnswer:
        """Read one answer; never raises."""


@dataclass
class TaskRunRequest:
    """A non-verdict run over an explicit list of claims (prepare_task_run)."""

    task: RunTask
    model: str
    claim_ids: list[int]
    name: str
    """The run's name (made unique: name-2, ...)."""
    base_url: str | None = None
    params: dict = field(default_factory=dict)
    concurrency: int | None = None
    use_cache: bool = True
    """False: a new run that asks the model again (unless an unfinished one can go on)."""
    dataset_id: int | None = None
    subset_filter: str | None = None
    target_run_id: int | None = None
    """A judge run: the run whose explanations it scores."""


class RunSetupError(WorkbenchError):
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
    template: Template | None
    setting: Setting | None
    json_answer: bool
    params: dict[str, Any]
    label_space: LabelSpace | None
    allowed_verdicts: list[str]
    concurrency: int
    use_cache: bool = True
    task: RunTask | None = None
    """Set for non-verdict runs (contamination articles and extractions); then template,
    setting and label_space are None and the task renders and parses."""
    search: Any = None
    """Set for a search run (workbench.search.config.SearchConfig): the model may search
    before it answers."""
    engine: dict[str, Any] = field(default_factory=dict)
    """The local engine's settings in this process (run.engine holds those it started with)."""
    name_taken_by: str | None = None
    """A new run: the run that already had the name asked for (this one is NAME-2, ...)."""
    unfinished_twin: str | None = None
    """A new named run: an unfinished run with the same configuration that it does not continue."""

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


RunEvent = RunStarted | ItemFinished | RunFinished
