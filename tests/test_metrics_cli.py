"""`workbench metrics / compare / report` through click's CliRunner on a real database.

Runs A and B are the hand-checked ones of test_scoring (demo claims 1-12).
"""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner

from tests.support.scoring import RUN_A, RUN_B, make_run
from workbench.cli import main


@pytest.fixture
def db(demo_store, db_path):
    make_run(demo_store, "A", 1, range(1, 13), RUN_A)
    make_run(demo_store, "B", 1, range(1, 13), RUN_B)
    make_run(demo_store, "[bold]x\x1b[31m", 1, range(1, 5), {1: ("ok", "Refuted")})
    demo_store.annotations.flag([1, 5, 8], "contaminated")
    return db_path


def run(db, *args):
    result = CliRunner().invoke(
        main, ["--db", str(db), *map(str, args)], env={"COLUMNS": "120"}, catch_exceptions=False
    )
    return result


def test_metrics_prints_the_numbers_and_baselines(db):
    result = run(db, "metrics", "A", "--by", "importance", "--resamples", "100")
    assert result.exit_code == 0, result.output
    out = result.output
    for expected in (
        "accuracy",
        "0.667",
        "macro-F1",
        "0.698",
        "MCC",
        "Unknown Rate",
        "parse-failure rate",
        "0.111",
        "error rate",
        "0.091",
        "0.818 (9 of 11)",
        "excluded Unclear 1",
        "uniform acc / F1",
        "majority acc / F1",
        "(Refuted)",
        "<parse failure>",
        "by importance",
        "Irrelevant",
    ):
        assert expected in out, expected


def test_exclude_flag_shows_both_sets_side_by_side(db):
    out = run(db, "metrics", "A", "--exclude-flag", "contaminated", "--resamples", "0").output
    assert "without contaminated" in out and "3 flagged contaminated" in out
    accuracy_line = next(line for line in out.splitlines() if line.strip().startswith("macro-F1"))
    assert "0.698" in accuracy_line and "0.778" in accuracy_line  # 44/63 beside 7/9
    assert "confusion (without contaminated)" in out


def test_metrics_json_holds_everything(db):
    data = json.loads(
        run(
            db,
            "metrics",
            "A",
            "B",
            "--by",
            "importance",
            "--cutoff",
            "2025-01-01",
            "--exclude-flag",
            "contaminated",
            "--json",
            "--resamples",
            "50",
        ).output
    )
    a, b = data["runs"]
    assert (a["run"], b["run"]) == ("A", "B")
    overall = a["all"]["overall"]
    assert overall["macro_f1"] == pytest.approx(44 / 63) and overall["excluded"] == 1
    assert overall["intervals"]["macro_f1"]["low"] <= overall["macro_f1"]
    assert a["filtered"]["overall"]["macro_f1"] == pytest.approx(7 / 9)
    assert a["all"]["breakdowns"]["cutoff"]["after"]["accuracy"] == pytest.approx(4 / 5)
    assert a["all"]["excluded_by_label"] == {"Unclear": 1}
    assert overall["confusion"]["columns"][-1] == "<parse failure>"


def test_compare_prints_tests_cor_and_flips(db):
    out = run(db, "compare", "A", "B", "--by", "importance", "--resamples", "200").output
    assert "7 shared items" in out
    assert "b = 1 (A right, B wrong), c = 2 (A wrong, B right), p = 1.000" in out
    assert "CoR = 0.667" in out and "claims 3, 4" in out
    assert "run:A right run:B wrong" in out and "by importance" in out
    data = json.loads(run(db, "compare", "A", "B", "--json", "--resamples", "100").output)["all"]
    assert data["right_to_wrong"] == [1] and data["wrong_to_right"] == [3, 4]
    assert data["paired_bootstrap"]["macro_f1"]["p_value"] > 0.05


@pytest.mark.parametrize("fmt", ["md", "json", "csv"])
def test_report_writes_each_format(db, tmp_path, fmt):
    target = tmp_path / f"report.{fmt}"
    result = run(
        db,
        "report",
        "A",
        "B",
        "--format",
        fmt,
        "-o",
        target,
        "--by",
        "importance",
        "--exclude-flag",
        "contaminated",
        "--resamples",
        "50",
    )
    assert result.exit_code == 0, result.output
    text = target.read_text(encoding="utf-8")
    if fmt == "md":
        assert "| A | demo | all | 9 | 0.667 [" in text
        assert "without contaminated" in text and "Definitions." in text and "(50 resamples, seed 0)" in text
    elif fmt == "json":
        assert json.loads(text)["runs"][1]["run"] == "B"
    else:
        rows = list(csv.DictReader(io.StringIO(text)))
        # 2 runs x 2 subsets x (overall + 3 importance values).
        assert len(rows) == 16
        overall = next(r for r in rows if r["run"] == "A" and r["subset"] == "all" and r["field"] == "all")
        assert float(overall["macro_f1"]) == pytest.approx(44 / 63, abs=1e-6)
        assert overall["f1:Supported"] and overall["support:Refuted"] == "4"


def test_untrusted_names_stay_literal(db):
    out = run(db, "metrics", "[bold]x\x1b[31m", "--resamples", "0").output
    assert "[bold]x\\x1b[31m" in out and "\x1b" not in out
    md = run(db, "report", "[bold]x\x1b[31m", "--resamples", "0").output
    assert "\\[bold\\]x\\\\x1b\\[31m" in md


@pytest.mark.parametrize(
    "args, message",
    [
        (["metrics", "nope"], "no run 'nope'"),
        (["metrics", "A", "--by", "importanse"], "unknown field 'importanse'; did you mean importance?"),
        (["metrics", "A", "--cutoff", "2025-02-30"], "cutoff '2025-02-30' is not a date"),
        (["metrics", "A", "--by", "cutoff"], "no cutoff date for run 'A'"),
        (["compare", "A", "A"], "two different runs"),
        (["metrics", "A", "--exclude-flag", "contaminated@gpt-9"], "no flag was found for model 'gpt-9'"),
        (["metrics", "A", "--by", "flag:contaminated@"], "name a model after @"),
        (["report", "A", "--format", "md", "-o", "/no/such/dir/r.md"], "cannot write /no/such/dir/r.md"),
    ],
)
def test_user_errors(db, args, message):
    result = run(db, *args)
    assert result.exit_code == 1
    assert message in result.output
