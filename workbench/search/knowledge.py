"""Knowledge stores: documents a search run's offline backend can find beside the claims'
own evidence. AVeriTeC publishes one per claim, `CLAIM_ID.json` with a JSON object per
line ({"url", "url2text": [sentences], ...}); any JSONL with url and text works too.

All or nothing: a line that cannot be read names file and line, and nothing is added.
"""

from __future__ import annotations

from pathlib import Path

from store import Store
from workbench.importers.reading import BadInput, decode_json

TEXT_KEYS = ("text", "url2text", "content", "body", "page_text")


def import_knowledge(store: Store, dataset_id: int, path: Path) -> tuple[int, int]:
    """(documents added, documents read): a document the dataset has already is skipped."""
    if not path.exists():  # as `workbench import` says it: one line, exit 1 (not a usage error)
        raise BadInput(path, "no such file")
    files = sorted(p for p in path.iterdir() if p.suffix in (".json", ".jsonl")) if path.is_dir() else [path]
    rows = [row for file in files for row in _documents(file)]
    return store.search.add_documents(dataset_id, rows), len(rows)


def _documents(file: Path) -> list[tuple]:
    claim_from_name = file.stem if file.stem.isdigit() else None
    rows = []
    with file.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            record = decode_json(file, line, number)
            if not isinstance(record, dict):
                raise BadInput(file, "a document is a JSON object per line", line=number)
            text = next((record[key] for key in TEXT_KEYS if record.get(key)), None)
            if isinstance(text, list):
                text = " ".join(str(part) for part in text if part)
            if not isinstance(text, str) or not text.strip():
                raise BadInput(
                    file, "a document needs its text (text, or url2text sentences)", line=number, field="text"
                )
            claim = record.get("claim_id", claim_from_name)
            rows.append(
                (
                    None if claim is None else str(claim),
                    record.get("url"),
                    record.get("title"),
                    text,
                    record.get("date") or record.get("published"),
                )
            )
    return rows
