"""Datasets and importing claims into them, all-or-nothing."""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from store.connection import atomic, rows_as_dicts
from store.dataset_records import Dataset, LabelSpace
from store.records import as_dict, now_iso, to_json, validated

if TYPE_CHECKING:
    from sqlite3 import Connection

    from store.claim_records import Claim

    ClaimData = Claim | Mapping[str, Any]

_CLAIM_COLUMNS = [
    "text",
    "label",
    "raw_label",
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
]
_EVIDENCE_COLUMNS = [
    "kind",
    "rank",
    "url",
    "title",
    "text",
    "passage",
    "passage_start",
    "passage_end",
    "is_cited",
    "question",
    "answer_type",
    "explanation",
]
_INSERT_CLAIM = (
    "INSERT INTO claims (id, dataset_id, external_id, {cols}, attributes, content_hash) VALUES (?, ?, ?, {marks}, ?, ?)"
).format(cols=", ".join(_CLAIM_COLUMNS), marks=", ".join("?" * len(_CLAIM_COLUMNS)))
_UPDATE_CLAIM = "UPDATE claims SET {sets}, attributes = ?, content_hash = ? WHERE id = ?".format(
    sets=", ".join(f"{c} = ?" for c in _CLAIM_COLUMNS)
)
_INSERT_EVIDENCE = "INSERT INTO evidence (claim_id, {cols}, attributes) VALUES (?, {marks}, ?)".format(
    cols=", ".join(_EVIDENCE_COLUMNS), marks=", ".join("?" * len(_EVIDENCE_COLUMNS))
)
_IS_CITED = _EVIDENCE_COLUMNS.index("is_cited")
_IMAGE_COLUMNS = ["rank", "source", "url", "sha256", "caption"]
_INSERT_CLAIM_IMAGE = "INSERT INTO claim_images (claim_id, {cols}) VALUES (?, {marks})".format(
    cols=", ".join(_IMAGE_COLUMNS), marks=", ".join("?" * len(_IMAGE_COLUMNS))
)
# Bytes are stored once per content: a picture shared by claims (or imported again) is one row.
INSERT_IMAGE = "INSERT OR IGNORE INTO images (sha256, mime, bytes, width, height, data) VALUES (?, ?, ?, ?, ?, ?)"
BATCH = 2000


class DatasetConflict(ValueError):
    """Importing into an existing dataset with a different label space."""


