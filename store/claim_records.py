"""A claim with its evidence and images, as the store reads and writes them (store.records)."""

from __future__ import annotations

from dataclasses import field
from typing import Annotated, Any

from store.records import EvidenceKind, Importance, NotBlank, record


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
