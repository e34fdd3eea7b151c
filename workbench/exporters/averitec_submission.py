"""A run's answers in the AVeriTeC shared task's submission layouts, and such a file read back.

Two layouts, as the organisers publish them:
- the system output (JSON): an array of {claim_id, claim, evidence: [{question, answer, url}],
  pred_label}, what `workbench import-predictions` reads with profile averitec-predictions;
- the 2025 leaderboard file (CSV): columns id, claim, evi, label, split, where evi holds each
  question-answer pair as question TAB TAB NEWLINE answer TAB TAB NEWLINE NEWLINE, and split is
  "pred" (Python's csv writer, quoting only where needed, rows ending CR LF).

    write_submission(store, run, Path("sub.csv"))
    records = read_leaderboard_csv(Path("sub.csv"))   # the JSON layout's records
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from store import Run, Store
from workbench.errors import WorkbenchError

COLUMNS = ["id", "claim", "evi", "label", "split"]
PAIR_END, QUESTION_END = "\t\t\n\n", "\t\t\n"
SPLIT = "pred"


class SubmissionError(WorkbenchError, ValueError):
    """A submission file that cannot be read; the message names the file, line and field."""


def submission_records(store: Store, run: Run) -> list[dict]:
    """The run's answers as the JSON layout's records, in the dataset's claim order."""
    records = []
    for claim_id in sorted(store.runs.claim_ids(run.id)):
        claim = store.claims.get(claim_id)
        prediction = store.runs.prediction(run.id, claim_id)
        parsed = prediction.parsed if prediction is not None and isinstance(prediction.parsed, dict) else {}
        evidence = [
            {"question": str(e.get("question") or ""), "answer": str(e.get("answer") or ""), "url": e.get("url")}
            for e in parsed.get("evidence") or []
            if isinstance(e, dict)
        ]
        external = claim.external_id
        records.append(
            {
                "claim_id": int(external) if external.isdigit() else external,
                "claim": claim.text,
                "evidence": evidence,
                "pred_label": prediction.verdict if prediction is not None and prediction.status == "ok" else None,
            }
        )
    return records


def leaderboard_csv(records: list[dict]) -> str:
    """The records as the leaderboard's CSV text."""
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow(COLUMNS)
    for record in records:
        evi = "".join(e["question"] + QUESTION_END + e["answer"] + PAIR_END for e in record["evidence"])
        writer.writerow([record["claim_id"], record["claim"], evi, record["pred_label"] or "", SPLIT])
    return out.getvalue()


def write_submission(store: Store, run: Run, path: Path) -> int:
    """Write the run's submission (CSV for a .csv path, else the JSON layout); the record count."""
    records = submission_records(store, run)
    text = leaderboard_csv(records) if path.suffix.lower() == ".csv" else json.dumps(records, indent=1) + "\n"
    temporary = path.with_name(path.name + ".part")
    temporary.write_text(text, encoding="utf-8", newline="")
    temporary.replace(path)  # a reader never sees half a file
    return len(records)


def read_leaderboard_csv(path: Path) -> list[dict]:
    """The leaderboard CSV's rows as the JSON layout's records; SubmissionError naming the
    file, line and field for a file that is not in the layout."""
    return [record for _, record in leaderboard_rows(path)]


def leaderboard_rows(path: Path) -> list[tuple[int, dict]]:
    """Each row of the leaderboard CSV with the line it starts on, as the JSON layout's record.
    Columns are found by name, as the organisers read them; a UTF-8 BOM (Excel) is skipped."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise SubmissionError(f"{path}: cannot read it as UTF-8 text: {error}") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    header = [name.strip() for name in next(reader, None) or []]
    missing = [name for name in COLUMNS[:4] if name not in header]
    if missing or len(set(header)) != len(header):
        problem = f"no column {', '.join(missing)}" if missing else "a column name appears twice"
        raise SubmissionError(
            f"{path}: line 1: {problem}; the header needs {','.join(COLUMNS)} (split optional),"
            f" in any order, not {','.join(header)}"
        )
    rows = []
    while True:
        line = reader.line_num + 1  # where the record starts: its evi spans several lines
        row = next(reader, None)
        if row is None:
            break
        if len(row) != len(header):
            raise SubmissionError(f"{path}: line {line}: {len(row)} fields where the header has {len(header)}")
        values = dict(zip(header, row))
        if not values["id"].strip():
            raise SubmissionError(f"{path}: line {line}: field id is empty")
        record = {
            "claim_id": values["id"].strip(),
            "claim": values["claim"],
            "evidence": _pairs(values["evi"], path, line),
            "pred_label": values["label"] or None,
        }
        rows.append((line, record))
    if not rows:
        raise SubmissionError(f"{path}: no rows under the header")
    return rows


def _pairs(evi: str, path: Path, line: int) -> list[dict]:
    pairs = []
    for n, chunk in enumerate(evi.split(PAIR_END), 1):
        if not chunk:
            continue
        if QUESTION_END not in chunk:
            raise SubmissionError(
                f"{path}: line {line}: field evi, pair {n}: no TAB TAB NEWLINE between question and answer"
            )
        question, answer = chunk.split(QUESTION_END, 1)
        pairs.append({"question": question, "answer": answer, "url": ""})
    return pairs
