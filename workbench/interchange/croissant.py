"""A curated benchmark as a Croissant dataset: the claims a curation kept, as JSON Lines in a
folder, described by Croissant metadata built with mlcroissant's own classes (the
`croissant` extra) and checked by loading it back with `mlcroissant.Dataset`.

    written = write_croissant(store, "demo-claimreview", Path("out"), CroissantOptions(license=...))

The metadata names the fields, the label space (an enumeration the label field refers to),
the curation funnel (each step with the claims it considered and removed), the claims'
sources and their date window. docs/exporting.md says what is left out.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from store import Store
from store.names import no_such
from workbench.errors import WorkbenchError
from workbench.exporters import claim_record
from workbench.exporters.writing import iter_claims

CLAIMS_FILE = "claims.jsonl"
METADATA_FILE = "croissant.json"
FIELDS = {
    "id": ("TEXT", "The claim's id in its source."),
    "claim": ("TEXT", "The claim as checked."),
    "label": ("TEXT", "The gold verdict (one of the label space)."),
    "rating": ("TEXT", "The source's own rating, where it differs from the gold label it was folded into."),
    "importance": ("TEXT", "Main, Sub or Irrelevant, where the source grades it."),
    # DATE: mlcroissant reads JSON Lines with pandas, which turns these columns into timestamps.
    "claim_date": ("DATE", "When the claim was made (ISO 8601)."),
    "reference_time": ("DATE", "The time the claim is to be judged at (ISO 8601)."),
    "source": ("TEXT", "Who published the fact-check or the data."),
    "article_url": ("URL", "The fact-check article."),
    "article_text": ("TEXT", "The article's text (only with --with-articles)."),
}


class CroissantError(WorkbenchError, ValueError):
    """A dataset that cannot be written as Croissant; the message says why."""


@dataclass
class CroissantOptions:
    license: str
    """A URL or SPDX name: the licence the claims are published under (ours to say, not to guess)."""
    with_articles: bool = False
    """Write each claim's article text (only where the articles' licences allow it)."""
    url: str | None = None
    version: str = "1.0.0"
    """The benchmark's release, MAJOR.MINOR.PATCH as the publisher numbers it (semantic
    versioning: MAJOR when claims are removed or their labels change, MINOR when claims are
    added, PATCH for corrections); the data itself is pinned by the claims file's sha256."""


