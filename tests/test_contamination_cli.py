"""`workbench contamination ...` through click's CliRunner on real SQLite files: show,
summary, combine, mark, sweep on scores computed for real from constructed evidence,
and the clear errors for bad input (no model is called here)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from store import CHECKED_CLEAN, Store
from tests.run_fixtures import load_mini
from tests.support.contamination import EVIDENCE, ORACLE, make_scores
from workbench.cli import main
from workbench.contamination.flagging import pick_group, write_flags
from workbench.contamination.sweep import sweep

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def scored(demo_store):
    make_scores(demo_store, "gguf:A")
    make_scores(demo_store, "gguf:B", evidence={**EVIDENCE, 2: (ORACLE, ["[bold]Penguins[/bold] \x1b[31m swim."])})
    for model in ("gguf:A", "gguf:B"):
        write_flags(demo_store, pick_group(demo_store, model, "meteor"), 0.25)
    return demo_store


def cli(db_path, *args):
    return CliRunner().invoke(main, ["--db", str(db_path), "contamination", *args])


def test_show_aligns_the_matched_pairs_with_their_scores(scored, db_path):
    result = cli(db_path, "show", "demo:js-002", "--model", "gguf:A")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    paired = [line for line in lines if "1.00" in line]
    assert len(paired) == 1 and paired[0].count("[1] The trial") == 2  # oracle [1] beside generated [1]
    text = " ".join(result.output.split())
    (row,) = scored.contamination.score_rows("gguf:A", "meteor", claim_id=2)
    assert f"s = {row.score:.3f}" in text and "/ 3 oracle sentences; 2 generated" in text and "tau 0.25" in text
    assert "flagged contaminated" in text and "gguf:B" not in text


def test_show_prints_model_output_literally(scored, db_path):
    result = cli(db_path, "show", "2", "--model", "gguf:B")
    assert result.exit_code == 0, result.output
    assert "[bold]Penguins[/bold]" in result.output and "\\x1b[31m" in result.output
    assert "\x1b" not in result.output
    assert "not flagged" in result.output


def test_summary_reports_S_and_the_share_flagged(scored, db_path):
    result = cli(db_path, "summary", "--json")
    assert result.exit_code == 0, result.output
    rows = {r["target_model"]: r for r in json.loads(result.output)["scores"]}
    scores = scored.contamination.score_values("gguf:A", "meteor")
    assert rows["gguf:A"]["mean_score"] == pytest.approx(sum(scores.values()) / 4)
    assert rows["gguf:A"]["scorable"] == 4 and rows["gguf:A"]["tau"] == 0.25
    assert rows["gguf:A"]["flagged"] == rows["gguf:A"]["would_flag"] == 2 and rows["gguf:A"]["share_flagged"] == 0.5
    assert rows["gguf:B"]["flagged"] == 1
    table = cli(db_path, "summary", "--model", "gguf:B")
    assert table.exit_code == 0 and "gguf:B" in table.output and "gguf:A" not in table.output


def test_combine_writes_the_intersection(scored, db_path):
    result = cli(db_path, "combine", "--model", "gguf:A", "--model", "gguf:B", "--metric", "meteor")
    assert result.exit_code == 0, result.output
    assert "1 claims flagged contaminated by every one of" in result.output
    assert scored.annotations.flagged_claim_ids("contaminated", "gguf:A&gguf:B", "meteor", "pipeline") == {1}
    summary = json.loads(cli(db_path, "summary", "--json").output)
    assert summary["combined"] == [{"model": "gguf:A&gguf:B", "metric": "meteor", "claims": 1}]
    bad = cli(db_path, "combine", "--model", "gguf:A", "--metric", "meteor")
    assert bad.exit_code == 1 and "two or more models or metrics" in bad.output


def test_mark_and_sweep_find_the_tau_that_agrees_with_people(scored, db_path):
    assert cli(db_path, "mark", "demo:js-001", "2", "--contaminated", "--note", "seen it").exit_code == 0
    assert cli(db_path, "mark", "3", "4", "--clean").exit_code == 0
    result = cli(db_path, "sweep", "--model", "gguf:A", "--metric", "meteor", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    scores = scored.contamination.score_values("gguf:A", "meteor")
    assert report["best_agreement"] == 1.0 and scores[3] < report["best_tau"] <= scores[2]
    assert report["best_tau"] == sweep(scores, {1: True, 2: True, 3: False, 4: False}).best_tau
    assert len(report["table"]) == 101
    plain = cli(db_path, "sweep", "--model", "gguf:A", "--metric", "meteor")
    words = " ".join(plain.output.split())
    assert plain.exit_code == 0 and "◀ best" in words and "the middle of that range is chosen" in words
    # Marking a claim clean takes its contaminated mark off (and the other way round).
    assert cli(db_path, "mark", "2", "--clean").exit_code == 0
    assert scored.annotations.flagged_claim_ids("contaminated", source="manual") == {1}
    assert scored.annotations.flagged_claim_ids(CHECKED_CLEAN, source="manual") == {2, 3, 4}


def test_each_persons_marks_are_their_own_and_the_sweep_measures_agreement(scored, db_path):
    def mark(who, *args):
        return CliRunner().invoke(main, ["--db", str(db_path), "--annotator", who, "contamination", "mark", *args])

    assert mark("ana", "1", "2", "--contaminated").exit_code == 0
    assert mark("ana", "3", "4", "--clean").exit_code == 0
    assert mark("ben", "1", "--contaminated").exit_code == 0
    assert mark("ben", "2", "3", "4", "--clean").exit_code == 0
    assert mark("ben", "1", "--clear").exit_code == 0 and mark("ben", "1", "--contaminated").exit_code == 0
    marks = {f.who for f in scored.annotations.flags_for(1) if f.source == "manual"}
    assert marks == {"ana", "ben"}  # ben's --clear left ana's mark
    report = json.loads(cli(db_path, "sweep", "--model", "gguf:A", "--metric", "meteor", "--json").output)
    assert report["conflicting_labels"] == [2]  # ana: contaminated, ben: clean
    assert report["labelled"] == 3 and report["kappa"]["value"] == pytest.approx(1.0)
    people = report["people"]
    assert people["annotators"] == ["ana", "ben"] and people["compared"] == 4
    # ana, ben on claims 1-4: (1,1) (1,0) (0,0) (0,0): agree on 3 of 4; kappa by hand 0.5
    assert people["agreement"]["value"] == pytest.approx(0.75) and people["kappa"]["value"] == pytest.approx(0.5)
    plain = " ".join(cli(db_path, "sweep", "--model", "gguf:A", "--metric", "meteor").output.split())
    assert "Cohen's kappa of the flag against people's labels: 1.000" in plain
    assert "4 claims labelled by two or more of ana, ben" in plain


def test_mark_refuses_unknown_claims_and_writes_nothing(scored, db_path):
    result = cli(db_path, "mark", "1", "demo:nope", "--contaminated")
    assert result.exit_code == 1 and "no claim 'demo:nope'" in result.output and "nothing was marked" in result.output
    assert scored.annotations.flagged_claim_ids("contaminated", source="manual") == set()
    assert cli(db_path, "mark", "1").exit_code == 1


def test_sweep_and_show_say_what_is_missing(scored, db_path):
    result = cli(db_path, "sweep", "--model", "gguf:A", "--metric", "meteor")
    assert result.exit_code == 1 and "contamination mark" in result.output
    result = cli(db_path, "sweep")
    assert result.exit_code == 1 and "pick one: --model gguf:" in result.output
    result = cli(db_path, "show", "demo:js-010")
    assert result.exit_code == 1 and "has no contamination score" in result.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["--model", "llama:7b", "--dataset", "demo"], "cannot read model 'llama:7b'"),
        (["--model", "gguf:default", "--dataset", "demo", "--extractor", "gpt4"], "cannot read model 'gpt4'"),
        (["--model", "gguf:default", "--dataset", "nope"], "no dataset 'nope'"),
        (["--model", "gguf:default", "--dataset", "demo", "--metric", "bleu"], "unknown metric 'bleu'"),
        (["--model", "gguf:default", "--dataset", "demo", "--tau", "1.5"], "--tau must lie between 0 and 1"),
        (["--model", "gguf:default", "--dataset", "demo", "--param", "colour=red"], "unknown --param 'colour'"),
    ],
)
def test_run_rejects_bad_input_before_any_work(demo_store, db_path, args, message):
    result = cli(db_path, "run", *args)
    assert result.exit_code == 1 and message in result.output, result.output
    assert demo_store.runs.list(kind=None) == []


def test_run_on_claims_without_oracle_evidence_says_how_many(store, db_path, tmp_path):
    load_mini(store, tmp_path)
    result = cli(db_path, "run", "--model", "gguf:default", "--dataset", "mini")
    assert result.exit_code == 1
    assert "none of the 4 selected claims has oracle evidence" in " ".join(result.output.split())
    assert store.runs.list(kind=None) == []


def test_run_without_nltk_data_names_the_fix(demo_store, db_path, tmp_path):
    demo_store.close()
    script = (
        "import sys, nltk\nnltk.data.path[:] = [sys.argv[1]]\nfrom workbench.cli import main\n"
        "main(['--db', sys.argv[2], 'contamination', 'run', '--model', 'gguf:default', '--dataset', 'demo'])"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "WORKBENCH_CONFIG": str(tmp_path / "none.toml")}
    env.pop("NLTK_DATA", None)
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "empty"), str(db_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr
    assert "METEOR scoring needs NLTK data" in done.stderr and "workbench nlp-data" in done.stderr
    assert "Traceback" not in done.stderr
    check = Store.open(db_path)
    assert check.runs.list(kind=None) == []
    check.close()


def test_summary_for_one_dataset_counts_only_its_claims(scored, db_path):
    cli(db_path, "combine", "--model", "gguf:A", "--model", "gguf:B", "--metric", "meteor")
    # Scores and combined flags of demo claims 1-4 say nothing about demo-realfact.
    other = cli(db_path, "summary", "--dataset", "demo-realfact", "--json")
    assert other.exit_code == 0, other.output
    assert json.loads(other.output) == {"scores": [], "combined": [], "probes": []}
    table = cli(db_path, "summary", "--dataset", "demo-realfact")
    assert table.exit_code == 1 and "in dataset 'demo-realfact'" in table.output
    demo = json.loads(cli(db_path, "summary", "--dataset", "demo", "--json").output)
    assert {r["target_model"]: r["claims"] for r in demo["scores"]} == {"gguf:A": 4, "gguf:B": 4}
    assert demo["combined"] == [{"model": "gguf:A&gguf:B", "metric": "meteor", "claims": 1}]
