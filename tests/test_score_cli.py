"""`workbench score-evidence` as a user runs it: table, JSON, and clear errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.cli import main

REPO = Path(__file__).resolve().parents[1]

GOLD = [
    {
        "label": "Refuted",
        "questions": [
            {
                "question": "Who won the 2020 presidential election?",
                "answers": [{"answer": "Joe Biden won the election.", "answer_type": "Extractive"}],
            }
        ],
    },
    {
        "label": "Supported",
        "questions": [
            {
                "question": "Is the letter real?",
                "answers": [{"answer": "No", "answer_type": "Boolean", "boolean_explanation": "It was satire."}],
            }
        ],
    },
]
PREDICTIONS = [
    {
        "claim_id": 7,
        "pred_label": "Refuted",
        "evidence": [
            {"question": "Who won the 2020 presidential election?", "answer": "Joe Biden won the election.", "url": ""}
        ],
    },
    {"claim_id": 8, "pred_label": "Refuted", "evidence": []},
]


@pytest.fixture
def files(tmp_path):
    """Writes gold/prediction JSON files; returns a function taking optional overrides."""

    def write(gold=GOLD, predictions=PREDICTIONS) -> tuple[str, str]:
        gold_path, pred_path = tmp_path / "gold.json", tmp_path / "pred.json"
        gold_path.write_text(json.dumps(gold), encoding="utf-8")
        pred_path.write_text(json.dumps(predictions), encoding="utf-8")
        return str(gold_path), str(pred_path)

    return write


def run(*args: str):
    return CliRunner().invoke(main, ["score-evidence", *args])


def test_table_lists_every_score(files):
    gold, pred = files()
    result = run("--gold", gold, "--predictions", pred)
    assert result.exit_code == 0, result.output
    for name in (
        "Question-only",
        "Question + answer",
        "Label accuracy",
        "macro-F1",
        "AVeriTeC score @ 0.25",
        "2 claims",
    ):
        assert name in result.output
    assert "0.500" in result.output  # label accuracy: one of two right


def test_json_includes_per_claim_scores(files):
    gold, pred = files()
    result = run("--gold", gold, "--predictions", pred, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["n_claims"] == 2 and data["label_accuracy"] == 0.5
    assert set(data["averitec"]) == {"0.1", "0.2", "0.25", "0.3", "0.4", "0.5"}
    first, second = data["claims"]
    # The file's number as text: the type `score-evidence --run` gives ids too.
    assert first["claim_id"] == "7" and first["label_correct"] is True and first["qa"] > 0.9
    # No predicted evidence: zero, and the AVeriTeC score gives no credit.
    assert second["qa"] == 0.0 and second["question_only"] == 0.0
    assert data["averitec"]["0.5"] == 0.5


def test_missing_file_names_it(files, tmp_path):
    gold, _ = files()
    result = run("--gold", gold, "--predictions", str(tmp_path / "absent.json"))
    assert result.exit_code != 0
    assert "absent.json: file not found" in result.output


def test_invalid_json_names_file_and_line(files, tmp_path):
    gold, pred = files()
    Path(pred).write_text('[{"evidence": [\n oops', encoding="utf-8")
    result = run("--gold", gold, "--predictions", pred)
    assert result.exit_code != 0
    assert "pred.json: invalid JSON at line 2" in result.output


def test_length_mismatch_is_refused(files):
    gold, pred = files(predictions=PREDICTIONS[:1])
    result = run("--gold", gold, "--predictions", pred)
    assert result.exit_code != 0
    assert "has 1 records but" in result.output and "gold.json has 2" in result.output


@pytest.mark.parametrize("field", ["evidence", "pred_label"])
def test_prediction_missing_a_field_names_record_and_field(files, field):
    broken = [dict(p) for p in PREDICTIONS]
    del broken[1][field]
    gold, pred = files(predictions=broken)
    result = run("--gold", gold, "--predictions", pred)
    assert result.exit_code != 0
    assert f"pred.json: record 1: missing field '{field}'" in result.output


@pytest.mark.parametrize("field", ["questions", "label"])
def test_gold_missing_a_field_names_record_and_field(files, field):
    broken = [dict(g) for g in GOLD]
    del broken[0][field]
    gold, pred = files(gold=broken)
    result = run("--gold", gold, "--predictions", pred)
    assert result.exit_code != 0
    assert f"gold.json: record 0: missing field '{field}'" in result.output


def test_missing_nltk_data_fails_with_the_fix(files, tmp_path):
    gold, pred = files()
    script = (
        "import sys, nltk\n"
        "nltk.data.path[:] = [sys.argv[1]]\n"
        "from workbench.cli import main\n"
        "main(['score-evidence', '--gold', sys.argv[2], '--predictions', sys.argv[3]])\n"
    )
    empty = tmp_path / "no-nltk-data"
    empty.mkdir()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", script, str(empty), gold, pred], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 1
    assert "WordNet corpus is not installed" in done.stderr
    assert "workbench nlp-data" in done.stderr
    assert "Traceback" not in done.stderr
