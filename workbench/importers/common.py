"""What every importer shares: drafts of claims, label normalisation, duplicate ids,
offsets of quoted passages, and validation into store records."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from store import Claim, Dataset, LabelSpace
from workbench import labels
from workbench.importers.reading import BadInput, RecordReader


@dataclass
class DraftClaim:
    """A claim read from a file, before labels are normalised and it is validated."""

    reader: RecordReader
    fields: dict
    """Keyword arguments for store.Claim; `raw_label` holds the file's label."""
    source_names: dict[str, str] = field(default_factory=dict)
    """Claim field -> the file's name for it, for error messages (text -> claim)."""


@dataclass
class Draft:
    """One file being read: what its header said, and its claims as they are read."""

    path: Path
    source_format: str
    name_hint: str
    claims: Iterable[DraftClaim]
    """Read lazily, so writing can start while the rest of the file is parsed."""
    label_space: LabelSpace | None = None
    notes: str | None = None


@dataclass
class ParsedFile:
    """A whole file, validated and ready to write."""

    dataset: Dataset
    claims: list[Claim]
    hashes: list[str]
    """A digest of each claim's imported content (tells updated from unchanged)."""


@dataclass
class ClaimStream:
    """The dataset a file describes and its checked claims, produced one by one.

    Each claim is a mapping of store.Claim's fields (evidence as a list of mappings):
    the readers have already checked every field's type, size and allowed values, and
    building a million pydantic objects only to take them apart again would dominate
    the import.

    Iterating raises BadInput at the first bad record (or, for unknown labels, after
    the last one, naming them all): the import that consumes it rolls back.
    """

    dataset: Dataset
    claims: Iterator[tuple[dict, str]]


def stream(draft: Draft, dataset_name: str | None = None,
           label_space: LabelSpace | None = None) -> ClaimStream:
    """Normalise labels, check ids and validate each claim as it is read."""
    items: Iterable[DraftClaim] = draft.claims
    space = label_space or draft.label_space
    if space is None:
        items = list(items)  # the label space is known only once every label is seen
        space = _detect_space(draft, items)
    dataset = Dataset(
        name=dataset_name or draft.name_hint, source_format=draft.source_format,
        label_space=space, source_path=str(draft.path), notes=draft.notes,
    )
    return ClaimStream(dataset, _checked(draft.path, items, space))


def finish(draft: Draft, dataset_name: str | None = None,
           label_space: LabelSpace | None = None) -> ParsedFile:
    """The whole file read and validated, nothing written (a dry run)."""
    claim_stream = stream(draft, dataset_name, label_space)
    pairs = list(claim_stream.claims)
    claims = [Claim.model_validate(fields) for fields, _ in pairs]
    return ParsedFile(claim_stream.dataset, claims, [digest for _, digest in pairs])


def _checked(path: Path, items: Iterable[DraftClaim], space: LabelSpace) -> Iterator[tuple[dict, str]]:
    seen: dict[str, int] = {}
    unknown: dict[str, tuple[int, str]] = {}
    for item in items:
        _check_duplicate_id(item, seen)
        raw = item.fields["raw_label"]
        item.fields["label"] = labels.normalise_gold(raw, space)
        if item.fields["label"] is None:
            unknown.setdefault(raw, (item.reader.located.line, item.source_names.get("raw_label", "label")))
            continue
        yield item.fields, content_hash(item.fields)
    if not seen:
        raise BadInput(path, "no claims in the file")
    if unknown:
        listed = ", ".join(f"{label!r} (line {line})" for label, (line, _) in unknown.items())
        line, field_name = min(unknown.values())
        raise BadInput(
            path, f"unknown labels {listed}; the {space.name} label space has {', '.join(space.all_gold)}",
            line=line, field=field_name,
        )


def content_hash(fields: dict) -> str:
    """A digest of everything read for a claim (plain data, so this is cheap).

    Keys are sorted and empty values left out, so the same claim read by two readers
    (a JSFactCheckBench file, then its `workbench export`) counts as unchanged.
    """
    payload = json.dumps(_canonical(fields), default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


def _canonical(value):
    if type(value) is dict:
        return {key: _canonical(item) for key, item in sorted(value.items())
                if item is not None and item != "" and item != [] and item != {}
                and not (key == "is_cited" and item is False)}
    if type(value) is list:
        return [_canonical(item) for item in value]
    return value


def _detect_space(draft: Draft, items: list[DraftClaim]) -> LabelSpace:
    if not items:
        raise BadInput(draft.path, "no claims in the file")
    raw = {item.fields["raw_label"] for item in items}
    space = labels.detect_space(raw)
    if space is not None:
        return space
    # The space that explains most labels; the unknown-label error then names the rest.
    best = max(labels.BUILTIN_SPACES.values(),
               key=lambda s: sum(labels.normalise_gold(label, s) is not None for label in raw))
    if any(labels.normalise_gold(label, best) for label in raw):
        return best
    first = items[0]
    raise first.reader.fail(
        first.source_names.get("raw_label", "label"),
        f"the gold labels ({', '.join(repr(x) for x in sorted(raw)[:10])}) fit no known label space"
        f" ({', '.join(labels.BUILTIN_SPACES)}); pass --label-space or add a _dataset header",
    )


def _check_duplicate_id(item: DraftClaim, seen: dict[str, int]) -> None:
    external_id = item.fields["external_id"]
    if external_id in seen:
        raise item.reader.fail(
            item.source_names.get("external_id", "id"),
            f"duplicate id {external_id!r} (first on line {seen[external_id]})",
        )
    seen[external_id] = item.reader.located.line


def locate_claim(fields: dict) -> None:
    """Find the claim's place in its response when the file gave no offsets."""
    response, text = fields.get("response"), fields.get("text")
    if response and text and fields.get("claim_start") is None:
        start = response.find(text)
        if start >= 0:
            fields["claim_start"], fields["claim_end"] = start, start + len(text)


def locate_passage(reader: RecordReader, item: dict, field_name: str) -> None:
    """Offsets of a quoted passage in its page; a quote that is not there is an error."""
    passage, text = item.get("passage"), item.get("text")
    if not passage or item.get("passage_start") is not None:
        return
    if not text:
        item["text"] = passage
        text = passage
    start = text.find(passage)
    if start < 0:
        raise reader.fail(field_name, "the quoted passage does not occur in the page text")
    item["passage_start"], item["passage_end"] = start, start + len(passage)
