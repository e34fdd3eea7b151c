"""Importing benchmark files into the store: detect the format, read everything,
validate everything, then write it in one transaction."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from store import Dataset, ImportCounts, LabelSpace, Store
from workbench.choices import IMPORT_FORMATS
from workbench.importers.averitec import read_averitec
from workbench.importers.common import Draft, ParsedFile, finish, stream
from workbench.importers.prefetch import read_ahead
from workbench.importers.generic import HEADER_KEY, read_csv, read_jsonl
from workbench.importers.jsfactcheck import read_jsfactcheck
from workbench.importers.reading import BadInput, read_text
from workbench.importers.realfactbench import read_realfactbench

READERS: dict[str, Callable[[Path, str], Draft]] = {
    "jsonl": read_jsonl,
    "csv": read_csv,
    "averitec": read_averitec,
    "jsfactcheck": read_jsfactcheck,
    "realfactbench": read_realfactbench,
}
FORMATS = IMPORT_FORMATS

__all__ = ["BadInput", "FORMATS", "ParsedFile", "detect_format", "import_file", "load_file"]


def load_file(path: Path, format: str = "auto", dataset_name: str | None = None,
              label_space: LabelSpace | None = None) -> ParsedFile:
    """Read and validate a whole file without touching any database."""
    return finish(_draft(Path(path), format), dataset_name, label_space)


def import_file(store: Store, path: Path, format: str = "auto", dataset_name: str | None = None,
                label_space: LabelSpace | None = None) -> tuple[Dataset, ImportCounts]:
    """Load a file into the store: all of it, or (on any error) nothing.

    The file is parsed in a helper thread while the store writes what is ready: SQLite
    releases the GIL while it inserts and indexes, so the two overlap.
    """
    claim_stream = stream(_draft(Path(path), format), dataset_name, label_space)
    counts = store.datasets.import_claims(claim_stream.dataset, read_ahead(claim_stream.claims))
    return store.datasets.get(claim_stream.dataset.name), counts


def _draft(path: Path, format: str) -> Draft:
    text = read_text(path)
    if format == "auto":
        format = detect_format(path, text)
    if format not in READERS:
        raise BadInput(path, f"unknown format {format!r}; choose from {', '.join(FORMATS)}")
    return READERS[format](path, text)


def detect_format(path: Path, text: str) -> str:
    """Guess the format from the file name and the first record."""
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv"):
        return "csv"
    first = _first_record(path, text)
    keys = set(first)
    if HEADER_KEY in keys:
        return "jsonl"
    if "questions" in keys and "claim" in keys:
        return "averitec"
    if "candidates" in keys or "reference" in keys or "factuality" in keys:
        return "jsfactcheck"
    if "task" in keys and str(first.get("label", "")).upper() in ("TRUE", "FALSE"):
        return "realfactbench"
    if text.lstrip().startswith("["):
        raise BadInput(path, "cannot tell which format this JSON array is; pass --format")
    return "jsonl"


def _first_record(path: Path, text: str) -> dict:
    stripped = text.lstrip()
    if stripped.startswith("["):
        decoder = json.JSONDecoder()
        try:
            value, _ = decoder.raw_decode(stripped, stripped.index("[") + 1 + _skip(stripped[1:]))
        except (ValueError, RecursionError):
            return {}
        return value if isinstance(value, dict) else {}
    for line in stripped.splitlines():
        if line.strip():
            try:
                value = json.loads(line)
            except (ValueError, RecursionError):
                return {}
            return value if isinstance(value, dict) else {}
    return {}


def _skip(text: str) -> int:
    return len(text) - len(text.lstrip())