@dataclass
class ImportCounts:
    """What an import changed."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0

    @property
    def total(self) -> int:
        return self.added + self.updated + self.unchanged


class DatasetStore:
    """Datasets and the claims inside them."""

    def __init__(self, db: Connection):
        self.db = db

    def list(self) -> list[Dataset]:
        """Every dataset with its claim count."""
        return self._select("1", [])

    def get(self, name: str) -> Dataset | None:
        """A dataset by name."""
        found = self._select("d.name = ?", [name])
        return found[0] if found else None

    def by_id(self, dataset_id: int) -> Dataset | None:
        """A dataset by id."""
        found = self._select("d.id = ?", [dataset_id])
        return found[0] if found else None

    def name_of(self, dataset_id: int) -> str | None:
        """A dataset's name, without counting its claims."""
        row = self.db.execute("SELECT name FROM datasets WHERE id = ?", [dataset_id]).fetchone()
        return row[0] if row is not None else None

    def import_options(self, dataset_id: int) -> str | None:
        """How the dataset's latest import read it ("PROFILE --map ..."), without counting its claims."""
        row = self.db.execute("SELECT source_format FROM datasets WHERE id = ?", [dataset_id]).fetchone()
        return row[0] if row is not None else None

    def label_space(self, dataset_id: int | str) -> LabelSpace | None:
        """A dataset's label space (by id, or by name), without counting its claims."""
        column = "name" if isinstance(dataset_id, str) else "id"
        row = self.db.execute(
            f"SELECT label_space, labels, abstain_label, excluded_labels FROM datasets WHERE {column} = ?", [dataset_id]
        ).fetchone()
        if row is None:
            return None
        return LabelSpace(name=row[0], labels=json.loads(row[1]), abstain=row[2], excluded=json.loads(row[3]))

    def _select(self, where: str, params: list) -> list[Dataset]:
        cursor = self.db.execute(
            "SELECT d.*, (SELECT count(*) FROM claims c WHERE c.dataset_id = d.id) AS claim_count"
            f" FROM datasets d WHERE {where} ORDER BY d.name",
            params,
        )
        return [_dataset(row) for row in rows_as_dicts(cursor)]

    def label_counts(self, dataset_id: int) -> dict[str, int]:
        """How many claims carry each gold label."""
        rows = self.db.execute(
            "SELECT label, count(*) FROM claims WHERE dataset_id = ? GROUP BY label ORDER BY 2 DESC", [dataset_id]
        )
        return {label: n for label, n in rows}

    def import_claims(
        self, dataset: Dataset, claims: Iterable[ClaimData | tuple[ClaimData, str]], images: Iterable[dict] = ()
    ) -> ImportCounts:
        """Add or update claims in one transaction; nothing is written if anything fails.

        Claims are matched by external id: a claim whose content is unchanged is left
        alone (so predictions on it stay attached), a changed one is updated in place.
        A claim is a store.Claim or a mapping of its fields (evidence items likewise);
        items may be (claim, content digest) pairs when the caller has the digest already.
        The iterable may still be reading its file: an error it raises rolls everything back.
        External ids must be unique within one call (the importer checks them first).
        `images`: bytes the claims' evidence refers to by sha256 (sha256, mime, bytes, width,
        height, data), stored in the same transaction without being shown as a claim's image.
        """
        conn = self.db
        conn.execute("BEGIN IMMEDIATE")
        try:
            with _full_text_indexed_in_bulk(conn):
                counts = self._import(dataset, claims)
            conn.executemany(INSERT_IMAGE, [image_row(image) for image in images])
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return counts

    def _import(self, dataset: Dataset, claims: Iterable[ClaimData | tuple[ClaimData, str]]) -> ImportCounts:
        # Read the first claim before comparing label spaces: a file in the wrong format
        # should say so, not report a clash with the dataset it was meant to update.
        from store.claim_records import Claim  # made for imports, not for `workbench datasets`

        claims = iter(claims)
        first = next(claims, None)
        claims = itertools.chain([first] if first is not None else [], claims)
        dataset_id = self._upsert_dataset(dataset)
        existing = {
            ext: (cid, digest)
            for ext, cid, digest in self.db.execute(
                "SELECT external_id, id, content_hash FROM claims WHERE dataset_id = ?", [dataset_id]
            )
        }
        next_id = self.db.execute("SELECT coalesce(max(id), 0) + 1 FROM claims").fetchone()[0]
        counts = ImportCounts()
        inserts, updates, evidence, stale_evidence = [], [], [], []
        images = _Images()
        for item in claims:
            claim, digest = item if isinstance(item, tuple) else (item, None)
            fields = _fields(claim)
            digest = digest or claim_hash(validated(Claim, claim))
            external_id = fields["external_id"]
            known = existing.get(external_id)
            if known and known[1] == digest:
                counts.unchanged += 1
                continue
            values = [fields.get(c) for c in _CLAIM_COLUMNS] + [_json_or_empty(fields.get("attributes")), digest]
            if known:
                claim_id = known[0]
                updates.append(values + [claim_id])
                stale_evidence.append((claim_id,))
                counts.updated += 1
            else:
                claim_id = next_id
                next_id += 1
                inserts.append([claim_id, dataset_id, external_id] + values)
                counts.added += 1
            evidence.extend(_evidence_rows(claim_id, fields.get("evidence") or []))
            images.add(claim_id, fields.get("images") or [])
            if len(inserts) + len(updates) >= BATCH:
                self._flush(inserts, updates, stale_evidence, evidence, images)
        self._flush(inserts, updates, stale_evidence, evidence, images)
        return counts

    def _flush(self, inserts, updates, stale_evidence, evidence, images: _Images) -> None:
        conn = self.db
        conn.executemany(_INSERT_CLAIM, inserts)
        conn.executemany(_UPDATE_CLAIM, updates)
        conn.executemany("DELETE FROM evidence WHERE claim_id = ?", stale_evidence)
        conn.executemany("DELETE FROM claim_images WHERE claim_id = ?", stale_evidence)
        conn.executemany(_INSERT_EVIDENCE, evidence)
        conn.executemany(INSERT_IMAGE, images.contents)
        conn.executemany(_INSERT_CLAIM_IMAGE, images.placed)
        for batch in (inserts, updates, stale_evidence, evidence, images.contents, images.placed):
            batch.clear()

    def _upsert_dataset(self, dataset: Dataset) -> int:
        space = dataset.label_space
        row = self.db.execute(
            "SELECT id, label_space, labels, abstain_label, excluded_labels FROM datasets WHERE name = ?",
            [dataset.name],
        ).fetchone()
        if row is not None:
            stored = LabelSpace(name=row[1], labels=json.loads(row[2]), abstain=row[3], excluded=json.loads(row[4]))
            if stored.labels != space.labels or stored.abstain != space.abstain:
                raise DatasetConflict(
                    f"dataset {dataset.name!r} already exists with labels {_listed(stored)};"
                    f" this file's labels are {_listed(space)}. Import it under another --dataset name."
                )
            # The latest import says how the dataset was read (its profile and options) and when.
            self.db.execute(
                "UPDATE datasets SET source_format = ?, source_path = ?, imported_at = ?,"
                " notes = coalesce(?, notes) WHERE id = ?",
                [dataset.source_format, dataset.source_path, now_iso(), dataset.notes, row[0]],
            )
            return row[0]
        cursor = self.db.execute(
            "INSERT INTO datasets (name, source_format, label_space, labels, abstain_label,"
            " excluded_labels, source_path, imported_at, notes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                dataset.name,
                dataset.source_format,
                space.name,
                json.dumps(space.labels),
                space.abstain,
                json.dumps(space.excluded),
                dataset.source_path,
                now_iso(),
                dataset.notes,
            ],
        )
        return cursor.lastrowid

    def delete(self, name: str) -> bool:
        """Remove a dataset with its claims, evidence, runs and flags."""
        with atomic(self.db):
            cursor = self.db.execute("DELETE FROM datasets WHERE name = ?", [name])
        return cursor.rowcount > 0


