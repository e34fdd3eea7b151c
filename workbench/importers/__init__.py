"""Importing benchmark files into the store: a reader per file format, a profile or field
mapping per benchmark, the label space, then every claim checked and written in one
transaction (all of it, or nothing).

    report = run_import(store, ImportRequest(Path("climate-fever.jsonl")))
    report.dataset, report.counts, report.warnings.summary()
    preview = dry_run(ImportRequest(Path("liar/train.tsv"), label_maps=["pants-fire=false"]))
"""

from __future__ import annotations

import importlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.choices import IMPORT_FORMATS

if TYPE_CHECKING:
    from store import Claim, Dataset, ImportCounts, LabelSpace, Store
    from workbench.importers.common import LabelReader
    from workbench.importers.meter import ReadMeter
    from workbench.importers.plans import ImportPlan, ImportRequest
    from workbench.importers.warnings import ImportWarnings

FORMATS = IMPORT_FORMATS

_ELSEWHERE = {
    "BadInput": "workbench.importers.reading",
    "ImportRequest": "workbench.importers.plans",
    "MappingError": "workbench.importers.mapping",
}
"""Names this package offers from its modules, imported when first asked for (PEP 562): a
command that only lists the import profiles does not load the readers and the pipeline."""


def __getattr__(name: str):
    if name not in _ELSEWHERE:
        raise AttributeError(f"module 'workbench.importers' has no attribute {name!r}")
    value = getattr(importlib.import_module(_ELSEWHERE[name]), name)
    globals()[name] = value
    return value


@dataclass
class ImportReport:
    """What an import did: the dataset, its counts, and what it met on the way."""

    dataset: Dataset
    counts: ImportCounts
    plan: ImportPlan
    label_counts: Counter
    """Gold label -> claims (None: claims without a gold label)."""

    @property
    def warnings(self) -> ImportWarnings:
        return self.plan.warnings


@dataclass
class DryRun:
    """What an import would do, with nothing written."""

    plan: ImportPlan
    space: LabelSpace
    claims: int
    first: list[Claim] = field(default_factory=list)
    label_counts: Counter = field(default_factory=Counter)

    @property
    def warnings(self) -> ImportWarnings:
        return self.plan.warnings


def run_import(store: Store, request: ImportRequest, meter: ReadMeter | None = None) -> ImportReport:
    """Load a file into the store: all of it, or (on any error) nothing.

    The file is read in a helper thread while the store writes what is ready: SQLite
    releases the GIL while it inserts and indexes, so the two overlap. `meter` counts what
    is read (for a progress line); setting its `cancel` stops the import, writing nothing.
    """
    from workbench.importers.pipeline import checked_claims, label_reader, plan_import
    from workbench.importers.prefetch import read_ahead

    plan = plan_import(request)
    if meter is not None:
        plan.read.meter = meter
        meter.measure(plan.source.files)
        meter.start_pass("labels")
    known = store.datasets.get(plan.name)  # an update keeps the dataset's label space
    reader = label_reader(plan, known.label_space if known else None)
    dataset = _dataset(plan, reader)
    if meter is not None:
        meter.start_pass("reading")
    counts: Counter = Counter()
    claims = read_ahead(checked_claims(plan, reader, counts))
    written = store.datasets.import_claims(dataset, meter.to_the_end(claims) if meter is not None else claims)
    return ImportReport(store.datasets.get(dataset.name), written, plan, counts)


def dry_run(request: ImportRequest, show: int = 3) -> DryRun:
    """Read and check the whole file as an import would, keeping the first claims to show."""
    from workbench.importers.pipeline import checked_claims, label_reader, plan_import

    plan = plan_import(request)
    reader = label_reader(plan)
    counts: Counter = Counter()
    first, total = [], 0
    for fields, _ in checked_claims(plan, reader, counts):
        if len(first) < show:
            first.append(_claim({**fields, "dataset": plan.name}))
        total += 1
    return DryRun(plan, reader.space, total, first, counts)


def _claim(fields: dict) -> Claim:
    """A claim record from what was read (image bytes stay with the import: the record
    carries their facts)."""
    from store import Claim, validated

    images = [{key: value for key, value in image.items() if key != "data"} for image in fields.get("images") or []]
    return validated(Claim, {**fields, "images": images})


def _dataset(plan: ImportPlan, reader: LabelReader) -> Dataset:
    from store import Dataset

    notes = (plan.header or {}).get("notes")
    return Dataset(
        name=plan.name,
        source_format=" ".join([plan.mapping.name, *import_options(plan.request)]),
        label_space=reader.space,
        source_path=str(plan.source.path),
        notes=str(notes) if notes else None,
    )


def import_options(request: ImportRequest) -> list[str]:
    """The options that shaped how a file was read, as the command line spells them (the
    datasets listing shows them beside the profile)."""
    import shlex

    from workbench.importers.sources import FILE_FORMATS

    options = ["--format", request.format] if request.format in FILE_FORMATS else []
    pairs = [
        ("--map", request.maps),
        ("--label-map", request.label_maps),
        ("--exclude-label", request.excluded),
        ("--label-space", [request.label_space] if isinstance(request.label_space, str) else []),
        ("--abstain-label", [request.abstain] if request.abstain else []),
        ("--columns", [",".join(request.columns)] if request.columns else []),
        ("--split", [request.split] if request.split else []),
        ("--with", [f"{name}={path}" for name, path in request.extra_files.items() if name != "ratings"]),
        ("--rating-map", [request.extra_files["ratings"]] if "ratings" in request.extra_files else []),
    ]
    for flag, values in pairs:
        for value in values:
            options += [flag, value]
    return [shlex.quote(str(option)) for option in options]


def import_file(
    store: Store,
    path: Path,
    format: str = "auto",
    dataset_name: str | None = None,
    label_space: LabelSpace | None = None,
) -> tuple[Dataset, ImportCounts]:
    """The plain call: a file (format or profile name, or auto) into the store."""
    from workbench.importers.pipeline import ImportRequest

    report = run_import(store, ImportRequest(Path(path), format, dataset=dataset_name, label_space=label_space))
    return report.dataset, report.counts


@dataclass
class ParsedFile:
    """A whole file, validated and ready to write (what load_file returns)."""

    dataset: Dataset
    claims: list[Claim]


def load_file(
    path: Path, format: str = "auto", dataset_name: str | None = None, label_space: LabelSpace | None = None
) -> ParsedFile:
    """Read and validate a whole file without touching any database."""
    from workbench.importers.pipeline import ImportRequest, checked_claims, label_reader, plan_import

    plan = plan_import(ImportRequest(Path(path), format, dataset=dataset_name, label_space=label_space))
    reader = label_reader(plan)
    claims = [_claim(fields) for fields, _ in checked_claims(plan, reader, Counter())]
    return ParsedFile(_dataset(plan, reader), claims)


__all__ = [
    "BadInput",
    "DryRun",
    "FORMATS",
    "ImportReport",
    "ImportRequest",
    "MappingError",
    "ParsedFile",
    "dry_run",
    "import_file",
    "load_file",
    "run_import",
]
