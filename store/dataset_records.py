"""A dataset and its label space, as the store reads and writes them (store.records)."""

from __future__ import annotations

from dataclasses import field

from store.records import record


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
