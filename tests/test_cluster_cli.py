"""`--cluster` on metrics, compare and report, and the resolution beside every paired delta,
on the demo's JSFactCheckBench-shaped claims (24 claims from 6 questions, 4 each)."""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner

from store import Prediction, Run
from workbench.cli import main

# Run A right on questions 1-3 (claims 1-12), wrong on 4-6; run B right on questions 2-4.


def _answers(store, right_questions):
    answers = {}
    for claim_id in range(1, 25):
        claim = store.claims.get(claim_id)
        question = (claim.id - 1) // 4 + 1
        wrong = next(label for label in ("Supported", "Refuted", "NotEnoughInfo") if label != claim.label)
        answers[claim.id] = claim.label if question in right_questions else wrong
    return answers


def _run(store, name, answers):
    run = store.runs.create(Run(name=name, dataset_id=1, model="m"), list(answers))
    for claim_id, verdict in answers.items():
        store.runs.record(Prediction(run_id=run.id, claim_id=claim_id, status="ok", verdict=verdict))


@pytest.fixture
def db(demo_store, db_path):
    _run(demo_store, "A", _answers(demo_store, {1, 2, 3}))
    _run(demo_store, "B", _answers(demo_store, {2, 3, 4}))
    return db_path


def cli(db, *args):
    result = CliRunner().invoke(
        main, ["--db", str(db), *map(str, args)], env={"COLUMNS": "140"}, catch_exceptions=False
    )
    return result


def test_metrics_with_clusters_names_them_and_widens_the_interval(db):
    plain = json.loads(cli(db, "metrics", "A", "--json", "--cluster", "none").output)["runs"][0]["all"]
    clustered = json.loads(cli(db, "metrics", "A", "--json", "--cluster", "question").output)["runs"][0]["all"]
    assert plain["cluster"] is None and plain["clusters"] == 0
    assert clustered["cluster"] == "question"
    scored = clustered["overall"]["scored"]
    assert clustered["clusters"] == 6 and scored > 6
    width = {
        name: found["overall"]["intervals"]["accuracy"]["high"] - found["overall"]["intervals"]["accuracy"]["low"]
        for name, found in (("plain", plain), ("clustered", clustered))
    }
    # answers are right or wrong by whole questions: claims of a question move together
    assert width["clustered"] > 1.3 * width["plain"]
    out = " ".join(cli(db, "metrics", "A", "--cluster", "question", "--resamples", "200").output.split())
    assert "intervals resample 6 clusters by question" in out


def test_compare_says_what_the_benchmark_can_resolve(db):
    result = cli(db, "compare", "A", "B", "--cluster", "question", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)["all"]
    assert data["cluster"] == "question" and data["clusters"] == 6
    accuracy = data["resolution"]["accuracy"]
    assert accuracy["alpha"] == 0.05 and accuracy["power"] == 0.8
    assert accuracy["detectable"] == pytest.approx(2.801585218 * accuracy["standard_error"], rel=1e-9)
    # the closed form from the discordant pairs: question 1 (A right, B wrong), question 4 (the
    # reverse), each of 4 claims; cluster-robust over the 6 questions
    scored = _scored_per_question(db)
    n = data["shared"]
    assert n == sum(scored)
    mean = (scored[3] - scored[0]) / n
    totals = [-scored[0], 0, 0, scored[3], 0, 0]
    robust = math.sqrt(sum((t - size * mean) ** 2 for t, size in zip(totals, scored)) * 6 / 5) / n
    assert accuracy["closed_form_standard_error"] == pytest.approx(robust, abs=1e-12)
    assert data["paired_bootstrap"]["accuracy"]["delta"] == pytest.approx(mean, abs=1e-12)
    assert accuracy["cannot_be_told_apart"] is True
    out = " ".join(cli(db, "compare", "A", "B", "--cluster", "question").output.split())
    assert "resampling 6 clusters by question" in out
    assert "these runs cannot be told apart at this size" in out and "detectable" in out


def test_without_cluster_the_figures_are_todays(db):
    data = json.loads(cli(db, "compare", "A", "B", "--json", "--resamples", "300", "--cluster", "none").output)["all"]
    assert data["cluster"] is None
    scored = _scored_per_question(db)
    n = data["shared"]
    b, c = scored[0], scored[3]  # question 1's claims (A right, B wrong), question 4's (the reverse)
    closed = math.sqrt(((b + c) / n - ((c - b) / n) ** 2) / n)
    assert data["resolution"]["accuracy"]["closed_form_standard_error"] == pytest.approx(closed, abs=1e-12)


def _scored_per_question(db) -> list[int]:
    """How many of each question's four claims have a scored gold label (not excluded)."""
    import sqlite3

    with sqlite3.connect(db) as connection:
        labels = dict(connection.execute("SELECT id, label FROM claims WHERE id <= 24"))
    scored = [label in ("Supported", "Refuted", "NotEnoughInfo") for _, label in sorted(labels.items())]
    return [sum(scored[q * 4 : (q + 1) * 4]) for q in range(6)]


def test_an_unknown_cluster_field_is_named_with_a_suggestion(db):
    result = cli(db, "metrics", "A", "--cluster", "questoin")
    assert result.exit_code != 0
    assert "unknown cluster field 'questoin'; did you mean question?" in result.output


def test_report_carries_the_cluster(db, tmp_path):
    target = tmp_path / "r.json"
    assert cli(db, "report", "A", "--format", "json", "--cluster", "question", "-o", target).exit_code == 0
    assert json.loads(target.read_text())["runs"][0]["all"]["clusters"] == 6


def test_a_profiles_natural_cluster_is_the_default_and_said(db):
    """The demo dataset came in through the jsfactcheck profile, which declares the question."""
    data = json.loads(cli(db, "metrics", "A", "--json").output)["runs"][0]
    assert data["cluster_declared_by"] == "jsfactcheck" and data["all"]["cluster"] == "question"
    out = " ".join(cli(db, "metrics", "A", "--resamples", "100").output.split())
    assert "6 clusters by question (profile jsfactcheck's natural cluster; --cluster none: claim by claim)" in out
    compared = json.loads(cli(db, "compare", "A", "B", "--json").output)
    assert compared["cluster_declared_by"] == "jsfactcheck" and compared["all"]["clusters"] == 6
    out = " ".join(cli(db, "compare", "A", "B").output.split())
    assert "paired tests resample 6 clusters by question, profile jsfactcheck's natural cluster" in out
