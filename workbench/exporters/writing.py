"""Writing claims and predictions out: JSONL or CSV, to a file (atomically) or stdout (the
exporters package says what it offers)."""

from __future__ import annotations

import csv
import dataclasses
import io
import itertools
import json
import os
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from store import Claim, LabelSpace, Run, Store, as_dict
from workbench.labels import normalise_gold

_CLAIM_CSV_COLUMNS = [
    "id",
    "claim",
    "label",
    "question",
    "response",
    "claim_start",
    "claim_end",
    "reference_time",
    "claim_date",
    "importance",
    "task",
    "domain",
    "source",
    "article_url",
    "article_text",
    "justification",
    "evidence",
    "images",
]
_PREDICTION_COLUMNS = [
    "run",
    "model",
    "setting",
    "prompt",
    "claim_id",
    "dataset",
    "external_id",
    "gold",
    "status",
    "verdict",
    "raw_verdict",
    "explanation",
    "raw_output",
    "parsed",
    "error",
    "attempts",
    "latency_s",
    "tokens_in",
    "tokens_out",
    "cached",
]
_PAGE = 1000


def claim_record(claim: Claim, image_paths: dict[str, str] | None = None, space: LabelSpace | None = None) -> dict:
    """A claim in the generic import schema (so an export can be imported again); an image
    is named by `image_paths` (sha256 -> the file written beside the export), its URL, or
    else the path it was imported from. The label is the file's own spelling, unless that
    does not read back as the gold label in `space` (a fact-checker's rating folded at
    import, "Pants on Fire!" -> Refuted): then the gold label."""
    label = claim.raw_label or claim.label
    if space is not None and claim.raw_label and claim.label and normalise_gold(claim.raw_label, space) != claim.label:
        label = claim.label
    record = {
        "id": claim.external_id,
        "claim": claim.text,
        "label": label,
        "question": claim.question,
        "response": claim.response,
        "claim_start": claim.claim_start,
        "claim_end": claim.claim_end,
        "reference_time": claim.reference_time,
        "claim_date": claim.claim_date,
        "importance": claim.importance,
        "task": claim.task,
        "domain": claim.domain,
        "source": claim.source,
        "article_url": claim.article_url,
        "article_text": claim.article_text,
        "justification": claim.justification,
        "attributes": claim.attributes or None,
        "evidence": [_evidence_record(e) for e in claim.evidence] or None,
        "images": [(image_paths or {}).get(i.sha256 or "") or i.url or i.source for i in claim.images] or None,
    }
    return {k: v for k, v in record.items() if v is not None}


def _evidence_record(item) -> dict:
    record = as_dict(item, exclude={"rank", "is_cited", "attributes"}, exclude_none=True)
    if item.is_cited:
        record["cited"] = True
    if item.attributes:
        record["attributes"] = item.attributes
    return record


def dataset_header(store: Store, filter_text: str) -> dict | None:
    """The generic format's `_dataset` line when every matching claim is from one dataset:
    re-importing then keeps its name and label space (a true/false space is not mistaken
    for another, and an export is never read as a RealFactBench-shaped file)."""
    found = store.claims.datasets_matching(filter_text, limit=2)
    if len(found) != 1:
        return None
    dataset = store.datasets.by_id(next(iter(found)))
    space = dataset.label_space
    header = {
        "name": dataset.name,
        "label_space": {
            "name": space.name,
            "labels": space.labels,
            "abstain": space.abstain,
            "excluded": space.excluded,
        },
    }
    if dataset.notes:
        header["notes"] = dataset.notes
    return {"_dataset": header}


def attribute_columns(store: Store, filter_text: str) -> list[str]:
    """`attr.NAME` for every attribute any matching claim has (a CSV header is written
    before the rows, so it must know them all up front)."""
    return [f"attr.{key}" for key in store.claims.attribute_names(filter_text)]


def iter_claims(store: Store, filter_text: str) -> Iterator[Claim]:
    """Every matching claim, read a page of ids at a time."""
    ids = store.claims.ids(filter_text)
    for start in range(0, len(ids), _PAGE):
        for claim_id in ids[start : start + _PAGE]:
            yield store.claims.get(claim_id)


