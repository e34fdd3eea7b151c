"""What a user asked to import (ImportRequest) and the checked plan made of it (ImportPlan)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from store import LabelSpace
from workbench.importers.formats import ReadOptions
from workbench.importers.mapping import FieldMapping
from workbench.importers.sources import Source
from workbench.importers.warnings import ImportWarnings

HEADER_KEY = "_dataset"
"""The key of a workbench JSONL file's first line, which describes the dataset, not a claim."""


@dataclass
class ImportRequest:
    """What a user asked to import, as `workbench import` takes it."""

    path: Path
    format: str = "auto"
    """A file format (jsonl, json, csv, tsv, parquet, arrow), or a profile's name (older spelling)."""
    profile: str | None = None
    maps: list[str] = field(default_factory=list)
    """--map FIELD=PATH pairs, laid over the profile."""
    dataset: str | None = None
    label_space: str | LabelSpace | None = None
    """A built-in space's name, "own", or a LabelSpace."""
    label_maps: list[str] = field(default_factory=list)
    abstain: str | None = None
    excluded: list[str] = field(default_factory=list)
    split: str | None = None
    columns: list[str] | None = None
    strict: bool = False
    extra_files: dict[str, Path] = field(default_factory=dict)
    encoding: str | None = None
    """--encoding: the file's text encoding (default: read from its bytes)."""
    delimiter: str | None = None
    """--delimiter: a CSV's delimiter (default: sniffed)."""
    header: bool | None = None
    """--header / --no-header: whether a CSV's first row names its columns (default: sniffed)."""


@dataclass
class ImportPlan:
    """A checked request: where the records come from and how each becomes claims."""

    request: ImportRequest
    source: Source
    mapping: FieldMapping
    read: ReadOptions
    warnings: ImportWarnings
    how_picked: str
    """How the profile was chosen, in words ("detected", "--profile", ...)."""
    header: dict | None = None
    """The `_dataset` line of a workbench JSONL file."""
    also_fit: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.request.dataset or (self.header or {}).get("name") or self.source.name_hint
