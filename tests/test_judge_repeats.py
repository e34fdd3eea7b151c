"""Judges checked like people (issue 23, item 6): a judge asked K times per explanation,
each repeat under its own cache key; its consistency per claim and overall; failures
counted apart, never as scores; judge-vs-person agreement with weighted kappa."""

from __future__ import annotations

import json
import re

import pytest
from sklearn.metrics import cohen_kappa_score

from tests.loopback_servers import LoopbackServer
from tests.support.judging import cli
from tests.support.processes import opened_store
from workbench.judging.consistency import judge_consistency
from workbench.runs.requests import REPEAT_SEED_STEP

REPEATS = 3


def flickering_judge(body: dict) -> str:
    """Claim numbers divisible by 3 get 6, 7, 6 over the repeats; numbers ending in 5 get
    an unreadable answer on repeat 2 (every try of it); the others 5 each time."""
    claim = int(
        re.search(r"Reasons for claim (\d+)", body["messages"][0]["content"] + body["messages"][-1]["content"]).group(1)
    )
    repeat = body["seed"] // REPEAT_SEED_STEP
    if claim % 10 == 5 and repeat == 2:
        return "I would rather not give a number."
    score = (6, 7, 6)[repeat] if claim % 3 == 0 else 5
    return json.dumps({"score": score, "justification": f"repeat {repeat}"})


def run_judge(db_path, server=None):
    if server is None:
        with LoopbackServer("openai", answer=flickering_judge) as server:
            return run_judge(db_path, server)
    result = cli(
        db_path,
        "judge",
        "sys-a",
        "--judge",
        "openai-compatible:judge",
        "--base-url",
        server.url,
        "--repeats",
        str(REPEATS),
    )
    return result, list(server.requests)


def test_each_explanation_is_judged_k_times_and_each_repeat_is_cached_apart(judged_db):  # noqa: F811
    with LoopbackServer("openai", answer=flickering_judge) as server:
        result, requests = run_judge(judged_db, server)
        assert result.exit_code == 0, result.output
        assert "judge-judges-sys-a-x3" in result.output
        assert {r.body["seed"] // REPEAT_SEED_STEP for r in requests} == {0, 1, 2}
        assert len(requests) == 30 * REPEATS + 3 * 2  # the 3 unreadable repeats were asked twice more
        with opened_store(judged_db) as store:
            judge = store.runs.get("judge-judges-sys-a-x3")
            repeats = store.judging.repeats(judge.id)
            assert len(repeats) == 30 * REPEATS and store.judging.repeat_count(judge.id) == REPEATS
            assert len(store.judging.scores(judge.id)) == 30  # repeat 0 is the run's judgment: EQ reads it
            unreadable = [r for r in repeats if r.status != "ok"]
            assert [(r.repeat, r.score, r.justification) for r in unreadable] == [
                (2, None, "no JSON object with a score")  # kept with why, never as a score
            ] * 3
            assert {r.justification for r in repeats if r.status == "ok"} == {"repeat 0", "repeat 1", "repeat 2"}
            store.runs.delete(judge.id)
        again, requests = run_judge(judged_db, server)
        assert again.exit_code == 0, again.output
        assert len(requests) == 30 * REPEATS + 3 * 2  # nothing more asked: every repeat and try was cached
    with opened_store(judged_db) as store:
        assert all(r.cached for r in store.judging.repeats(store.runs.get("judge-judges-sys-a-x3").id))


def test_consistency_per_claim_and_overall_counts_failures_apart(judged_db):  # noqa: F811
    result, _ = run_judge(judged_db)
    assert "identical every time" in " ".join(result.output.split())  # the judge command reports it at the end
    with opened_store(judged_db) as store:
        report = judge_consistency(store, "sys-a", resamples=200)
    c = report.consistency
    flickers = [x for x in c.per_claim if x.identical is False]
    assert c.repeats == REPEATS and c.claims == 30 and c.comparable == 30
    assert c.unreadable == 3 and c.errors == 0  # claims 5, 15, 25: their repeat 2, counted, not scored
    assert all(x.scores[2] is None for x in c.per_claim if x.claim_id % 10 == 5)
    assert sorted(x.claim_id for x in flickers) == [i for i in range(1, 31) if i % 3 == 0]
    assert all(x.spread == 1.0 and x.scores == (6.0, 7.0, 6.0) for x in flickers if x.claim_id % 10 != 5)
    assert c.identical.value == pytest.approx(1 - len(flickers) / 30)
    assert c.identical.low <= c.identical.value <= c.identical.high
    assert c.alpha.value is not None and c.alpha.value < 1


def test_judge_consistency_command_and_json(judged_db):  # noqa: F811
    run_judge(judged_db)
    text = cli(judged_db, "judge-consistency", "judge-judges-sys-a-x3")
    words = " ".join(text.output.split())
    assert text.exit_code == 0 and "flickering explanations" in words and "3 unreadable repeats" in words
    found = json.loads(cli(judged_db, "judge-consistency", "sys-a", "--json").output)
    assert found["repeats"] == 3 and found["unreadable"] == 3 and found["errors"] == 0
    assert [x["scores"] for x in found["per_claim"] if x["claim_id"] == 5] == [[5.0, 5.0, None]]
    once = cli(judged_db, "judge-consistency", "sys-b")
    assert once.exit_code == 1 and "--repeats 3" in once.output


def test_repeats_and_batch_do_not_mix_and_k_is_bounded(judged_db):  # noqa: F811
    result = cli(judged_db, "judge", "sys-a", "--judge", "openai:gpt-4o-mini", "--repeats", "2", "--batch")
    assert result.exit_code == 1 and "--batch asks once per explanation" in result.output
    result = cli(
        judged_db,
        "judge",
        "sys-a",
        "--judge",
        "openai-compatible:j",
        "--base-url",
        "http://127.0.0.1:9",
        "--repeats",
        "50",
    )
    assert result.exit_code == 1 and "1 to 20" in result.output


def test_judge_against_a_person_has_weighted_kappa_and_failures_apart(judged_db):  # noqa: F811
    with LoopbackServer("openai", answer=flickering_judge) as server:
        assert (
            cli(judged_db, "judge", "sys-a", "--judge", "openai-compatible:judge", "--base-url", server.url).exit_code
            == 0
        )
    with opened_store(judged_db) as store:
        run = store.runs.get("sys-a")
        judge = store.judging.judge_runs(run.id)[0]
        judged = {j.claim_id: j.score for j in store.judging.scores(judge.id)}
        person = {}
        for prediction in store.runs.predictions(run.id):
            score = 6.0 if prediction.claim_id % 2 else 5.0
            store.judging.set_person_score(prediction.id, "ana", score)
            person[prediction.claim_id] = score
    found = json.loads(cli(judged_db, "judge-agreement", "sys-a", "--json").output)
    row = found["agreement"][0]
    shared = sorted(judged.keys() & person.keys())
    expected = cohen_kappa_score([judged[c] for c in shared], [person[c] for c in shared], weights="quadratic")
    assert row["weighted_kappa"]["value"] == pytest.approx(expected)
    assert row["spearman"] is not None
    judge_row = next(s for s in found["scorings"] if s["scoring"] == judge.name)
    assert judge_row["scores"] == 30 and judge_row["unreadable"] == 0 and judge_row["errors"] == 0
    printed = " ".join(cli(judged_db, "judge-agreement", "sys-a").output.split())
    assert "weighted κ" in printed and "unreadable" in printed
