"""Labels to and from files, for people who label elsewhere (a spreadsheet, Label Studio,
Argilla) or script their queues: `workbench triage import / export`.

A labels file is CSV (TSV by its name) with a header, or JSONL, one label per row:

    claim        the claim id, or DATASET:EXTERNAL_ID
    annotator    whose label (default: --annotator, when the file has no such column)
    categories   slugs or names, separated by ';' (a JSON list in JSONL); empty: none fits
    note         optional
    run          optional: the run whose answer is labelled (default: --run)
    done         optional: false for a label still in progress (default: done)

Every row is checked before anything is written: a claim that does not exist or that the
run has not answered, an unknown category, a missing annotator, two different labels for
one answer by one person: the file is refused with each such row (file, line, field), and
nothing is written. Importing the same file again changes nothing.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from store import ImportedLabel, LabelImportCounts, Store
from workbench.triage import TriageError
from workbench.triage.answers import refusal
from workbench.triage.people import check_annotator

SHOWN = 20
"""Refused rows listed in the error (the rest are counted)."""
FIELDS = ("run", "claim", "annotator", "categories", "note")


@dataclass
class LabelsFileResult:
    path: Path
    rows: int
    counts: LabelImportCounts
    runs: list[str] = field(default_factory=list)


@dataclass
class _Row:
    line: int
    values: dict


def read_rows(path: Path) -> Iterator[_Row]:
    """The file's rows as dicts, with their line numbers (TriageError for a broken file)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise TriageError(f"{path}: cannot be read ({getattr(error, 'strerror', None) or error})") from None
    if path.suffix.lower() in (".jsonl", ".ndjson", ".json"):
        yield from _jsonl_rows(path, text)
        return
    delimiter = "\t" if path.suffix.lower() in (".tsv", ".tab") else ","
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter)
    if not reader.fieldnames or "claim" not in [f.strip().lower() for f in reader.fieldnames]:
        raise TriageError(f"{path}: line 1: the header needs a claim column (columns: {', '.join(FIELDS)})")
    for values in reader:
        row = {
            (key or "").strip().lower(): (value or "").strip()
            for key, value in values.items()
            if not isinstance(value, list)
        }
        if any(row.values()):
            yield _Row(reader.line_num, row)


def _jsonl_rows(path: Path, text: str) -> Iterator[_Row]:
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            raise TriageError(f"{path}: line {number}: not JSON ({error.msg})") from None
        if not isinstance(value, dict):
            raise TriageError(f"{path}: line {number}: a label is a JSON object, not {type(value).__name__}")
        yield _Row(number, {str(key).strip().lower(): item for key, item in value.items()})


class _Checker:
    """Turns rows into labels, collecting every problem instead of stopping at the first."""

    def __init__(self, store: Store, path: Path, run: str | None, annotator: str | None):
        self.store, self.path = store, path
        self.default_run, self.default_annotator = run, annotator
        self.categories = {}
        for category in store.annotations.categories():
            self.categories[category.slug] = category.id
            self.categories[category.name.strip().lower()] = category.id
        self.runs: dict[str, int | None] = {}
        self.problems: list[str] = []
        self.seen: dict[tuple[int, str], tuple[int, ImportedLabel]] = {}

    def problem(self, row: _Row, name: str, what: str) -> None:
        self.problems.append(f"{self.path}: line {row.line}: {name}: {what}")

    def check(self, row: _Row) -> tuple[int, int, str, frozenset[int], str | None] | None:
        run_id = self._run(row)
        claim_id = self._claim(row)
        annotator = self._annotator(row)
        categories = self._categories(row)
        note = row.values.get("note")
        note = None if note in (None, "") else str(note)
        done = self._done(row)
        if None in (run_id, claim_id, annotator, categories, done):
            return None
        return run_id, claim_id, annotator, categories, note, done

    def _done(self, row: _Row) -> bool | None:
        value = row.values.get("done")
        if value is None or value == "" or isinstance(value, bool):
            return True if value in (None, "") else value
        text = str(value).strip().lower()
        if text in ("true", "1", "yes"):
            return True
        if text in ("false", "0", "no"):
            return False
        self.problem(row, "done", f"true or false, not {value!r}")
        return None

    def _run(self, row: _Row) -> int | None:
        reference = str(row.values.get("run") or self.default_run or "").strip()
        if not reference:
            self.problem(row, "run", "which run's answer? add a run column, or pass --run RUN")
            return None
        if reference not in self.runs:
            run = self.store.runs.get(reference)
            self.runs[reference] = run.id if run is not None and run.kind == "verdict" else None
        if self.runs[reference] is None:
            self.problem(row, "run", f"no fact-checking run {reference!r}")
        return self.runs[reference]

    def _claim(self, row: _Row) -> int | None:
        reference = str(row.values.get("claim") if row.values.get("claim") is not None else "").strip()
        if not reference:
            self.problem(row, "claim", "empty (a claim id, or DATASET:EXTERNAL_ID)")
            return None
        claim_id = self.store.claims.resolve(reference)
        if claim_id is None:
            self.problem(row, "claim", f"no claim {reference!r}")
        return claim_id

    def _annotator(self, row: _Row) -> str | None:
        name = row.values.get("annotator")
        name = self.default_annotator if name is None else str(name)
        try:
            return check_annotator(name, "the annotator")
        except TriageError as error:
            self.problem(row, "annotator", str(error))
            return None

    def _categories(self, row: _Row) -> frozenset[int] | None:
        value = row.values.get("categories")
        if value is None:
            value = row.values.get("category", "")
        names = value if isinstance(value, list) else [part for part in str(value).split(";")]
        found, unknown = set(), []
        for name in (str(n).strip() for n in names):
            if not name:
                continue
            category_id = self.categories.get(name.lower()) or self.categories.get(name)
            (found.add(category_id) if category_id is not None else unknown.append(name))
        if unknown:
            self.problem(
                row,
                "categories",
                f"unknown categor{'y' if len(unknown) == 1 else 'ies'}"
                f" {', '.join(map(repr, unknown))} (`workbench triage categories` lists them)",
            )
            return None
        return frozenset(found)


