"""A search run's configuration: which backend, how many steps and searches per claim."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SearchConfig:
    """A search run's tools: which backend, how many steps and searches per claim."""

    backend: str
    url: str | None = None
    max_steps: int = 6
    """Model turns per claim, the answer included."""
    max_searches: int = 4
    results: int = 5
    """Results per search shown to the model."""
    tools: str = "native"
    """native (the backend's tool calling) or text (SEARCH: / READ: lines)."""
    blocked_domains: tuple[str, ...] = ()
    leak_threshold: float = 0.5
    claim_tokens: int | None = None
    """Tokens (sent and written, every turn) a claim may use before the model is asked
    for its answer (None: only the step limit)."""
    image_search: bool = False
    """Image search tools too (search_images; view_image for a vision model;
    search_by_image where the backend has it and the claim has an image)."""
    vision: bool = False
    """The model takes images: a retrieved image it asks to look at is shown to it (else
    it gets each image's title and where it is, only)."""
    max_images: int = 3
    """Retrieved images a claim's model may look at."""
    fetch_private: bool = False
    """Images may be fetched from private and loopback addresses (tests; a lab's own server)."""
