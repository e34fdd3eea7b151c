"""What people (and the contamination pipeline) say about claims and predictions:
flags, failure categories, triage entries and reviews. Every change can be undone."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlite_utils import Database

from store.flag_specs import FlagSpec, check_flag_model
from store.records import Flag, now_iso

CHECKED_CLEAN = "not-contaminated"
"""The flag kind for "checked by a person: not contaminated" (threshold sweeps need it)."""

_FLAG_COLUMNS = ["claim_id", "kind", "source", "model", "metric", "score", "threshold", "note", "who",
                 "created_at"]


@dataclass
class FailureCategory:
    id: int
    slug: str
    name: str
    key: str | None
    description: str | None
    builtin: bool


@dataclass
class FlagChange:
    """What a flag operation did, so the TUI can undo it."""

    added_ids: list[int]
    removed: list[Flag]


class AnnotationStore:
    """Flags on claims; triage on predictions."""

    def __init__(self, db: Database):
        self.db = db

    # -- flags ---------------------------------------------------------------

    def flag(self, claim_ids: list[int], kind: str, note: str | None = None, who: str | None = None,
             source: str = "manual", model: str = "", metric: str = "",
             score: float | None = None, threshold: float | None = None) -> FlagChange:
        """Flag claims (claims that already carry this exact flag are left as they are)."""
        added = []
        stamp = now_iso()
        with self.db.atomic():
            for claim_id in claim_ids:
                cursor = self.db.conn.execute(
                    f"INSERT OR IGNORE INTO flags ({', '.join(_FLAG_COLUMNS)})"
                    f" VALUES ({', '.join('?' * len(_FLAG_COLUMNS))})",
                    [claim_id, kind, source, model, metric, score, threshold, note, who, stamp],
                )
                if cursor.rowcount:
                    added.append(cursor.lastrowid)
        return FlagChange(added_ids=added, removed=[])

    def set_pipeline_flags(self, flags: list[Flag], kind: str, model: str, metric: str) -> FlagChange:
        """Replace the pipeline's flags of one kind/model/metric with `flags`."""
        with self.db.atomic():
            removed = self._select_flags(
                "kind = ? AND source = 'pipeline' AND model = ? AND metric = ?", [kind, model, metric]
            )
            self.db.execute(
                "DELETE FROM flags WHERE kind = ? AND source = 'pipeline' AND model = ? AND metric = ?",
                [kind, model, metric],
            )
            added = [self._insert(f) for f in flags]
        return FlagChange(added_ids=added, removed=removed)

    def unflag(self, claim_ids: list[int], kind: str, source: str | None = "manual") -> FlagChange:
        """Remove a kind of flag from claims (manual ones only, unless `source` says)."""
        where = "claim_id = ? AND kind = ?" + (" AND source = ?" if source else "")
        removed = []
        with self.db.atomic():
            for claim_id in claim_ids:
                params = [claim_id, kind] + ([source] if source else [])
                removed += self._select_flags(where, params)
                self.db.execute(f"DELETE FROM flags WHERE {where}", params)
        return FlagChange(added_ids=[], removed=removed)

    def undo(self, change: FlagChange) -> None:
        """Reverse a flag / unflag exactly."""
        with self.db.atomic():
            for flag_id in change.added_ids:
                self.db.execute("DELETE FROM flags WHERE id = ?", [flag_id])
            for flag in change.removed:
                self._insert(flag, keep_id=True)

    def check_spec(self, spec: FlagSpec) -> None:
        """FlagSpecError when the spec names a model nothing was found for (see check_flag_model)."""
        check_flag_model(self.db, spec)

    def flags_for(self, claim_id: int) -> list[Flag]:
        """Every flag on a claim."""
        return self._select_flags("claim_id = ?", [claim_id])

    def flag_kinds(self) -> dict[str, int]:
        """Flag kinds in use and how many claims carry each."""
        rows = self.db.execute("SELECT kind, count(DISTINCT claim_id) FROM flags GROUP BY kind ORDER BY kind")
        return dict(rows.fetchall())

    def flagged_claim_ids(self, kind: str, model: str | None = None, metric: str | None = None,
                          source: str | None = None) -> set[int]:
        """Claims carrying a flag of this kind (optionally from one model / metric / source)."""
        where, params = ["kind = ?"], [kind]
        for column, value in (("model", model), ("metric", metric), ("source", source)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        rows = self.db.execute(f"SELECT DISTINCT claim_id FROM flags WHERE {' AND '.join(where)}", params)
        return {r[0] for r in rows}

    def _insert(self, flag: Flag, keep_id: bool = False) -> int:
        values = flag.model_dump(exclude=None if keep_id else {"id"})
        values["created_at"] = values["created_at"] or now_iso()
        cursor = self.db.conn.execute(
            f"INSERT OR REPLACE INTO flags ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})",
            list(values.values()),
        )
        return cursor.lastrowid

    def _select_flags(self, where: str, params: list) -> list[Flag]:
        cursor = self.db.execute(f"SELECT * FROM flags WHERE {where} ORDER BY id", params)
        names = [d[0] for d in cursor.description]
        return [Flag.model_validate(dict(zip(names, row))) for row in cursor]

    # -- failure categories and triage ----------------------------------------

    def categories(self) -> list[FailureCategory]:
        """Failure categories, built-in first."""
        rows = self.db.execute(
            "SELECT id, slug, name, key, description, builtin FROM failure_categories"
            " ORDER BY builtin DESC, id"
        )
        return [FailureCategory(*row[:5], bool(row[5])) for row in rows]

    def add_category(self, name: str, key: str | None = None, description: str | None = None) -> FailureCategory:
        """A user's own failure category, with an optional one-key shortcut."""
        slug = slugify(name)
        if not slug:
            raise ValueError("a category needs a name with letters or digits")
        existing = self.categories()
        if any(c.slug == slug for c in existing):
            raise ValueError(f"a category named {name!r} already exists")
        if key and any(c.key == key for c in existing):
            raise ValueError(f"key {key!r} is already taken by another category")
        with self.db.atomic():
            self.db.execute(
                "INSERT INTO failure_categories (slug, name, key, description, builtin, created_at)"
                " VALUES (?, ?, ?, ?, 0, ?)",
                [slug, name, key, description, now_iso()],
            )
        return next(c for c in self.categories() if c.slug == slug)

    def toggle_category(self, prediction_id: int, category_id: int, who: str | None = None,
                        note: str | None = None) -> bool:
        """Assign the category to a prediction, or take it off if it was there. True if now on."""
        with self.db.atomic():
            cursor = self.db.execute(
                "DELETE FROM triage_entries WHERE prediction_id = ? AND category_id = ?",
                [prediction_id, category_id],
            )
            if cursor.rowcount:
                return False
            self.db.execute(
                "INSERT INTO triage_entries (prediction_id, category_id, note, who, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                [prediction_id, category_id, note, who, now_iso()],
            )
        return True

    def categories_for(self, prediction_id: int) -> list[FailureCategory]:
        """Categories assigned to one prediction."""
        ids = {r[0] for r in self.db.execute(
            "SELECT category_id FROM triage_entries WHERE prediction_id = ?", [prediction_id]
        )}
        return [c for c in self.categories() if c.id in ids]

    def review(self, prediction_id: int, reviewed: bool = True, note: str | None = None,
               who: str | None = None) -> None:
        """Mark a prediction reviewed (or not) with an optional note."""
        with self.db.atomic():
            self.db.execute(
                "INSERT INTO triage_reviews (prediction_id, reviewed, note, who, updated_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (prediction_id) DO UPDATE SET"
                " reviewed = excluded.reviewed, note = coalesce(excluded.note, note),"
                " who = excluded.who, updated_at = excluded.updated_at",
                [prediction_id, int(reviewed), note, who, now_iso()],
            )

    def review_of(self, prediction_id: int) -> tuple[bool, str | None]:
        """(reviewed, note) for a prediction."""
        row = self.db.execute(
            "SELECT reviewed, note FROM triage_reviews WHERE prediction_id = ?", [prediction_id]
        ).fetchone()
        return (bool(row[0]), row[1]) if row else (False, None)

    def category_counts(self, run_id: int) -> dict[str, int]:
        """How many of a run's predictions carry each category (every category listed)."""
        rows = self.db.execute(
            "SELECT fc.name, count(p.id) FROM failure_categories fc"
            " LEFT JOIN triage_entries t ON t.category_id = fc.id"
            " LEFT JOIN predictions p ON p.id = t.prediction_id AND p.run_id = ?"
            " GROUP BY fc.id ORDER BY fc.builtin DESC, fc.id",
            [run_id],
        )
        return dict(rows.fetchall())


def slugify(name: str) -> str:
    """'Flawed Reasoning' -> 'flawed-reasoning' (what filters use: triage:flawed-reasoning)."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
