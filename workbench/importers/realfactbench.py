"""RealFactBench-shaped JSON or JSONL: claims labelled TRUE / FALSE with evidence text,
a task (KV, RD, EV), a domain, a date and a source."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from workbench.importers.common import Draft, DraftClaim
from workbench.importers.reading import RecordReader, iter_json_array, iter_jsonl
from workbench.labels import REALFACTBENCH

TASKS = ["KV", "RD", "EV"]


def read_realfactbench(path: Path, text: str) -> Draft:
    """A JSON array or one object per line; records without an id get their index."""
    return Draft(path=path, source_format="realfactbench", name_hint=path.stem,
                 claims=_claims(path, text), label_space=REALFACTBENCH)


def _claims(path: Path, text: str) -> Iterator[DraftClaim]:
    is_array = text.lstrip().startswith("[")
    records = iter_json_array(path, text) if is_array else iter_jsonl(path, text)
    for located in records:
        reader = RecordReader(path, located, show_record=is_array)
        attributes = reader.mapping("attributes")
        image = reader.text("image")
        if image:
            attributes["image"] = image
        fields = {
            "external_id": reader.text("id") or str(located.record),
            "text": reader.text("claim", required=True),
            "raw_label": reader.text("label", required=True),
            "task": reader.choice("task", TASKS),
            "domain": reader.text("domain"),
            "claim_date": reader.date("date"),
            "source": reader.text("source"),
            "article_url": reader.text("article_url"),
            "article_text": reader.text("article_text", long=True),
            "justification": reader.text("reason", long=True),
            "attributes": attributes,
            "evidence": _evidence(reader),
        }
        yield DraftClaim(reader, fields, {"text": "claim", "raw_label": "label", "claim_date": "date"})


def _evidence(reader: RecordReader) -> list[dict]:
    value = reader.record.get("evidence")
    if value is None or value == "":
        return []
    texts = value if isinstance(value, list) else [value]
    items = []
    for rank, text in enumerate(texts):
        if not isinstance(text, str):
            raise reader.fail(f"evidence[{rank}]", f"must be text, not {type(text).__name__}")
        items.append({"kind": "passage", "rank": rank, "text": text})
    return items
