"""Which Ev2R judge runs the figures come from (review finding 1): `ev2r` prints the judge
runs it just prepared, `metrics` and `compare` read a matched set (one judge and prompt for
both parts and, in compare, for both runs), and say why when there is none."""

from __future__ import annotations

import json

from tests.conftest import DEMO_DATA
from tests.loopback_servers import LoopbackServer
from tests.support.ev2r import SUBMISSION, demo_submission_db
from tests.support.judging import cli

MARK = "Judge these facts by our users' own words."
USERS = {"reference_facts": 2, "reference_supported": 1, "predicted_facts": 2, "predicted_supported": 1}
OURS = {"reference_facts": 4, "reference_supported": 4, "predicted_facts": 2, "predicted_supported": 2}


def counts_by_prompt(body: dict) -> str:
    """The user's prompt gets recall 1/2, ours recall 1: the figures say whose judge runs they read."""
    return json.dumps(USERS if MARK in body["messages"][-1]["content"] else OURS)


def ev2r(db_path, server, run: str, *extra: str) -> dict:
    done = cli(db_path, "ev2r", run, "--judge", "openai-compatible:llama", "--base-url", server.url, "--json", *extra)
    assert done.exit_code == 0, done.output
    return json.loads(done.output[done.output.index("{") :])


def prompt_file(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text(MARK + "\nClaim: {claim}\nReference:\n{reference_evidence}\nPredicted:\n{predicted_evidence}\n")
    return str(path)


def second_system(db_path) -> None:
    path = DEMO_DATA / "averitec_predictions.json"
    assert cli(db_path, "import-predictions", str(path), "--dataset", "averitec", "--run", "sys-b").exit_code == 0


def test_ev2r_prints_the_judge_runs_it_was_asked_for(db_path, tmp_path):
    demo_submission_db(db_path)
    with LoopbackServer("openai", answer=counts_by_prompt) as server:
        first = ev2r(db_path, server, SUBMISSION)
        users = ev2r(db_path, server, SUBMISSION, "--prompt-file", prompt_file(tmp_path))
        again = ev2r(db_path, server, SUBMISSION)
    assert users["prompt"]["pairs"]["name"] == "user:p.txt" and users["qa_recall"]["failures_excluded"] == 0.5
    assert again["prompt"]["pairs"]["source"] == "ours" and again["qa_recall"] == first["qa_recall"]
    assert again["qa_recall"]["failures_excluded"] == 1.0


def test_compare_pairs_the_runs_judged_with_the_same_judge_and_prompt(db_path, tmp_path):
    demo_submission_db(db_path)
    second_system(db_path)
    with LoopbackServer("openai", answer=counts_by_prompt) as server:
        ev2r(db_path, server, SUBMISSION)
        ev2r(db_path, server, SUBMISSION, "--prompt-file", prompt_file(tmp_path))  # the newest of A: not B's
        ev2r(db_path, server, "sys-b")
    found = json.loads(cli(db_path, "compare", SUBMISSION, "sys-b", "--json", "--resamples", "50").output)
    paired = found["averitec_2025"]
    assert paired is not None and paired["problem"] is None
    assert paired["qa_recall"]["delta"] == 0.0  # both read with our prompt: recall 1 each
    shown = cli(db_path, "metrics", SUBMISSION).output
    assert "judge openai-compatible:llama, prompt user:p.txt" in shown  # the newest set, named


def test_compare_says_why_when_no_judge_and_prompt_judged_both(db_path, tmp_path):
    demo_submission_db(db_path)
    second_system(db_path)
    with LoopbackServer("openai", answer=counts_by_prompt) as server:
        ev2r(db_path, server, SUBMISSION, "--prompt-file", prompt_file(tmp_path))
        ev2r(db_path, server, "sys-b")
    found = json.loads(cli(db_path, "compare", SUBMISSION, "sys-b", "--json", "--resamples", "50").output)
    problem = found["averitec_2025"]["problem"]
    assert "no judge and prompt judged both runs" in problem and "user:p.txt" in problem
    shown = cli(db_path, "compare", SUBMISSION, "sys-b", "--resamples", "50").output
    assert "AVeriTeC 2025 (same judge): no judge and prompt judged both runs" in " ".join(shown.split())
