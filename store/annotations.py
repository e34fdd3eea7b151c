"""What people (and the contamination pipeline) say about claims and predictions:
flags, failure categories, triage entries and reviews. Every change can be undone."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from store.connection import atomic
from store.records import UNATTRIBUTED, Flag, as_dict, now_iso

if TYPE_CHECKING:
    from sqlite3 import Connection

    from store.flag_specs import FlagSpec
    from store.triage import TriageStore

CHECKED_CLEAN = "not-contaminated"
"""The flag kind for "checked by a person: not contaminated" (threshold sweeps need it)."""

_FLAG_COLUMNS = ["claim_id", "kind", "source", "model", "metric", "score", "threshold", "note", "who", "created_at"]


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

    def __init__(self, db: Connection):
        self.db = db

    @cached_property
    def team(self) -> TriageStore:
        from store.triage import TriageStore  # when triage is asked for: `show` reads flags only

        return TriageStore(self.db)

    # -- flags ---------------------------------------------------------------

    def flag(
        self,
        claim_ids: list[int],
        kind: str,
        note: str | None = None,
        who: str | None = None,
        source: str = "manual",
        model: str = "",
        metric: str = "",
        score: float | None = None,
        threshold: float | None = None,
    ) -> FlagChange:
        """Flag claims (claims that already carry this exact flag are left as they are).

        A manual flag is a person's label: it carries its annotator (UNATTRIBUTED when none
        is given), two people's flags of one kind are two flags, and each enters the history.
        """
        added = []
        stamp = now_iso()
        if source == "manual":
            who = who or UNATTRIBUTED
        with atomic(self.db):
            for claim_id in claim_ids:
                cursor = self.db.execute(
                    f"INSERT OR IGNORE INTO flags ({', '.join(_FLAG_COLUMNS)})"
                    f" VALUES ({', '.join('?' * len(_FLAG_COLUMNS))})",
                    [claim_id, kind, source, model, metric, score, threshold, note, who, stamp],
                )
                if cursor.rowcount:
                    added.append(cursor.lastrowid)
                    if source == "manual":
                        self._flag_history(claim_id, who, None, kind, "flag", stamp)
        return FlagChange(added_ids=added, removed=[])

    def _flag_history(
        self, claim_id: int, who: str | None, old: str | None, new: str | None, source: str, stamp: str | None = None
    ) -> None:
        self.team.record_history(
            None, "flag", who or UNATTRIBUTED, who or UNATTRIBUTED, old, new, source, stamp, claim_id=claim_id
        )

    def set_pipeline_flags(self, flags: list[Flag], kind: str, model: str, metric: str) -> FlagChange:
        """Replace the pipeline's flags of one kind/model/metric with `flags`."""
        with atomic(self.db):
            removed = self._select_flags(
                "kind = ? AND source = 'pipeline' AND model = ? AND metric = ?", [kind, model, metric]
            )
            self.db.execute(
                "DELETE FROM flags WHERE kind = ? AND source = 'pipeline' AND model = ? AND metric = ?",
                [kind, model, metric],
            )
            added = [self._insert(f) for f in flags]
        return FlagChange(added_ids=added, removed=removed)

    def unflag(
        self, claim_ids: list[int], kind: str, source: str | None = "manual", who: str | None = None
    ) -> FlagChange:
        """Remove a kind of flag from claims (manual ones only, unless `source` says; only
        `who`'s, when given)."""
        where = "claim_id = ? AND kind = ?" + (" AND source = ?" if source else "") + (" AND who = ?" if who else "")
        removed = []
        with atomic(self.db):
            for claim_id in claim_ids:
                params = [claim_id, kind] + ([source] if source else []) + ([who] if who else [])
                gone = self._select_flags(where, params)
                self.db.execute(f"DELETE FROM flags WHERE {where}", params)
                for flag in gone:
                    if flag.source == "manual":
                        self._flag_history(claim_id, flag.who, flag.kind, None, "unflag")
                removed += gone
        return FlagChange(added_ids=[], removed=removed)

    def undo(self, change: FlagChange) -> None:
        """Reverse a flag / unflag exactly (the history keeps both the change and its undoing)."""
        with atomic(self.db):
            for flag in (
                self._select_flags(f"id IN ({', '.join('?' * len(change.added_ids))})", change.added_ids)
                if change.added_ids
                else []
            ):
                self.db.execute("DELETE FROM flags WHERE id = ?", [flag.id])
                if flag.source == "manual":
                    self._flag_history(flag.claim_id, flag.who, flag.kind, None, "undo")
            for flag in change.removed:
                self._insert(flag, keep_id=True)
                if flag.source == "manual":
                    self._flag_history(flag.claim_id, flag.who, None, flag.kind, "undo")

    def check_spec(self, spec: FlagSpec) -> None:
        """FlagSpecError when the spec names a model nothing was found for (see check_flag_model)."""
        from store.flag_specs import check_flag_model

        check_flag_model(self.db, spec)

    def flags_for(self, claim_id: int) -> list[Flag]:
        """Every flag on a claim."""
        return self._select_flags("claim_id = ?", [claim_id])

    def flag_kinds(self) -> dict[str, int]:
        """Flag kinds in use and how many claims carry each."""
        rows = self.db.execute("SELECT kind, count(DISTINCT claim_id) FROM flags GROUP BY kind ORDER BY kind")
        return dict(rows.fetchall())

    def flagged_claim_ids(
        self, kind: str, model: str | None = None, metric: str | None = None, source: str | None = None
    ) -> set[int]:
        """Claims carrying a flag of this kind (optionally from one model / metric / source)."""
        where, params = ["kind = ?"], [kind]
        for column, value in (("model", model), ("metric", metric), ("source", source)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        rows = self.db.execute(f"SELECT DISTINCT claim_id FROM flags WHERE {' AND '.join(where)}", params)
        return {r[0] for r in rows}

    def manual_marks(self, kinds: list[str]) -> list[tuple[int, str, str]]:
        """(claim id, who, kind) of every manual flag of these kinds: people's labels, each
        person's own."""
        marks = ", ".join("?" * len(kinds))
        rows = self.db.execute(
            f"SELECT claim_id, coalesce(who, ?), kind FROM flags WHERE source = 'manual'"
            f" AND kind IN ({marks}) ORDER BY claim_id, who",
            [UNATTRIBUTED, *kinds],
        )
        return rows.fetchall()

    def _insert(self, flag: Flag, keep_id: bool = False) -> int:
        values = as_dict(flag, exclude=None if keep_id else {"id"})
        values["created_at"] = values["created_at"] or now_iso()
        cursor = self.db.execute(
            f"INSERT OR REPLACE INTO flags ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})",
            list(values.values()),
        )
        return cursor.lastrowid

    def _select_flags(self, where: str, params: list) -> list[Flag]:
        cursor = self.db.execute(f"SELECT * FROM flags WHERE {where} ORDER BY id", params)
        names = [d[0] for d in cursor.description]
        return [Flag(**dict(zip(names, row))) for row in cursor]

    # -- failure categories and triage ----------------------------------------

    def categories(self) -> list[FailureCategory]:
        """Failure categories, built-in first."""
        rows = self.db.execute(
            "SELECT id, slug, name, key, description, builtin FROM failure_categories ORDER BY builtin DESC, id"
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
        with atomic(self.db):
            self.db.execute(
                "INSERT INTO failure_categories (slug, name, key, description, builtin, created_at)"
                " VALUES (?, ?, ?, ?, 0, ?)",
                [slug, name, key, description, now_iso()],
            )
        return next(c for c in self.categories() if c.slug == slug)

    def toggle_category(
        self, prediction_id: int, category_id: int, who: str | None = None, note: str | None = None
    ) -> bool:
        """Give the category to an answer as `who` (store.triage), or take it off. True if now on."""
        on = self.team.toggle_category(prediction_id, who or UNATTRIBUTED, category_id)
        if note is not None:
            self.team.set_note(prediction_id, who or UNATTRIBUTED, note)
        return on

    def categories_for(self, prediction_id: int, annotator: str | None = None) -> list[FailureCategory]:
        """Categories one annotator gave an answer (None: anyone)."""
        sql, params = "SELECT category_id FROM triage_entries WHERE prediction_id = ?", [prediction_id]
        if annotator is not None:
            sql, params = sql + " AND annotator = ?", params + [annotator]
        ids = {r[0] for r in self.db.execute(sql, params)}
        return [c for c in self.categories() if c.id in ids]

    def review(
        self, prediction_id: int, reviewed: bool = True, note: str | None = None, who: str | None = None
    ) -> None:
        """Mark an answer reviewed (done) by `who`, or not, with an optional note."""
        self.team.set_done(prediction_id, who or UNATTRIBUTED, reviewed, note=note)

    def review_of(self, prediction_id: int, annotator: str | None = None) -> tuple[bool, str | None]:
        """(reviewed, note) of an answer by one annotator (None: reviewed by anyone, the
        latest note)."""
        sql, params = "SELECT reviewed, note FROM triage_reviews WHERE prediction_id = ?", [prediction_id]
        if annotator is not None:
            sql, params = sql + " AND annotator = ?", params + [annotator]
        rows = self.db.execute(sql + " ORDER BY updated_at DESC", params).fetchall()
        notes = [note for _, note in rows if note]
        return any(reviewed for reviewed, _ in rows), (notes[0] if notes else None)

    def category_counts(self, run_id: int, annotator: str | None = None) -> dict[str, int]:
        """How many of a run's answers carry each category (one annotator's labels, or
        anyone's); every category listed."""
        counts = self.team.category_counts(run_id, annotator)
        return {c.name: counts.get(c.id, 0) for c in self.categories()}


def slugify(name: str) -> str:
    """'Flawed Reasoning' -> 'flawed-reasoning' (what filters use: triage:flawed-reasoning)."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
