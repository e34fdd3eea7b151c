"""Explanation quality (issue 13, items 1-4): a judge model scores a run's explanations on
the run engine, scores are read with the rubric's caps, EQ is reported by metrics, compare
and report, and judges are checked against people."""

from __future__ import annotations

import json
import signal

import numpy as np
import pytest
from scipy.stats import spearmanr

from store import Prediction, Run
from tests.loopback_servers import Fault, LoopbackServer
from tests.support.judging import LABELS, cli, scripted_judge
from tests.support.processes import opened_store, workbench_process
from workbench.judging.calibration import agreements, scorings
from workbench.judging.scores import score_explanations
from workbench.judging.task import parse_judgment
from workbench.metrics import mean_interval, paired_mean_difference


def test_a_judge_run_scores_every_explanation_and_metrics_show_eq(judged_db):
    with LoopbackServer("openai", answer=scripted_judge) as server:
        result = cli(judged_db, "judge", "sys-a", "--judge", "openai-compatible:judge", "--base-url", server.url)
        assert result.exit_code == 0, result.output
        first = server.requests[0].body
    assert "new run judge-judges-sys-a" in result.output and "finished: 30 ok" in result.output
    prompt = first["messages"][-1]["content"]
    assert "Bridge number" in prompt and "concluded: " in prompt and "Reasons for claim" in prompt
    assert first["temperature"] == 0.0
    with opened_store(judged_db) as store:
        eq = score_explanations(store, "sys-a", resamples=200)
        judged = {j.claim_id: j for j in store.judging.scores(eq.judge.id)}
        judge_run = store.runs.get(eq.judge.id)
    assert judge_run.kind == "judge" and judge_run.target_run_id == 1 and judge_run.prompt_hash
    expected = [9.0 if c % 10 == 7 else (8.0 if j.outcome == "correct" else 3.0) for c, j in judged.items()]
    assert eq.judged == 30 and eq.overall.mean == pytest.approx(np.mean(expected))
    assert eq.violations == sum(1 for c, j in judged.items() if c % 10 == 7 and j.outcome != "correct")
    assert eq.distribution[8] == sum(1 for x in expected if x == 8.0)
    shown = cli(judged_db, "metrics", "sys-a", "--resamples", "100")
    assert "explanation quality" in shown.output and f"EQ {eq.overall.mean:.2f}" in shown.output
    as_json = json.loads(cli(judged_db, "metrics", "sys-a", "--json", "--resamples", "0").output)
    assert as_json["runs"][0]["explanation_quality"]["eq"]["mean"] == pytest.approx(np.mean(expected))
    report = cli(judged_db, "report", "sys-a", "--resamples", "0").output
    assert "Explanation quality" in report and "judge-judges-sys-a" in report


def test_eq_by_slice_and_paired_between_runs_with_the_same_judge(judged_db):
    with LoopbackServer("openai", answer=scripted_judge) as server:
        for run in ("sys-a", "sys-b"):
            assert (
                cli(judged_db, "judge", run, "--judge", "openai-compatible:judge", "--base-url", server.url).exit_code
                == 0
            )
    with opened_store(judged_db) as store:
        eq = score_explanations(store, "sys-a", by=["label"], resamples=100)
        a = {j.claim_id: j.score for j in store.judging.scores(store.judging.judge_runs(1)[0].id)}
        b = {j.claim_id: j.score for j in store.judging.scores(store.judging.judge_runs(2)[0].id)}
    assert set(eq.slices["label"]) == set(LABELS)
    assert sum(found.n for found in eq.slices["label"].values()) == 30
    compared = cli(judged_db, "compare", "sys-a", "sys-b", "--json", "--resamples", "300")
    found = json.loads(compared.output)["explanation_quality"]
    shared = sorted(a)
    expected = paired_mean_difference([a[c] for c in shared], [b[c] for c in shared], 300, 0)
    assert found["shared"] == 30 and found["delta"] == pytest.approx(expected.delta)
    assert found["p_value"] == pytest.approx(expected.p_value)
    assert "EQ (same judge): B − A" in cli(judged_db, "compare", "sys-a", "sys-b").output


@pytest.mark.parametrize(
    "answer, status, note",
    [
        ('{"score": 7, "justification": "fine"}', "ok", None),
        ('Here: ```json\n{"Score": "6", "reason": "partly"}\n```', "ok", None),
        ('{"score": 11, "justification": "too good"}', "parse_failure", "outside 0-10"),
        ('{"score": -1}', "parse_failure", "outside 0-10"),
        ("The explanation is rather good, I would say eight.", "parse_failure", "no JSON object with a score"),
        ('{"score": "eight"}', "parse_failure", "not a number"),
        ('{"score": true}', "parse_failure", "not a number"),
    ],
)
def test_a_judge_answer_is_read_never_coerced(answer, status, note):
    found = parse_judgment(answer)
    assert found.status == status
    if note:
        assert note in found.explanation and found.parsed is None


