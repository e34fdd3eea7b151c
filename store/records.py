"""The records the store reads and writes: plain dataclasses.

The store builds them from rows it wrote itself (checked when written), so reading needs no
validation. Where data comes from outside (a file being imported), `validated()` checks it
with pydantic against the same declarations (field types, no unknown field), naming the
field that is wrong, before anything touches the database.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, TypeVar

EvidenceKind = Literal["passage", "page", "qa", "article"]
Importance = Literal["Main", "Sub", "Irrelevant"]
PredictionStatus = Literal["ok", "abstain", "parse_failure", "error"]
PredictionOutcome = Literal["correct", "wrong", "abstain", "parse_failure", "unscored", "error"]
RunStatus = Literal["pending", "running", "finished", "cancelled", "failed", "interrupted", "batched"]
"""Stored: pending, running, finished, cancelled, failed. "interrupted" is read, not stored: a
run marked running whose process on this machine is gone (killed, crashed, powered off).
"batched" is read too: a run whose requests wait in a provider's batch API."""


class NotBlank:
    """A text that must not be blank, checked by pydantic when outside data is validated
    (pydantic's protocol for a check carried in `Annotated`; pydantic is imported only then)."""

    def __init__(self, message: str):
        self.message = message

    def __get_pydantic_core_schema__(self, source, handler):
        from pydantic_core import core_schema

        return core_schema.no_info_after_validator_function(self._checked, handler(source))

    def _checked(self, value: str) -> str:
        if not value.strip():
            raise ValueError(self.message)
        return value


record = dataclass(kw_only=True)
"""A record's declaration: keyword-only fields (a required one may follow one with a default)."""

_PYDANTIC_CONFIG = {"extra": "forbid", "use_attribute_docstrings": True}
"""How pydantic checks outside data against a record (read by pydantic, a plain dict here)."""


@record
class LabelSpace:
    """The labels a dataset is scored in."""

    name: str
    """A built-in space name (jsfactcheck, realfactbench, averitec) or 'custom'."""
    labels: list[str]
    """The gold classes, in display order."""
    abstain: str | None = None
    """The label a model gives when it cannot decide (e.g. 'unknown'); never a gold class."""
    excluded: list[str] = field(default_factory=list)
    """Gold labels kept on claims but left out of scoring (e.g. Unevaluable, Unclear)."""

    @property
    def all_gold(self) -> list[str]:
        """Every label a claim may carry as gold."""
        return self.labels + self.excluded


@record
class Evidence:
    """One piece of evidence attached to a claim."""

    kind: EvidenceKind
    rank: int = 0
    """Order within the claim (0 first)."""
    url: str | None = None
    title: str | None = None
    text: str | None = None
    """Full page text, the snippet, or the answer of a question-answer pair."""
    passage: str | None = None
    """The quoted passage inside a page (the Reference setting shows this)."""
    passage_start: int | None = None
    passage_end: int | None = None
    is_cited: bool = False
    """The annotators' cited source."""
    question: str | None = None
    answer_type: str | None = None
    explanation: str | None = None
    """For Boolean question-answer evidence: the explanation of the yes/no."""
    attributes: dict[str, Any] = field(default_factory=dict)


@record
class ClaimImage:
    """An image that is part of a claim (a photo, a chart, a screenshot of a post)."""

    rank: int = 0
    source: str
    """The path as the data file wrote it, or the URL."""
    url: str | None = None
    """Set for an image given by URL (nothing is downloaded: it may have no bytes)."""
    sha256: str | None = None
    """Of the bytes, when the workbench has them (images table); None for a URL-only image."""
    mime: str | None = None
    bytes: int | None = None
    width: int | None = None
    height: int | None = None
    caption: str | None = None


@record
class Claim:
    """A claim with its gold label, context and evidence."""

    id: int | None = None
    """The store's id (None before import)."""
    dataset: str | None = None
    external_id: str
    """The claim's id in its benchmark."""
    text: Annotated[str, NotBlank("claim text is empty")]
    label: str | None = None
    """Gold label, normalised into the dataset's label space."""
    raw_label: str | None = None
    """The gold label as the file spelled it."""
    question: str | None = None
    response: str | None = None
    claim_start: int | None = None
    """Offset of the claim's place in `response`, when known."""
    claim_end: int | None = None
    reference_time: str | None = None
    claim_date: str | None = None
    importance: Importance | None = None
    task: str | None = None
    domain: str | None = None
    source: str | None = None
    article_url: str | None = None
    article_text: str | None = None
    justification: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    evidence: list[Evidence] = field(default_factory=list)
    images: list[ClaimImage] = field(default_factory=list)


@record
class Dataset:
    """A benchmark loaded into the store."""

    id: int | None = None
    name: str
    source_format: str
    label_space: LabelSpace
    source_path: str | None = None
    imported_at: str | None = None
    notes: str | None = None
    claim_count: int = 0


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


@record
class Flag:
    """A mark on a claim: contaminated, checked-not-contaminated, or a user's own kind."""

    id: int | None = None
    claim_id: int
    kind: str
    source: Literal["manual", "pipeline"] = "manual"
    model: str = ""
    metric: str = ""
    score: float | None = None
    threshold: float | None = None
    note: str | None = None
    who: str | None = None
    created_at: str | None = None


UNATTRIBUTED = "unattributed"
"""The annotator of labels made before annotators were recorded (migration m015), or
written without a name."""


def now_iso() -> str:
    """The current UTC time as stored in the database (milliseconds: run speeds need them)."""
    return datetime.now(UTC).replace(tzinfo=None).isoformat(timespec="milliseconds") + "Z"


def to_json(value: Any) -> str:
    """Compact, key-sorted JSON (stable for hashing and for diffs)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


for _record in (LabelSpace, Evidence, ClaimImage, Claim, Dataset, Run, Prediction, Flag):
    _record.__pydantic_config__ = _PYDANTIC_CONFIG

RecordType = TypeVar("RecordType")


def validated(kind: type[RecordType], data: Any) -> RecordType:
    """`data` (a mapping from outside) checked by pydantic as a `kind` record, nested records
    built too; pydantic's ValidationError names each field that is wrong. A record is kept."""
    if isinstance(data, kind):
        return data
    return _adapter(kind).validate_python(data)


@functools.cache
def _adapter(kind: type):
    from pydantic import TypeAdapter  # only where outside data comes in: it costs a reading command 80 ms

    return TypeAdapter(kind)


def as_dict(
    item: Any, *, include: set[str] | None = None, exclude: set[str] | None = None, exclude_none: bool = False
) -> dict[str, Any]:
    """A record's fields as a new dict (nested records as dicts, lists and tables copied), some
    left out on request; `exclude_none` leaves out fields that are None, nested records' too."""
    return {
        f.name: _plain(getattr(item, f.name), exclude_none)
        for f in dataclasses.fields(item)
        if (include is None or f.name in include)
        and not (exclude and f.name in exclude)
        and not (exclude_none and getattr(item, f.name) is None)
    }


def _plain(value: Any, exclude_none: bool) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return as_dict(value, exclude_none=exclude_none)
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(item, exclude_none) for item in value)
    if isinstance(value, dict):
        return {key: _plain(item, exclude_none) for key, item in value.items()}
    return value