# Row-by-row FTS triggers cost more than the inserts themselves; indexing the new rows
# in one statement at the end of the transaction costs almost nothing.
_BULK_FTS = {
    "claims_fts_insert": ("claims", "INSERT INTO claims_fts(rowid, text) SELECT id, text FROM claims WHERE id >= ?"),
    "evidence_fts_insert": (
        "evidence",
        "INSERT INTO evidence_fts(rowid, title, text) SELECT id, title, text FROM evidence WHERE id >= ?",
    ),
}


@contextmanager
def _full_text_indexed_in_bulk(conn: sqlite3.Connection) -> Iterator[None]:
    """Inside a transaction: suspend the FTS insert triggers, then index new rows at once.

    Rows are only ever appended with ids above the current maximum, so the new rows are
    exactly those from the first free id on. A rollback restores the triggers too.
    """
    suspended = []
    for trigger, (table, index_sql) in _BULK_FTS.items():
        sql = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?", [trigger]).fetchone()
        first_new_id = conn.execute(f"SELECT coalesce(max(id), 0) + 1 FROM {table}").fetchone()[0]
        conn.execute(f"DROP TRIGGER {trigger}")
        suspended.append((sql[0], index_sql, first_new_id))
    yield
    for trigger_sql, index_sql, first_new_id in suspended:
        conn.execute(index_sql, [first_new_id])
        conn.execute(trigger_sql)


def _listed(space: LabelSpace) -> str:
    return ", ".join(space.labels) + (f" (abstain {space.abstain})" if space.abstain else "")


def claim_hash(claim: Claim) -> str:
    """A digest of everything imported for a claim (to tell updated from unchanged)."""
    import hashlib  # on imports only (loading OpenSSL's hashes costs a reading command a few ms)

    payload = as_dict(claim, exclude={"id", "dataset"})
    return hashlib.sha256(to_json(payload).encode()).hexdigest()[:32]


def _fields(record: ClaimData) -> Mapping[str, Any]:
    """A record's fields without copying: a mapping as is, a record's __dict__."""
    return record if isinstance(record, Mapping) else record.__dict__


def _evidence_rows(claim_id: int, items: list) -> list[list]:
    rows = []
    for item in items:
        fields = _fields(item)
        values = [fields.get(c) for c in _EVIDENCE_COLUMNS]
        values[_IS_CITED] = bool(values[_IS_CITED])
        rows.append([claim_id] + values + [_json_or_empty(fields.get("attributes"))])
    return rows


def image_row(image: dict) -> list:
    """An image's row of the images table (bytes stored once per content)."""
    return [image["sha256"], image["mime"], image["bytes"], image["width"], image["height"], image["data"]]


class _Images:
    """A batch's image rows: the bytes (by sha256) and where each claim shows one."""

    def __init__(self):
        self.contents: list[list] = []
        self.placed: list[list] = []

    def add(self, claim_id: int, items: list) -> None:
        for item in items:
            fields = _fields(item)
            self.placed.append([claim_id] + [fields.get(c) for c in _IMAGE_COLUMNS])
            if fields.get("data") is not None:
                self.contents.append(
                    [
                        fields["sha256"],
                        fields["mime"],
                        fields["bytes"],
                        fields["width"],
                        fields["height"],
                        fields["data"],
                    ]
                )


def _json_or_empty(value: dict | None) -> str:
    return to_json(value) if value else "{}"


def _dataset(row: dict) -> Dataset:
    space = LabelSpace(
        name=row["label_space"],
        labels=json.loads(row["labels"]),
        abstain=row["abstain_label"],
        excluded=json.loads(row["excluded_labels"]),
    )
    return Dataset(
        id=row["id"],
        name=row["name"],
        source_format=row["source_format"],
        label_space=space,
        source_path=row["source_path"],
        imported_at=row["imported_at"],
        notes=row["notes"],
        claim_count=row["claim_count"],
    )
