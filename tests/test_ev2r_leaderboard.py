"""The AVeriTeC leaderboard (issue 35, item 4): the 2025 figures beside the 2024 METEOR ones and
seconds per claim in `metrics`, `report` and `compare` (paired on claims judged in both)."""

from __future__ import annotations

import json

from tests.conftest import DEMO_DATA
from tests.loopback_servers import LoopbackServer
from tests.support.ev2r import MALFORMED_CLAIM, SUBMISSION, claim_positions, demo_submission_db, recorded_judge
from tests.support.judging import cli
from tests.support.processes import opened_store
from workbench.metrics import paired_mean_difference


def judge_both(db_path, runs) -> list[dict]:
    """Each run's `ev2r --json` figures, judged by the recorded judge."""
    found = []
    with LoopbackServer("openai", answer=recorded_judge(claim_positions())) as server:
        for run in runs:
            done = cli(db_path, "ev2r", run, "--judge", "openai-compatible:llama", "--base-url", server.url, "--json")
            assert done.exit_code == 0, done.output
            found.append(json.loads(done.output[done.output.index("{") :]))
    return found


def test_metrics_and_report_show_the_leaderboard_row(db_path):
    demo_submission_db(db_path)
    ev2r = judge_both(db_path, [SUBMISSION])[0]
    meteor = json.loads(cli(db_path, "score-evidence", "--run", SUBMISSION, "--json").output)
    found = json.loads(cli(db_path, "metrics", SUBMISSION, "--json", "--resamples", "0").output)["runs"][0]["averitec"]
    assert found["ev2r"]["score"] == ev2r["score"] and found["ev2r"]["qa_recall"] == ev2r["qa_recall"]
    assert found["meteor"] == {
        "question_only": meteor["question_only"],
        "qa": meteor["qa"],
        "old_score": meteor["averitec"]["0.25"],
    }
    assert found["seconds_per_claim"] is None  # imported answers: no time
    shown = cli(db_path, "metrics", SUBMISSION, "--resamples", "0").output
    assert "AVeriTeC leaderboard" in shown and f"{ev2r['score']['official']:.4f}" in shown
    report = cli(db_path, "report", SUBMISSION, "--resamples", "0").output
    assert "## AVeriTeC leaderboard" in report
    board = report[report.index("## AVeriTeC leaderboard") :]
    row = next(line for line in board.splitlines() if line.startswith(f"| {SUBMISSION} |"))
    assert f"{meteor['averitec']['0.25']:.4f}" in row and row.rstrip(" |").endswith("1")  # one judge failure


def test_compare_pairs_the_2025_figures_on_claims_judged_in_both(db_path, tmp_path):
    demo_submission_db(db_path)
    answers = json.loads((DEMO_DATA / "averitec_predictions.json").read_text())
    gold = json.loads((DEMO_DATA / "averitec.json").read_text())
    for n, answer in enumerate(answers):  # run B gets every third verdict right where A had it wrong
        if n % 3 == 0:
            answer["pred_label"] = gold[n]["label"]
    other = tmp_path / "b.json"
    other.write_text(json.dumps(answers))
    assert cli(db_path, "import-predictions", str(other), "--dataset", "averitec", "--run", "sys-b").exit_code == 0
    judge_both(db_path, [SUBMISSION, "sys-b"])
    per_run = {}
    with opened_store(db_path) as store:
        from workbench.contamination.ev2r_scores import ev2r_of
        from workbench.metrics.ev2r import claim_score

        for name in (SUBMISSION, "sys-b"):
            result = ev2r_of(store, store.runs.get(name))
            per_run[name] = {c: claim_score(v) for c, v in result.per_claim.items()}
        failed = store.claims.ids("dataset:averitec")[MALFORMED_CLAIM]
    shared = [c for c in sorted(per_run[SUBMISSION]) if c != failed]
    expected = paired_mean_difference(
        [per_run[SUBMISSION][c] for c in shared], [per_run["sys-b"][c] for c in shared], 200, 0
    )
    found = json.loads(cli(db_path, "compare", SUBMISSION, "sys-b", "--json", "--resamples", "200").output)
    paired = found["averitec_2025"]
    assert paired["shared"] == 17 and paired["failed"] == 1
    assert paired["score"]["delta"] == expected.delta and paired["score"]["p_value"] == expected.p_value
    assert paired["qa_recall"]["delta"] == 0.0  # the same evidence: the same judgments
    shown = cli(db_path, "compare", SUBMISSION, "sys-b", "--resamples", "200").output
    assert "AVeriTeC 2025 (same judge)" in shown and f"{expected.delta:+.3f}" in shown
