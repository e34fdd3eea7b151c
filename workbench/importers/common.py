"""What every importer shares: drafts of claims, label normalisation, duplicate ids,
offsets of quoted passages, and validation into store records."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

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
    """Everything read from one file."""

    path: Path
    source_format: str
    name_hint: str
    claims: list[DraftClaim]
    label_space: LabelSpace | None = None
    notes: str | None = None


@dataclass
class ParsedFile:
    """A whole file, validated and ready to write."""

    dataset: Dataset
    claims: list[Claim]


def finish(draft: Draft, dataset_name: str | None = None,
           label_space: LabelSpace | None = None) -> ParsedFile:
    """Normalise labels, check ids, locate passages, validate: all before any write."""
    if not draft.claims:
        raise BadInput(draft.path, "no claims in the file")
    space = label_space or draft.label_space or _detect_space(draft)
    _normalise_labels(draft, space)
    _check_duplicate_ids(draft)
    claims = [_validate(item) for item in draft.claims]
    dataset = Dataset(
        name=dataset_name or draft.name_hint, source_format=draft.source_format,
        label_space=space, source_path=str(draft.path), notes=draft.notes,
    )
    return ParsedFile(dataset, claims)


def _detect_space(draft: Draft) -> LabelSpace:
    raw = {item.fields["raw_label"] for item in draft.claims}
    space = labels.detect_space(raw)
    if space is not None:
        return space
    # The space that explains most labels; the unknown-label error then names the rest.
    best = max(labels.BUILTIN_SPACES.values(),
               key=lambda s: sum(labels.normalise_gold(label, s) is not None for label in raw))
    if any(labels.normalise_gold(label, best) for label in raw):
        return best
    first = draft.claims[0]
    raise first.reader.fail(
        first.source_names.get("raw_label", "label"),
        f"the gold labels ({', '.join(repr(x) for x in sorted(raw)[:10])}) fit no known label space"
        f" ({', '.join(labels.BUILTIN_SPACES)}); pass --label-space or add a _dataset header",
    )


def _normalise_labels(draft: Draft, space: LabelSpace) -> None:
    unknown: dict[str, int] = {}
    for item in draft.claims:
        raw = item.fields["raw_label"]
        canonical = labels.normalise_gold(raw, space)
        if canonical is None:
            unknown.setdefault(raw, item.reader.located.line)
        item.fields["label"] = canonical
    if unknown:
        first_line = min(unknown.values())
        listed = ", ".join(f"{label!r} (line {line})" for label, line in unknown.items())
        raise BadInput(
            draft.path,
            f"unknown labels {listed}; the {space.name} label space has {', '.join(space.all_gold)}",
            line=first_line, field=draft.claims[0].source_names.get("raw_label", "label"),
        )


def _check_duplicate_ids(draft: Draft) -> None:
    seen: dict[str, int] = {}
    for item in draft.claims:
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


def _validate(item: DraftClaim) -> Claim:
    try:
        return Claim.model_validate(item.fields)
    except ValidationError as error:
        problem = error.errors()[0]
        path = [str(part) for part in problem["loc"]]
        if path:
            path[0] = item.source_names.get(path[0], path[0])
        name = ".".join(path).replace(".evidence.", "evidence.")
        raise item.reader.fail(name, problem["msg"]) from None