def test_prose_and_out_of_range_judges_are_parse_failures_and_errors_are_kept(judged_db):
    answers = iter(["The explanation is fine."] * 3 + ['{"score": 11}'] * 3)

    def judge(body):
        return next(answers, '{"score": 5, "justification": "ok"}')

    with LoopbackServer("openai", answer=judge) as server:
        server.faults.extend([Fault.status_code(400)])
        result = cli(
            judged_db,
            "judge",
            "sys-a",
            "--judge",
            "openai-compatible:judge",
            "--base-url",
            server.url,
            "--concurrency",
            "1",
            "--param",
            "attempts=1",
        )
    again = (
        f"`workbench --db {judged_db} judge sys-a --judge openai-compatible:judge --base-url {server.url}"
        " --concurrency 1 --param attempts=1`"
    )
    assert result.exit_code == 1 and again in result.output
    with opened_store(judged_db) as store:
        eq = score_explanations(store, "sys-a", resamples=0)
    assert (eq.judged, eq.unreadable, eq.errors) == (27, 2, 1)
    assert eq.overall.mean == 5.0


def test_a_killed_judge_run_resumes_without_losing_a_judgment(judged_db):
    with LoopbackServer("openai", latency=0.15, answer=scripted_judge) as server:
        process = workbench_process(
            judged_db,
            "judge",
            "sys-a",
            "--judge",
            "openai-compatible:judge",
            "--base-url",
            server.url,
            "--concurrency",
            "2",
        )
        try:
            assert server.wait_served(6), "the judge run never got going"
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait()
        with opened_store(judged_db) as store:
            judge_run = store.judging.judge_runs(1)[0]
            before = {p.claim_id: p for p in store.runs.predictions(judge_run.id)}
        assert 0 < len(before) < 30
        again = cli(judged_db, "judge", "sys-a", "--judge", "openai-compatible:judge", "--base-url", server.url)
    assert again.exit_code == 0 and f"continuing run {judge_run.name}" in again.output
    with opened_store(judged_db) as store:
        after = {p.claim_id: p for p in store.runs.predictions(judge_run.id)}
    assert len(after) == 30 and all(after[c] == p for c, p in before.items())


def test_agreement_of_a_judge_and_a_person_matches_scipy(judged_db):
    with LoopbackServer("openai", answer=scripted_judge) as server:
        assert (
            cli(judged_db, "judge", "sys-a", "--judge", "openai-compatible:judge", "--base-url", server.url).exit_code
            == 0
        )
    rng = np.random.default_rng(4)
    with opened_store(judged_db) as store:
        judge_scores = {j.claim_id: j.score for j in store.judging.scores(store.judging.judge_runs(1)[0].id)}
        for prediction in store.runs.predictions(1)[:20]:
            mine = float(np.clip(judge_scores[prediction.claim_id] + rng.integers(-2, 3), 0, 10))
            store.judging.set_person_score(prediction.id, "ana", mine)
        people = store.judging.person_scores(1)["ana"]
        rows = agreements(scorings(store, "sys-a"))
    shared = sorted(people)
    ((first, second, found),) = rows
    assert (first, second, found.n) == ("judge-judges-sys-a", "person:ana", 20)
    x, y = [judge_scores[c] for c in shared], [people[c] for c in shared]
    assert found.spearman == pytest.approx(spearmanr(x, y).statistic)
    assert found.mean_abs_diff == pytest.approx(np.mean(np.abs(np.subtract(x, y))))
    assert found.within_one == pytest.approx(np.mean(np.abs(np.subtract(x, y)) <= 1))
    table = cli(judged_db, "judge-agreement", "sys-a")
    assert table.exit_code == 0 and "person:ana" in table.output


def test_judging_what_cannot_be_judged_says_why(judged_db, store):
    assert "no run 'nope'" in cli(judged_db, "judge", "nope").output
    ids = store.claims.ids("dataset:many")[:2]
    run = store.runs.create(Run(name="mute", model="m", dataset_id=1), ids)
    store.runs.record(Prediction(run_id=run.id, claim_id=ids[0], status="ok", verdict="Supported"))
    result = cli(judged_db, "judge", "mute", "--judge", "openai-compatible:j", "--base-url", "http://127.0.0.1:9")
    assert result.exit_code == 1 and "run 'mute' has no explanations to judge" in result.output
    assert "needs two scorings" in cli(judged_db, "judge-agreement", "sys-a").output


def test_eq_interval_is_the_bootstrap_of_the_mean():
    scores = np.random.default_rng(2).integers(0, 11, 400).astype(float)
    found = mean_interval(scores, resamples=4000, seed=1)
    spread = scores.std() / np.sqrt(len(scores))
    assert found.mean == pytest.approx(scores.mean())
    assert found.low == pytest.approx(scores.mean() - 1.96 * spread, abs=0.08)
    assert found.high == pytest.approx(scores.mean() + 1.96 * spread, abs=0.08)


def test_a_judge_run_through_the_batch_api(judged_db, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-judge-batch-77")
    with LoopbackServer("openai", answer=scripted_judge) as server:
        submitted = cli(
            judged_db, "judge", "sys-a", "--judge", "openai:judge-model", "--base-url", server.url, "--batch"
        )
        assert submitted.exit_code == 0, submitted.output
        assert "30 requests" in submitted.output and not server.answer_arrivals()
        collected = cli(judged_db, "batch", "collect", "judge-model-judges-sys-a")
        assert collected.exit_code == 0, collected.output
        live = cli(judged_db, "judge", "sys-a", "--judge", "openai:judge-model", "--base-url", server.url)
    with opened_store(judged_db) as store:
        (batched,) = [r for r in store.judging.judge_runs(1) if r.name == "judge-model-judges-sys-a"]
        from_batch = {j.claim_id: j.score for j in store.judging.scores(batched.id)}
    assert len(from_batch) == 30
    assert "nothing left to do" in live.output  # the same judge configuration: the batch's run, complete
    assert not server.answer_arrivals()