def write_croissant(store: Store, dataset_name: str, folder: Path, options: CroissantOptions) -> int:
    """Write the dataset's kept claims and its Croissant metadata into `folder` (made whole
    elsewhere and moved in: an error leaves no half folder); returns the claims written."""
    dataset = store.datasets.get(dataset_name)
    if dataset is None:  # a typo is told before the heavy import
        names = [d.name for d in store.datasets.list()]
        raise CroissantError(no_such("dataset", dataset_name, names, "`workbench datasets` lists them"))
    import mlcroissant as mlc

    if folder.exists() and any(folder.iterdir()):
        raise CroissantError(f"{folder} is not empty: give a new folder")
    steps = store.curation.steps(dataset.id)
    # A curated benchmark is what its curation kept.
    where = f"dataset:{_quoted(dataset.name)}" + (" -flagged:curated-out" if steps else "")
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        records, dates, sources = _write_claims(store, where, staging / CLAIMS_FILE, options.with_articles)
        present = [name for name in FIELDS if any(name in r for r in records)]
        try:
            metadata = _metadata(mlc, dataset, steps, len(records), present, dates, sources, staging, options)
        except mlc.ValidationError as error:
            raise CroissantError(f"mlcroissant refuses the metadata: {error}") from None
        _check_version(metadata, options.version)
        (staging / METADATA_FILE).write_text(json.dumps(metadata.to_json(), indent=2, default=str), encoding="utf-8")
        _check(mlc, staging / METADATA_FILE, len(records))
        if folder.exists():
            folder.rmdir()
        staging.rename(folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return len(records)


def _quoted(name: str) -> str:
    return f'"{name}"' if any(c.isspace() for c in name) else name


def _write_claims(store: Store, where: str, path: Path, with_articles: bool) -> tuple[list[dict], list[str], set]:
    records, dates, sources = [], [], set()
    with path.open("w", encoding="utf-8") as handle:
        for claim in iter_claims(store, where):
            record = claim_record(claim)
            if claim.raw_label and claim.raw_label != claim.label:  # a fact-checker's rating, folded
                record["rating"] = claim.raw_label
            if claim.label:
                record["label"] = claim.label
            if with_articles and not claim.article_text:
                text = store.articles.text_for_claim(claim.id)
                if text:
                    record["article_text"] = text
            if not with_articles:
                record.pop("article_text", None)
            record.pop("images", None)  # pictures stay in the database (docs/exporting.md)
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            records.append(record)
            dates += [claim.claim_date] if claim.claim_date else []
            sources |= {claim.source} if claim.source else set()
    return records, dates, sources


def _metadata(mlc, dataset, steps, count, present, dates, sources, folder: Path, options: CroissantOptions):
    space = dataset.label_space
    claims_file = mlc.FileObject(
        id="claims-file",
        name=CLAIMS_FILE,
        content_url=CLAIMS_FILE,
        encoding_formats=["application/jsonlines"],
        sha256=hashlib.sha256((folder / CLAIMS_FILE).read_bytes()).hexdigest(),
    )
    labels = mlc.RecordSet(
        id="labels",
        name="labels",
        description=f"The label space {space.name}: the gold verdicts a claim can have.",
        key="labels/label",
        fields=[mlc.Field(id="labels/label", name="label", data_types=[mlc.DataType.TEXT])],
        data=[{"labels/label": label} for label in [*space.labels, *filter(None, [space.abstain]), *space.excluded]],
    )
    fields = [_field(mlc, name) for name in present]
    claims = mlc.RecordSet(id="claims", name="claims", key="claims/id", fields=fields, description=f"{count} claims")
    funnel = [f"{s.step}: considered {s.considered}, removed {s.removed} (run {s.ran_at[:10]})" for s in steps.values()]
    window = [min(dates), max(dates)] if dates else []
    return mlc.Metadata(
        name=dataset.name,
        description=(dataset.notes or f"The {dataset.name} fact-checking benchmark")
        + f" ({count} claims, labels {', '.join(space.labels)}).",
        license=[options.license],
        url=options.url,
        version=options.version,
        date_published=datetime.date.today().isoformat(),
        distribution=[claims_file],
        record_sets=[labels, claims],
        data_collection="Curation funnel: " + "; ".join(funnel) if funnel else "No curation steps were run.",
        data_collection_raw_data="Sources: " + ", ".join(sorted(sources)) if sources else None,
        data_collection_timeframe=window or None,
        data_preprocessing_protocol=[json.dumps({s.step: s.settings}) for s in steps.values()] or None,
    )


def _check_version(metadata, version: str) -> None:
    """mlcroissant only warns about a version that is not MAJOR.MINOR.PATCH: refused here,
    by its own rule, so a published benchmark's releases sort as versions."""
    for warning in metadata.issues.warnings:
        if "MAJOR.MINOR.PATCH" in warning:
            raise CroissantError(f"--version {version!r} is not MAJOR.MINOR.PATCH (e.g. 1.0.0, 2.1.0)")


def _field(mlc, name: str):
    data_type, description = FIELDS[name]
    extract = mlc.Extract(column=name)  # JSON Lines are read as a table, a column per key
    field = mlc.Field(
        id=f"claims/{name}",
        name=name,
        description=description,
        data_types=[getattr(mlc.DataType, data_type)],
        source=mlc.Source(file_object="claims-file", extract=extract),
    )
    if name == "label":
        field.references = mlc.Source(field="labels/label")
    return field


def _check(mlc, path: Path, count: int) -> None:
    """Load the metadata back with mlcroissant (its validation) and read every record."""
    try:
        dataset = mlc.Dataset(jsonld=str(path))
        read = sum(1 for _ in dataset.records(record_set="claims"))
    except mlc.ValidationError as error:
        raise CroissantError(f"mlcroissant refuses the metadata written: {error}") from None
    if read != count:
        raise CroissantError(f"mlcroissant read {read} claims of the {count} written")
