"""What the contamination pipeline is asked, what it plans, and how it ended."""

from __future__ import annotations

from dataclasses import dataclass, field

from workbench.contamination.pipeline_tasks import DEFAULT_MAX_EVIDENCE, TaskTemplate
from workbench.contamination.similarity import Metric
from workbench.errors import WorkbenchError


class PipelineError(WorkbenchError, ValueError):
    """A pipeline request that cannot start; the message says why and what to do."""


@dataclass
class ContaminationRequest:
    """What a user asked for (the options of `workbench contamination run`)."""

    model: str
    """The target model: does it know this claim's fact-check?"""
    extractor: str = "gguf:default"
    dataset: str | None = None
    filter: str = ""
    claim_ids: list[int] | None = None
    metric: str = "meteor"
    tau: float | None = None
    """None: the threshold of the stored flags, else 0.25 (METEOR) / 0.6 (embeddings)."""
    limit: int | None = None
    use_cache: bool = True
    params: dict = field(default_factory=dict)
    """Run params for the target model's articles (max_tokens, temperature, ...)."""
    extractor_params: dict = field(default_factory=dict)
    base_url: str | None = None
    extractor_base_url: str | None = None
    concurrency: int | None = None
    max_evidence: int = DEFAULT_MAX_EVIDENCE
    setting: str = "claim"
    """What the target model is shown: claim (text only) or claim+image (its images too)."""


@dataclass
class PipelinePlan:
    """A checked request: the claims by oracle source and everything the steps need."""

    request: ContaminationRequest
    metric: Metric
    claim_ids: list[int]
    article_claims: list[int]
    """Claims with an oracle article (their evidence is extracted)."""
    qa_claims: list[int]
    """Claims without an article whose gold question-answer pairs are the oracle evidence."""
    missing: list[int]
    """Claims with no oracle evidence at all: not scorable."""
    target: str
    extractor: str
    article_template: TaskTemplate
    extract_template: TaskTemplate
    dataset_id: int | None
    label: str
    """A readable stem for run names (the dataset, else "claims")."""
    image: bool = False
    """The articles are written with the claims' images shown (the +image probe)."""

    @property
    def stored_metric(self) -> str:
        """The metric as scores and flags store it: `meteor`, or `meteor+image`."""
        from workbench.contamination.probes import probe_metric

        return probe_metric(self.metric.name, self.image)


@dataclass
class PipelineOutcome:
    status: str
    """finished, cancelled or failed."""
    message: str | None = None
    runs: dict[str, str] = field(default_factory=dict)
    """step -> run name."""
    tau: float | None = None
    scored: int = 0
    scorable: int = 0
