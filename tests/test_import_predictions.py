"""Predictions made elsewhere become a run: matched by id or by claim text, verdicts in the
dataset's label space, evidence kept; scored, compared and exported like any run. The
AVeriTeC organisers' baseline scores the same as a run as it does as a file."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from store import as_dict
from tests.conftest import AVERITEC_BASELINE, AVERITEC_DEV, require_shared
from tests.support.import_fixtures import FIXTURES
from workbench.cli import main
from workbench.importers import BadInput, ImportRequest, run_import
from workbench.importers.predictions import PredictionRequest, PredictionsError, import_predictions


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def fever(store):
    run_import(store, ImportRequest(FIXTURES / "fever.jsonl"))
    return store


def write(path, records):
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def test_predictions_by_id_with_explanations_and_odd_verdicts(fever, tmp_path):
    path = write(
        tmp_path / "preds.jsonl",
        [
            {"id": 101, "prediction": "SUPPORTS", "rationale": "The page says so.", "model": "vllm:qwen"},
            {"id": 102, "prediction": "refuted", "rationale": "No."},
            {"id": 103, "prediction": "maybe?", "rationale": "Unsure."},
            {"id": 999, "prediction": "SUPPORTS"},
        ],
    )
    report = import_predictions(fever, PredictionRequest(path, "fever"))
    run_ = report.run
    assert (run_.name, run_.model, run_.status) == ("imported-vllm:qwen", "imported:vllm:qwen", "finished")
    assert run_.model_identity["file"] == "preds.jsonl" and len(run_.model_identity["sha256"]) == 64
    assert report.matched == 3 and report.unmatched == ["999"] and report.matched_by == "id"
    answers = {fever.claims.get(p.claim_id).external_id: p for p in fever.runs.predictions(run_.id)}
    assert (answers["101"].status, answers["101"].verdict, answers["101"].explanation) == (
        "ok",
        "Supported",
        "The page says so.",
    )
    assert answers["102"].verdict == "Refuted"
    assert (answers["103"].status, answers["103"].raw_verdict) == ("parse_failure", "maybe?")
    assert json.loads(answers["101"].raw_output)["model"] == "vllm:qwen"  # the record, kept whole


def test_predictions_by_claim_text_when_the_file_has_no_ids(fever, tmp_path):
    path = write(
        tmp_path / "by_text.jsonl",
        [
            {"claim": "Quillmere is a landlocked town.", "verdict": "REFUTES"},
            {"claim": "A claim nobody made.", "verdict": "REFUTES"},
        ],
    )
    report = import_predictions(fever, PredictionRequest(path, "fever", model="gpt-x"))
    assert (report.matched, report.matched_by, report.unmatched) == (1, "claim text", ["A claim nobody made."])
    assert report.without == 2


def test_a_label_map_puts_the_files_verdicts_in_the_space(fever, tmp_path):
    path = write(tmp_path / "yesno.jsonl", [{"id": 101, "verdict": "yes"}, {"id": 102, "verdict": "no"}])
    report = import_predictions(fever, PredictionRequest(path, "fever", label_maps=["yes=Supported", "no=Refuted"]))
    assert report.verdicts == {"Supported": 1, "Refuted": 1}


def test_files_that_cannot_be_a_run_say_why_and_write_nothing(fever, tmp_path):
    none = write(tmp_path / "none.jsonl", [{"id": 5, "verdict": "SUPPORTS"}])
    with pytest.raises(PredictionsError, match="not one of its 1 predictions matches a claim of fever by id"):
        import_predictions(fever, PredictionRequest(none, "fever"))
    twice = write(tmp_path / "twice.jsonl", [{"id": 101, "verdict": "SUPPORTS"}, {"id": 101, "verdict": "REFUTES"}])
    with pytest.raises(BadInput, match=r"twice.jsonl:2: '101' matches the same claim as the prediction on line 1"):
        import_predictions(fever, PredictionRequest(twice, "fever"))
    with pytest.raises(PredictionsError, match="no dataset 'fevr'; datasets: fever"):
        import_predictions(fever, PredictionRequest(none, "fevr"))
    assert fever.runs.list() == []


def test_the_cli_imports_a_run_that_metrics_compare_and_export_treat_like_any(tmp_path):
    db = tmp_path / "w.db"
    assert run("--db", db, "import", FIXTURES / "fever.jsonl").exit_code == 0
    first = write(
        tmp_path / "a.jsonl",
        [{"id": i, "verdict": v} for i, v in ((101, "SUPPORTS"), (102, "SUPPORTS"), (103, "NOT ENOUGH INFO"))],
    )
    second = write(
        tmp_path / "b.jsonl",
        [{"id": i, "verdict": v} for i, v in ((101, "SUPPORTS"), (102, "REFUTES"), (103, "REFUTES"))],
    )
    out = run("--db", db, "import-predictions", first, "--dataset", "fever", "--run", "sys-a")
    assert out.exit_code == 0 and "3 predictions matched by id" in out.output, out.output
    assert run("--db", db, "import-predictions", second, "--dataset", "fever", "--run", "sys-b").exit_code == 0
    metrics = json.loads(run("--db", db, "metrics", "sys-a", "--json", "--resamples", "0").output)
    assert metrics["runs"][0]["all"]["overall"]["accuracy"] == pytest.approx(2 / 3)
    compare = run("--db", db, "compare", "sys-a", "sys-b", "--resamples", "0")
    assert compare.exit_code == 0, compare.output
    claims = run("--db", db, "claims", "--where", "run:sys-a wrong")
    assert "1 shown of 1 matching" in claims.output
    exported = tmp_path / "export.jsonl"
    assert run("--db", db, "export", "--what", "predictions", "--run", "sys-b", "-o", exported).exit_code == 0
    again = run("--db", db, "import-predictions", exported, "--dataset", "fever", "--run", "sys-b-again")
    assert again.exit_code == 0 and "profile workbench-predictions" in again.output, again.output
    from store import Store

    store = Store.open(db)
    keep = ("status", "verdict", "raw_verdict", "explanation", "raw_output", "parsed")
    before = [as_dict(p, include=set(keep) | {"claim_id"}) for p in store.runs.predictions(store.runs.get("sys-b").id)]
    after = [
        as_dict(p, include=set(keep) | {"claim_id"}) for p in store.runs.predictions(store.runs.get("sys-b-again").id)
    ]
    assert after == before


def test_the_averitec_baseline_scores_the_same_as_a_run_as_as_a_file(tmp_path):
    gold, baseline = require_shared(AVERITEC_DEV), require_shared(AVERITEC_BASELINE)
    pytest.importorskip("nltk")
    db = tmp_path / "w.db"
    assert run("--db", db, "import", gold).exit_code == 0
    imported = run("--db", db, "import-predictions", baseline, "--dataset", "dev", "--json")
    assert imported.exit_code == 0, imported.output
    summary = json.loads(imported.output)
    assert (summary["matched"], summary["profile"]) == (500, "averitec-predictions")
    as_file = json.loads(run("score-evidence", "--gold", gold, "--predictions", baseline, "--json").output)
    as_run = json.loads(run("--db", db, "score-evidence", "--run", summary["run"], "--json").output)
    assert as_run == as_file  # ids included: text in both, whether the file wrote numbers or not
    assert round(as_run["question_only"], 2) == 0.24 and round(as_run["averitec"]["0.25"], 2) == 0.09
    metrics = json.loads(run("--db", db, "metrics", summary["run"], "--json", "--resamples", "0").output)
    assert metrics["runs"][0]["all"]["overall"]["accuracy"] == pytest.approx(as_file["label_accuracy"])