def import_labels_file(
    store: Store,
    path: Path,
    run: str | None = None,
    annotator: str | None = None,
    by: str = "lead",
    dry_run: bool = False,
) -> LabelsFileResult:
    """Check every row, then write them all in one transaction (or, with a problem, none)."""
    checker = _Checker(store, path, run, annotator)
    checked: list[tuple[_Row, tuple]] = []
    for row in read_rows(path):
        found = checker.check(row)
        if found is not None:
            checked.append((row, found))
    if not checked and not checker.problems:
        raise TriageError(f"{path}: no labels in the file")
    labels = _answers(store, checker, checked)
    if checker.problems:
        shown = "\n  ".join(checker.problems[:SHOWN])
        more = f"\n  (and {len(checker.problems) - SHOWN} more)" if len(checker.problems) > SHOWN else ""
        raise TriageError(f"{path}: {len(checker.problems)} row(s) refused, nothing was imported:\n  {shown}{more}")
    runs = sorted({name for name, run_id in checker.runs.items() if run_id is not None})
    if dry_run:
        return LabelsFileResult(path, len(labels), LabelImportCounts(), runs)
    counts = store.triage.import_labels(labels, by=check_annotator(by), source=f"import:{path.name}")
    return LabelsFileResult(path, len(labels), counts, runs)


def _answers(store: Store, checker: _Checker, checked: list) -> list[ImportedLabel]:
    """The run's answer for each row's claim; a claim it has not answered (or answered
    right) is a problem, and so is one person labelling one answer two different ways."""
    by_run: dict[int, set[int]] = {}
    for _, (run_id, claim_id, *_rest) in checked:
        by_run.setdefault(run_id, set()).add(claim_id)
    answers = {run_id: store.answer_outcomes.outcomes(run_id, claims) for run_id, claims in by_run.items()}
    run_names = {run_id: name for name, run_id in checker.runs.items() if run_id is not None}
    labels, seen = [], {}
    for row, (run_id, claim_id, annotator, categories, note, done) in checked:
        prediction_id, outcome = answers[run_id].get(claim_id, (None, None))
        if prediction_id is None:
            checker.problem(row, "claim", f"claim {row.values.get('claim')} has no answer from this run")
            continue
        why = refusal(outcome, run_names[run_id], row.values.get("claim"))
        if why is not None:  # failure categories are for wrong answers (answers.py)
            checker.problem(row, "claim", why)
            continue
        label = ImportedLabel(prediction_id, annotator, categories, note, done)
        earlier = seen.get((prediction_id, annotator))
        if earlier is not None:
            if (earlier[1].category_ids, earlier[1].note, earlier[1].done) != (categories, note, done):
                checker.problem(row, "categories", f"{annotator} labels this answer differently on line {earlier[0]}")
            continue
        seen[(prediction_id, annotator)] = (row.line, label)
        labels.append(label)
    return labels


def export_rows(store: Store, run_id: int) -> list[dict]:
    """Every label of a run's answers, as a labels file holds them (import takes them back)."""
    run = store.runs.get(run_id)
    return [
        {
            "run": run.name,
            "claim": f"{dataset}:{external_id}",
            "claim_id": claim_id,
            "annotator": annotator,
            "categories": categories or "",
            "note": note or "",
            "done": bool(done),
            "updated_at": updated_at,
        }
        for claim_id, dataset, external_id, annotator, categories, done, note, updated_at in store.triage.label_rows(
            run_id
        )
    ]


def write_labels(rows: list[dict], format: str) -> str:
    """Rows as CSV or JSONL text (JSONL: categories as a list)."""
    if format == "jsonl":
        lines = [
            json.dumps({**row, "categories": [c for c in row["categories"].split(";") if c]}, ensure_ascii=False)
            for row in rows
        ]
        return "".join(line + "\n" for line in lines)
    out = io.StringIO()
    writer = csv.DictWriter(
        out,
        fieldnames=["run", "claim", "claim_id", "annotator", "categories", "note", "done", "updated_at"],
        lineterminator="\n",
    )
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()
