"""AVeriTeC submission files (issue 35, item 5): a run exported exactly in the shared task's
layouts (the system output JSON, the 2025 leaderboard CSV) and imported back as a run."""

from __future__ import annotations

import csv
import json

from tests.conftest import AVERITEC_BASELINE, AVERITEC_DEV, DEMO_DATA, require_shared
from tests.support.ev2r import SUBMISSION, demo_submission_db
from tests.support.judging import cli
from tests.support.processes import opened_store


def answers(db_path, run: str) -> list[tuple]:
    with opened_store(db_path) as store:
        found = store.runs.get(run)
        return [
            (p.claim_id, p.verdict, [(e["question"], e["answer"]) for e in p.parsed["evidence"]])
            for p in store.runs.predictions(found.id)
        ]


def without_empty_urls(records: list[dict]) -> list[dict]:
    """The records with an empty url written as null (the importer keeps no empty text)."""
    return [{**r, "evidence": [{**e, "url": e.get("url") or None} for e in r["evidence"]]} for r in records]


def test_the_leaderboard_csv_round_trips_byte_for_byte(db_path, tmp_path):
    demo_submission_db(db_path)
    first, second = tmp_path / "sub.csv", tmp_path / "again.csv"
    assert cli(db_path, "export-submission", SUBMISSION, "-o", str(first)).exit_code == 0
    done = cli(db_path, "import-submission", str(first), "--dataset", "averitec", "--run", "back")
    assert done.exit_code == 0 and "18 answers matched by id" in done.output, done.output
    assert cli(db_path, "export-submission", "back", "-o", str(second)).exit_code == 0
    assert first.read_bytes() == second.read_bytes()
    assert answers(db_path, "back") == answers(db_path, SUBMISSION)
    raw = first.read_bytes()
    assert raw.startswith(b"id,claim,evi,label,split\r\n")  # the organisers' csv.writer layout
    rows = list(csv.DictReader(first.open(newline="", encoding="utf-8")))
    original = json.loads((DEMO_DATA / "averitec_predictions.json").read_text())
    assert [r["split"] for r in rows] == ["pred"] * 18
    assert rows[2]["evi"] == "".join(f"{e['question']}\t\t\n{e['answer']}\t\t\n\n" for e in original[2]["evidence"])
    assert [r["label"] for r in rows] == [o["pred_label"] for o in original]


def test_the_json_layout_is_the_imported_file_again(db_path, tmp_path):
    demo_submission_db(db_path)
    out = tmp_path / "sub.json"
    assert cli(db_path, "export-submission", SUBMISSION, "-o", str(out)).exit_code == 0
    published = json.loads((DEMO_DATA / "averitec_predictions.json").read_text())
    assert json.loads(out.read_text()) == without_empty_urls(published)


def test_the_organisers_baseline_exports_as_it_was_published(db_path, tmp_path):
    gold, baseline = require_shared(AVERITEC_DEV), require_shared(AVERITEC_BASELINE)
    assert cli(db_path, "import", str(gold)).exit_code == 0
    done = cli(db_path, "import-submission", str(baseline), "--dataset", "dev", "--run", "baseline")
    assert done.exit_code == 0 and "500 answers matched" in done.output, done.output
    out = tmp_path / "baseline.json"
    assert cli(db_path, "export-submission", "baseline", "-o", str(out)).exit_code == 0
    published = json.loads(baseline.read_text())
    assert json.loads(out.read_text()) == without_empty_urls(
        [{k: r[k] for k in ("claim_id", "claim", "evidence", "pred_label")} for r in published]
    )
    as_csv = tmp_path / "baseline.csv"
    assert cli(db_path, "export-submission", "baseline", "-o", str(as_csv)).exit_code == 0
    assert cli(db_path, "import-submission", str(as_csv), "--dataset", "dev", "--run", "again").exit_code == 0
    assert answers(db_path, "again") == answers(db_path, "baseline")


def test_a_broken_submission_names_file_line_and_field_and_writes_nothing(db_path, tmp_path):
    demo_submission_db(db_path)
    bad = tmp_path / "bad.csv"
    bad.write_text('id,claim,evi,label,split\r\n0,A claim,"a question without its answer\t\t\n\n",Refuted,pred\r\n')
    done = cli(db_path, "import-submission", str(bad), "--dataset", "averitec", "--run", "bad")
    assert done.exit_code != 0 and "bad.csv: line 2: field evi, pair 1" in done.output
    with opened_store(db_path) as store:
        assert store.runs.get("bad") is None
