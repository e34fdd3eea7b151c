"""Triage as a team: each annotator's label of an answer (failure categories, done, note),
adjudicated final labels, and the history of every change.

A label belongs to one (answer, annotator) pair; an answer is labelled by an annotator
once they marked it done or gave it a category. Every write records its history row in
the same transaction (who, when, old, new, from where), and read-modify-write
transactions take the write lock first (BEGIN IMMEDIATE): two people, two TUIs and a
CLI import writing at once lose nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from store.adjudication import AdjudicationMixin
from store.connection import write_lock
from store.label_history import HistoryEntry, claim_history, record_change
from store.records import UNATTRIBUTED, now_iso  # noqa: F401 (UNATTRIBUTED: store.triage's name for it too)

if TYPE_CHECKING:
    from sqlite3 import Connection
SOURCES = ("tui", "cli", "import", "demo")
"""Where a change came from (label_history.source); an import also names its file."""


@dataclass(frozen=True)
class Label:
    """One annotator's label of one answer."""

    annotator: str
    category_ids: frozenset[int] = frozenset()
    done: bool = False
    note: str | None = None

    @property
    def labelled(self) -> bool:
        """Counts as a label: marked done, or given a category."""
        return self.done or bool(self.category_ids)


@dataclass(frozen=True)
class LabelChange:
    """What one write did: the label before and after (equal: nothing changed)."""

    before: Label
    after: Label

    @property
    def changed(self) -> bool:
        return self.before != self.after


@dataclass
class ImportedLabel:
    """One row of a labels file, checked: the answer, whose label, what it says."""

    prediction_id: int
    annotator: str
    category_ids: frozenset[int]
    note: str | None = None
    """None leaves a stored note as it is."""
    done: bool = True


@dataclass
class LabelImportCounts:
    """What importing labels did: new labels, changed ones, ones already as the file says."""

    added: int = 0
    changed: int = 0
    unchanged: int = 0
    changed_labels: list[tuple[int, str]] = field(default_factory=list)