def export_claims(store: Store, filter_text: str, format: str, output: Path | None, with_articles: bool = False) -> int:
    """Write matching claims; returns how many. Into a file, their images are written
    beside it (NAME.images/SHA256.EXT) so the export imports again with its pictures.
    `with_articles`: a claim without article_text gets its fetched article's text."""
    images = _ImageFolder(store, output) if output is not None else None
    spaces: dict[str, LabelSpace | None] = {}

    def space_of(claim: Claim) -> LabelSpace | None:
        if claim.dataset not in spaces:
            dataset = store.datasets.get(claim.dataset) if claim.dataset else None
            spaces[claim.dataset] = dataset.label_space if dataset else None
        return spaces[claim.dataset]

    def with_article(claim: Claim) -> Claim:
        if not with_articles or claim.article_text:
            return claim
        return dataclasses.replace(claim, article_text=store.articles.text_for_claim(claim.id))

    records = (
        claim_record(with_article(c), images.paths(c) if images else None, space_of(c))
        for c in iter_claims(store, filter_text)
    )
    if format == "csv":
        records = (_flatten_claim(r) for r in records)
        return _write(records, format, output, _CLAIM_CSV_COLUMNS + attribute_columns(store, filter_text))
    header = dataset_header(store, filter_text)
    return _write(records, format, output, None, header)


def _flatten_claim(record: dict) -> dict:
    flat = dict(record)
    for key in ("evidence", "images"):
        if key in flat:
            flat[key] = json.dumps(flat[key], ensure_ascii=False)
    for key, value in flat.pop("attributes", {}).items():
        flat[f"attr.{key}"] = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return flat


IMAGE_EXTENSIONS = {
    "image/png": "png",
    "image/jpeg": "jpg",
    "image/gif": "gif",
    "image/webp": "webp",
    "image/bmp": "bmp",
    "image/tiff": "tif",
}
"""The file name ending an image is written with, by type."""


class _ImageFolder:
    """Writes each image once into the folder beside an export, named by its content."""

    EXTENSIONS = IMAGE_EXTENSIONS

    def __init__(self, store: Store, output: Path):
        self.store = store
        self.folder = output.parent / f"{output.name.split('.')[0]}.images"
        self.written: set[str] = set()

    def paths(self, claim: Claim) -> dict[str, str]:
        found = {}
        for image in claim.images:
            if image.sha256 is None:
                continue
            name = f"{image.sha256}.{self.EXTENSIONS.get(image.mime or '', 'img')}"
            if image.sha256 not in self.written:
                self.folder.mkdir(parents=True, exist_ok=True)
                (self.folder / name).write_bytes(self.store.claims.image_data(image.sha256) or b"")
                self.written.add(image.sha256)
            found[image.sha256] = f"{self.folder.name}/{name}"
        return found


def export_predictions(store: Store, runs: list[Run], filter_text: str, format: str, output: Path | None) -> int:
    """Write the predictions of `runs` on matching claims; returns how many."""

    def records() -> Iterator[dict]:
        compiled = store.claims.compile(filter_text)
        for run in runs:
            searched = bool(run.params.get("search"))
            for p in store.runs.predictions(run.id, compiled.where, list(compiled.params)):
                claim = store.claims.reference(p.claim_id)
                record = {
                    "run": run.name,
                    "model": run.model,
                    "setting": run.setting,
                    "prompt": run.prompt_name,
                    "claim_id": p.claim_id,
                    "dataset": claim[2],
                    "external_id": claim[0],
                    "gold": claim[1],
                    **as_dict(p, include=set(_PREDICTION_COLUMNS)),
                }
                if searched:  # a search run's steps and results go with each answer
                    steps = [dataclasses.asdict(step) for step in store.search.trajectory(run.id, p.claim_id)]
                    record["trajectory"] = steps if format != "csv" else json.dumps(steps, ensure_ascii=False)
                yield record

    return _write(
        records(),
        format,
        output,
        _PREDICTION_COLUMNS + (["trajectory"] if any(r.params.get("search") for r in runs) else []),
    )


def _write(
    records: Iterable[dict], format: str, output: Path | None, columns: list[str] | None, header: dict | None = None
) -> int:
    """Stream records out; a file is written to a temporary name and renamed when complete.

    `header` is a first JSONL line that is not a record (not counted)."""
    if header is not None:
        records = itertools.chain([header], records)
    if output is None:
        return _write_stream(records, format, sys.stdout, columns) - (header is not None)
    output = Path(output)
    handle = tempfile.NamedTemporaryFile(
        "w", encoding="utf-8", newline="", delete=False, dir=output.parent or ".", prefix=f".{output.name}."
    )
    try:
        with handle:
            count = _write_stream(records, format, handle, columns) - (header is not None)
        os.replace(handle.name, output)
    except BaseException:
        os.unlink(handle.name)
        raise
    return count


def _write_stream(records: Iterable[dict], format: str, stream: io.TextIOBase, columns) -> int:
    count = 0
    writer = None
    for record in records:
        if format == "jsonl":
            stream.write(json.dumps(record, ensure_ascii=False) + "\n")
        else:
            if writer is None:
                writer = csv.DictWriter(stream, fieldnames=columns, extrasaction="ignore")
                writer.writeheader()
            writer.writerow(
                {
                    key: json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list)) else value
                    for key, value in record.items()
                }
            )
        count += 1
    return count
