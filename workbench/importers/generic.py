"""The workbench's own formats: generic JSONL and CSV (docs/formats.md)."""

from __future__ import annotations

import csv
import io
import itertools
import json
from collections.abc import Iterator
from pathlib import Path

from workbench import labels
from workbench.importers.common import Draft, DraftClaim, locate_claim, locate_passage
from workbench.importers.reading import (
    LONG_FIELD_CHARS, BadInput, Located, RecordReader, decode_json, iter_jsonl,
)

_SHORT = ["question", "source", "task", "domain", "article_url"]
_LONG = ["response", "article_text", "justification"]
_KNOWN = {"id", "claim", "label", "importance", "reference_time", "claim_date", "claim_start",
          "claim_end", "attributes", "evidence", *_SHORT, *_LONG}
_EVIDENCE_KINDS = ["passage", "page", "qa", "article"]
HEADER_KEY = "_dataset"


def read_jsonl(path: Path, text: str) -> Draft:
    """Generic JSONL: an optional `_dataset` header line, then one claim per line."""
    records = iter_jsonl(path, text)
    first = next(records, None)
    draft = Draft(path=path, source_format="jsonl", name_hint=path.stem, claims=[])
    if first is not None and HEADER_KEY in first.value:
        _read_header(draft, RecordReader(path, first))
        first = None
    draft.claims = (generic_claim(RecordReader(path, located))
                    for located in itertools.chain([first] if first else [], records))
    return draft


def read_csv(path: Path, text: str) -> Draft:
    """Generic CSV: a header row naming the claim fields; `attr.NAME` columns; JSON `evidence`."""
    csv.field_size_limit(LONG_FIELD_CHARS)
    # strict: an unterminated quote is an error, not a cell that swallows the rest of the file.
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
    if not reader.fieldnames or "claim" not in reader.fieldnames:
        raise BadInput(path, "the header row must name at least the columns id, claim, label", line=1)
    return Draft(path=path, source_format="csv", name_hint=path.stem, claims=_csv_claims(path, reader))


def _csv_claims(path: Path, reader: csv.DictReader) -> Iterator[DraftClaim]:
    index = 0
    while True:
        first_line = reader.reader.line_num + 1  # where the row starts (a quoted cell may span lines)
        try:
            row = next(reader, None)
        except csv.Error as error:
            raise BadInput(path, f"malformed CSV in the row starting here: {error}", line=first_line) from None
        if row is None:
            return
        located = Located(first_line, index, _csv_record(path, first_line, row))
        yield generic_claim(RecordReader(path, located))
        index += 1


def _csv_record(path: Path, line: int, row: dict) -> dict:
    if None in row:
        raise BadInput(path, f"this row has {len(row) - 1 + len(row[None])} cells; the header has "
                       f"{len(row) - 1}", line=line)
    record: dict = {"attributes": {}}
    for column, value in row.items():
        if value is None or value == "":
            continue
        if column.startswith("attr."):
            record["attributes"][column[5:]] = _attribute_cell(value)
        elif column == "evidence":
            record["evidence"] = decode_json(path, value, line, field="evidence")
        elif column in ("claim_start", "claim_end"):
            if not value.strip().isdigit():
                raise BadInput(path, f"must be a whole number, not {value!r}", line=line, field=column)
            record[column] = int(value)
        else:
            record[column] = value
    return record


def _attribute_cell(value: str):
    """A list or object written as JSON (as `export --format csv` writes them) is read back
    as one, so `attr.claim_types:X` still matches any item; anything else stays text."""
    if value.startswith(("[", "{")):
        try:
            return json.loads(value)
        except (json.JSONDecodeError, RecursionError):
            pass
    return value


def _read_header(draft: Draft, reader: RecordReader) -> None:
    header = reader.nested(reader.record[HEADER_KEY], HEADER_KEY + ".")
    draft.name_hint = header.text("name") or draft.name_hint
    draft.notes = header.text("notes", long=True)
    if header.record.get("label_space") is not None:
        try:
            draft.label_space = labels.space_from_header(header.record["label_space"])
        except (ValueError, KeyError, TypeError) as error:
            raise header.fail("label_space", str(error)) from None


def generic_claim(reader: RecordReader) -> DraftClaim:
    """One claim in the generic schema (also used by the format-specific readers)."""
    unknown = sorted(set(reader.record) - _KNOWN)
    if unknown:
        raise reader.fail(unknown[0], f"unknown field (known: {', '.join(sorted(_KNOWN))})")
    fields = {
        "external_id": reader.text("id", required=True),
        "text": reader.text("claim", required=True),
        "raw_label": reader.text("label", required=True),
        "importance": reader.choice("importance", ["Main", "Sub", "Irrelevant"]),
        "reference_time": reader.date("reference_time"),
        "claim_date": reader.date("claim_date"),
        "claim_start": reader.integer("claim_start"),
        "claim_end": reader.integer("claim_end"),
        "attributes": reader.mapping("attributes"),
        **{name: reader.text(name) for name in _SHORT},
        **{name: reader.text(name, long=True) for name in _LONG},
    }
    fields["evidence"] = [
        evidence_item(reader, value, f"evidence[{rank}]", rank)
        for rank, value in enumerate(reader.items("evidence"))
    ]
    locate_claim(fields)
    return DraftClaim(reader, fields, {"text": "claim", "external_id": "id", "raw_label": "label"})


def evidence_item(reader: RecordReader, value: object, name: str, rank: int) -> dict:
    """One generic evidence object."""
    item_reader = reader.nested(value, name + ".")
    item = {
        "kind": item_reader.choice("kind", _EVIDENCE_KINDS) or "passage",
        "rank": rank,
        "url": item_reader.text("url"),
        "title": item_reader.text("title"),
        "text": item_reader.text("text", long=True) or item_reader.text("answer", long=True),
        "passage": item_reader.text("passage", long=True),
        "passage_start": item_reader.integer("passage_start"),
        "passage_end": item_reader.integer("passage_end"),
        "is_cited": item_reader.boolean("cited"),
        "question": item_reader.text("question"),
        "answer_type": item_reader.text("answer_type"),
        "explanation": item_reader.text("explanation", long=True),
        "attributes": item_reader.mapping("attributes"),
    }
    locate_passage(item_reader, item, "passage")
    return item