class TriageStore(AdjudicationMixin):
    """Labels per annotator, adjudications and the label history."""

    def __init__(self, db: Connection):
        self.db = db

    # -- reading labels ---------------------------------------------------------------

    def label(self, prediction_id: int, annotator: str) -> Label:
        """One annotator's label (empty when they have said nothing)."""
        return self.labels(prediction_id).get(annotator, Label(annotator))

    def labels(self, prediction_id: int) -> dict[str, Label]:
        """Every annotator's label of an answer, by name (sorted)."""
        categories: dict[str, set[int]] = {}
        for annotator, category_id in self.db.execute(
            "SELECT annotator, category_id FROM triage_entries WHERE prediction_id = ?", [prediction_id]
        ):
            categories.setdefault(annotator, set()).add(category_id)
        reviews = {
            row[0]: row[1:]
            for row in self.db.execute(
                "SELECT annotator, reviewed, note FROM triage_reviews WHERE prediction_id = ?", [prediction_id]
            )
        }
        names = sorted(categories.keys() | reviews.keys())
        return {
            name: Label(
                name,
                frozenset(categories.get(name, ())),
                bool(reviews.get(name, (0, None))[0]),
                reviews.get(name, (0, None))[1],
            )
            for name in names
        }

    def annotators(self, run_id: int | None = None) -> list[str]:
        """Everyone who has labelled (or been assigned) an answer, of one run or any."""
        where, params = ("WHERE p.run_id = ?", [run_id]) if run_id is not None else ("", [])
        rows = self.db.execute(
            "SELECT annotator FROM triage_entries t JOIN predictions p ON p.id = t.prediction_id "
            + where
            + " UNION SELECT annotator FROM triage_reviews v JOIN predictions p ON p.id = v.prediction_id "
            + where
            + " UNION SELECT annotator FROM triage_assignments a"
            + (" WHERE a.run_id = ?" if run_id is not None else "")
            + " ORDER BY 1",
            params * 3,
        )
        return [r[0] for r in rows]

    def label_version(self) -> int:
        """Changes whenever anyone's label changes (every change writes a history row): a
        cheap test for a view showing labels, such as the metrics view's failure categories."""
        return self.db.execute("SELECT ifnull(max(id), 0) FROM label_history").fetchone()[0]

    def label_masks(self, run_id: int, bits: dict[int, int]) -> list[tuple[int, int, str, int]]:
        """(prediction id, claim id, annotator, category bit mask) of every label of a run's
        answers (reviewed, or with a category); `bits` maps category id -> bit (0..62).
        One pass over the run's review rows (every label has one), masks summed in SQL."""
        if not bits:
            return []
        # Category ids and bits are integers of our own table: written into the CASE as
        # numbers (a join on a table of them costs half as much again on 100,000 labels).
        case = " ".join(f"WHEN {int(category_id)} THEN {int(bit)}" for category_id, bit in bits.items())
        rows = self.db.execute(
            "SELECT prediction_id, claim_id, annotator, coalesce(mask, 0) FROM ("
            " SELECT p.id AS prediction_id, p.claim_id, v.annotator, v.reviewed,"
            f" (SELECT sum(1 << (CASE t.category_id {case} END)) FROM triage_entries t"
            "  WHERE t.prediction_id = v.prediction_id AND t.annotator = v.annotator"
            f"  AND t.category_id IN ({', '.join(str(int(c)) for c in bits)})) AS mask"
            " FROM predictions p JOIN triage_reviews v ON v.prediction_id = p.id WHERE p.run_id = ?)"
            " WHERE reviewed = 1 OR mask IS NOT NULL",
            [run_id],
        )
        return rows.fetchall()

    def used_categories(self, run_id: int) -> set[int]:
        """Ids of the categories anyone gave one of a run's answers (or an adjudicator chose)."""
        rows = self.db.execute(
            "SELECT DISTINCT t.category_id FROM triage_entries t JOIN predictions p ON p.id = t.prediction_id"
            " WHERE p.run_id = ? UNION SELECT DISTINCT CAST(j.value AS INTEGER) FROM triage_adjudications a"
            " JOIN predictions p ON p.id = a.prediction_id, json_each(a.categories) j WHERE p.run_id = ?",
            [run_id, run_id],
        )
        return {r[0] for r in rows}

    def answer_ids(self, run_id: int, claim_ids: Iterable[int]) -> dict[int, int]:
        """Claim id -> the run's prediction id, for the claims the run answered."""
        wanted = sorted(set(claim_ids))
        found: dict[int, int] = {}
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ", ".join("?" * len(chunk))
            found.update(
                self.db.execute(
                    f"SELECT claim_id, id FROM predictions WHERE run_id = ? AND claim_id IN ({marks})", [run_id, *chunk]
                ).fetchall()
            )
        return found

    def label_rows(self, run_id: int) -> list[tuple]:
        """Every label of a run's answers for export: (claim id, dataset, external id,
        annotator, category slugs ';'-joined, done, note, updated at), by claim then name."""
        rows = self.db.execute(
            "SELECT p.claim_id, d.name, c.external_id, v.annotator,"
            " (SELECT group_concat(slug, ';') FROM (SELECT fc.slug FROM triage_entries t"
            "  JOIN failure_categories fc ON fc.id = t.category_id"
            "  WHERE t.prediction_id = v.prediction_id AND t.annotator = v.annotator ORDER BY fc.builtin DESC, fc.id)),"
            " v.reviewed, v.note, v.updated_at FROM triage_reviews v JOIN predictions p ON p.id = v.prediction_id"
            " JOIN claims c ON c.id = p.claim_id JOIN datasets d ON d.id = c.dataset_id WHERE p.run_id = ?"
            " AND (v.reviewed = 1 OR EXISTS (SELECT 1 FROM triage_entries t WHERE t.prediction_id = v.prediction_id"
            " AND t.annotator = v.annotator)) ORDER BY p.claim_id, v.annotator",
            [run_id],
        )
        return rows.fetchall()

    def done_labels(self, run_id: int) -> set[tuple[int, str]]:
        """(prediction id, annotator) of the labels of a run marked done."""
        rows = self.db.execute(
            "SELECT v.prediction_id, v.annotator FROM triage_reviews v JOIN predictions p"
            " ON p.id = v.prediction_id WHERE p.run_id = ? AND v.reviewed = 1",
            [run_id],
        )
        return {(p, a) for p, a in rows}

    def category_counts(self, run_id: int, annotator: str | None = None) -> dict[int, int]:
        """Category id -> how many of a run's answers carry it (one annotator's, or anyone's)."""
        sql = (
            "SELECT t.category_id, count(DISTINCT t.prediction_id) FROM triage_entries t"
            " JOIN predictions p ON p.id = t.prediction_id WHERE p.run_id = ?"
        )
        params: list = [run_id]
        if annotator is not None:
            sql, params = sql + " AND t.annotator = ?", params + [annotator]
        return dict(self.db.execute(sql + " GROUP BY t.category_id", params).fetchall())

    # -- writing labels -----------------------------------------------------------------

    def set_categories(
        self,
        prediction_id: int,
        annotator: str,
        category_ids: Iterable[int],
        *,
        by: str | None = None,
        source: str = "tui",
    ) -> LabelChange:
        """Replace an annotator's categories of an answer (their note and done stay)."""
        wanted = frozenset(category_ids)
        with write_lock(self.db):
            return self._write(prediction_id, annotator, by, source, categories=wanted)

    def toggle_category(
        self, prediction_id: int, annotator: str, category_id: int, *, by: str | None = None, source: str = "tui"
    ) -> bool:
        """Give the category, or take it off if the annotator had given it. True if now on."""
        with write_lock(self.db):
            before = self._read(prediction_id, annotator)
            now = before.category_ids ^ {category_id}
            self._write(prediction_id, annotator, by, source, categories=now, before=before)
        return category_id in now

    def set_done(
        self,
        prediction_id: int,
        annotator: str,
        done: bool = True,
        *,
        note: str | None = None,
        by: str | None = None,
        source: str = "tui",
    ) -> LabelChange:
        """Mark an answer done (labelled) by an annotator, or not; with `note`, set it too."""
        with write_lock(self.db):
            return self._write(prediction_id, annotator, by, source, done=done, note=note)

    def set_note(
        self, prediction_id: int, annotator: str, note: str | None, *, by: str | None = None, source: str = "tui"
    ) -> LabelChange:
        """An annotator's note on an answer ("" or None removes it)."""
        with write_lock(self.db):
            return self._write(prediction_id, annotator, by, source, note=note or "")

    def import_labels(self, rows: list[ImportedLabel], *, by: str, source: str) -> LabelImportCounts:
        """Write checked labels in one transaction (a file's labels are finished work unless a
        row says otherwise). A label already as the file says is left alone: importing the
        same file again changes nothing and adds no history."""
        counts = LabelImportCounts()
        with write_lock(self.db):
            for row in rows:
                before = self._read(row.prediction_id, row.annotator)
                change = self._write(
                    row.prediction_id,
                    row.annotator,
                    by,
                    source,
                    categories=row.category_ids,
                    done=row.done,
                    note=row.note,
                    before=before,
                )
                if not change.changed:
                    counts.unchanged += 1
                    continue
                if before.labelled:
                    counts.changed += 1
                else:
                    counts.added += 1
                counts.changed_labels.append((row.prediction_id, row.annotator))
        return counts

    def _read(self, prediction_id: int, annotator: str) -> Label:
        return self.label(prediction_id, annotator)

    def _write(
        self,
        prediction_id: int,
        annotator: str,
        by: str | None,
        source: str,
        *,
        categories: frozenset[int] | None = None,
        done: bool | None = None,
        note: str | None = None,
        before: Label | None = None,
    ) -> LabelChange:
        """Inside a write_lock: apply what is given (None: keep), record the history."""
        before = before if before is not None else self._read(prediction_id, annotator)
        after = Label(
            annotator,
            before.category_ids if categories is None else categories,
            before.done if done is None else done,
            before.note if note is None else (note or None),
        )
        if after == before:
            return LabelChange(before, after)
        stamp = now_iso()
        conn = self.db
        if after.category_ids != before.category_ids:
            removed, added = before.category_ids - after.category_ids, after.category_ids - before.category_ids
            conn.executemany(
                "DELETE FROM triage_entries WHERE prediction_id = ? AND annotator = ? AND category_id = ?",
                [(prediction_id, annotator, c) for c in removed],
            )
            conn.executemany(
                "INSERT INTO triage_entries (prediction_id, category_id, annotator, created_at) VALUES (?, ?, ?, ?)",
                [(prediction_id, c, annotator, stamp) for c in sorted(added)],
            )
        conn.execute(
            "INSERT INTO triage_reviews (prediction_id, annotator, reviewed, note, updated_at) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (prediction_id, annotator) DO UPDATE SET reviewed = excluded.reviewed,"
            " note = excluded.note, updated_at = excluded.updated_at",
            [prediction_id, annotator, int(after.done), after.note, stamp],
        )
        changes = []
        if after.category_ids != before.category_ids:
            changes.append(("categories", self._names(before.category_ids), self._names(after.category_ids)))
        if after.done != before.done:
            changes.append(("done", before.done, after.done))
        if after.note != before.note:
            changes.append(("note", before.note, after.note))
        for kind, old, new in changes:
            self.record_history(prediction_id, kind, annotator, by or annotator, old, new, source, stamp)
        return LabelChange(before, after)

    def _names(self, category_ids: frozenset[int]) -> list[str]:
        if not category_ids:
            return []
        marks = ", ".join("?" * len(category_ids))
        rows = self.db.execute(
            f"SELECT name FROM failure_categories WHERE id IN ({marks}) ORDER BY builtin DESC, id", sorted(category_ids)
        )
        return [r[0] for r in rows]

    # -- history ------------------------------------------------------------------------

    def record_history(
        self,
        prediction_id: int | None,
        kind: str,
        annotator: str,
        changed_by: str,
        old,
        new,
        source: str,
        stamp: str | None = None,
        claim_id: int | None = None,
    ) -> None:
        """One change, in the caller's transaction (store.label_history)."""
        record_change(self.db, prediction_id, kind, annotator, changed_by, old, new, source, stamp, claim_id)

    def history(self, claim_id: int, limit: int = 500) -> list[HistoryEntry]:
        """Every change to a label of a claim (its answers' triage, scores, flags), newest first."""
        return claim_history(self.db, claim_id, limit)
