"""The AVeriTeC 2025 score (issue 35, items 1, 2, 3 and 7): Ev2R recall through the judge-run
machinery against a loopback judge that returns recorded counts, each figure equal to a hand
computation of the organisers' formula, judge failures kept apart."""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from store import Prediction, Run
from tests.conftest import AVERITEC_BASELINE, AVERITEC_DEV, DEMO_DATA, require_shared
from tests.loopback_servers import LoopbackServer
from tests.support.ev2r import (
    MALFORMED_CLAIM,
    SUBMISSION,
    claim_positions,
    demo_submission_db,
    recorded_counts,
    recorded_judge,
)
from tests.support.judging import cli
from tests.support.processes import opened_store
from workbench.contamination.ev2r_evidence import predicted_pairs
from workbench.contamination.ev2r_task import parse_counts

TOLERANCE = 1e-12


def judge(db_path, server, *extra):
    return cli(
        db_path, "ev2r", SUBMISSION, "--judge", "openai-compatible:llama", "--base-url", server.url, "--json", *extra
    )


def hand_computed(positions: dict[str, int], threshold: float = 0.5) -> dict:
    """The organisers' formula, written out: recall = supported reference facts / reference
    facts; a claim scores 1 when its label is right and its Q+A recall is above 0.5; an
    unreadable reply is recall 0 and score 0."""
    gold = json.loads((DEMO_DATA / "averitec.json").read_text())
    predicted = json.loads((DEMO_DATA / "averitec_predictions.json").read_text())
    q, qa, score, q_ok, qa_ok, score_ok = [], [], [], [], [], []
    for n, (claim, answer) in enumerate(zip(gold, predicted)):
        counts_q, counts_qa = recorded_counts(n, "questions"), recorded_counts(n, "pairs")
        recall_q = counts_q["reference_supported"] / counts_q["reference_facts"]
        q.append(recall_q)
        q_ok.append(recall_q)
        right = answer["pred_label"] == claim["label"]
        if n == MALFORMED_CLAIM:
            qa.append(0.0)
            score.append(0.0)
            continue
        recall_qa = counts_qa["reference_supported"] / counts_qa["reference_facts"]
        qa.append(recall_qa)
        qa_ok.append(recall_qa)
        score.append(1.0 if right and recall_qa > threshold else 0.0)
        score_ok.append(score[-1])
    mean = lambda values: sum(values) / len(values)  # noqa: E731
    return {
        "q": (mean(q), mean(q_ok)),
        "qa": (mean(qa), mean(qa_ok)),
        "score": (mean(score), mean(score_ok)),
        "n": len(gold),
    }


def test_the_2025_score_equals_the_published_formula_with_failures_apart(db_path):
    demo_submission_db(db_path)
    positions = claim_positions()
    with LoopbackServer("openai", answer=recorded_judge(positions)) as server:
        result = judge(db_path, server)
        asked = len(server.answer_arrivals())
        lower = judge(db_path, server, "--threshold", "0.4")
        assert len(server.answer_arrivals()) == asked  # another threshold asks the judge nothing
    assert result.exit_code == 0, result.output
    at_lower = json.loads(lower.output[lower.output.index("{") :])["score"]
    assert abs(at_lower["official"] - hand_computed(positions, 0.4)["score"][0]) < TOLERANCE
    assert at_lower["official"] != hand_computed(positions)["score"][0]
    found = json.loads(result.output[result.output.index("{") :])
    expected = hand_computed(positions)
    n = expected["n"]
    # 18 claims x 2 parts, and the malformed Q+A reply asked 3 times in all.
    assert asked == 2 * n + 2
    for key, name in (("q", "question_recall"), ("qa", "qa_recall"), ("score", "score")):
        official, readable = expected[key]
        assert abs(found[name]["official"] - official) < TOLERANCE
        assert abs(found[name]["failures_excluded"] - readable) < TOLERANCE
    # The organisers' counting and ours differ exactly by the failed claim: same sum, one claim fewer.
    for name in ("qa_recall", "score"):
        figure = found[name]
        assert figure["failures"] == 1 and figure["failure_rate"] == pytest.approx(1 / n, abs=TOLERANCE)
        assert abs(figure["official"] * n - figure["failures_excluded"] * (n - 1)) < TOLERANCE
    assert found["question_recall"]["failures"] == 0
    counts = [recorded_counts(k, "pairs") for k in range(n) if k != MALFORMED_CLAIM]
    precision = [c["predicted_supported"] / c["predicted_facts"] for c in counts]
    assert abs(found["qa_precision"] - sum(precision) / len(precision)) < TOLERANCE
    assert found["prompt"]["pairs"]["source"] == "ours" and found["prompt"]["pairs"]["name"] == "ev2r"
    with opened_store(db_path) as store:
        qa_run = store.runs.get(found["judge_runs"]["pairs"])
        kept = store.runs.prediction(qa_run.id, store.claims.ids("dataset:averitec")[MALFORMED_CLAIM])
        submission = store.runs.get(SUBMISSION)
    assert qa_run.kind == "ev2r" and qa_run.target_run_id == submission.id
    assert kept.status == "parse_failure" and "about half" in kept.raw_output and kept.attempts == 3


def test_the_table_shows_both_countings_and_a_second_call_asks_nothing(db_path):
    demo_submission_db(db_path)
    with LoopbackServer("openai", answer=recorded_judge(claim_positions())) as server:
        first = judge(db_path, server)
        before = len(server.answer_arrivals())
        table = cli(db_path, "ev2r", SUBMISSION, "--judge", "openai-compatible:llama", "--base-url", server.url)
        assert len(server.answer_arrivals()) == before  # every judgment is stored: nothing asked again
    assert first.exit_code == 0 and table.exit_code == 0, table.output
    shown = table.output
    assert "Official" in shown and "Failures out" in shown and "a failed judgment counts 0" in shown
    assert "1 (5.6%)" in shown and "AVeriTeC 2025 score" in shown and "ev2r (ours" in shown


def test_a_users_prompt_file_in_the_organisers_layout_is_used_and_recorded(db_path, tmp_path):
    demo_submission_db(db_path)
    prompt = tmp_path / "their_prompt.txt"
    prompt.write_text(
        "Claim being checked: {}\nReference:\n{}\nPredicted:\n{}\n"
        'Reply as {{"facts count reference evidence": n, "support reference evidence": n,'
        ' "facts count predicted evidence": n, "support predicted evidence": n}}\n'
    )
    positions = claim_positions()

    def their_judge(body: dict) -> str:
        text = body["messages"][-1]["content"]
        claim = text.split("\n", 1)[0].removeprefix("Claim being checked: ")
        counts = recorded_counts(positions[claim], "pairs")
        return json.dumps(
            {
                f"{'facts count' if k.endswith('facts') else 'support'} {k.split('_')[0]} evidence": v
                for k, v in counts.items()
            }
        )

    with LoopbackServer("openai", answer=their_judge) as server:
        result = judge(db_path, server, "--prompt-file", str(prompt))
        sent = [arrival.body["messages"][-1]["content"] for arrival in server.answer_arrivals()]
    assert result.exit_code == 0, result.output
    found = json.loads(result.output[result.output.index("{") :])
    assert found["prompt"]["pairs"]["source"] == "user's file"
    assert found["prompt"]["pairs"]["name"] == "user:their_prompt.txt"
    assert found["prompt"]["pairs"]["hash"] == hashlib.sha256(prompt.read_bytes()).hexdigest()
    assert sum("\t\t\n" in text for text in sent) == 18  # the organisers' pair layout, in the Q+A part
    assert found["qa_recall"]["failures"] == 0


def test_a_broken_prompt_file_is_refused_before_any_judge_is_asked(db_path, tmp_path):
    demo_submission_db(db_path)
    prompt = tmp_path / "bad.txt"
    prompt.write_text("Claim {claim} and {gold}")
    with LoopbackServer("openai") as server:
        result = judge(db_path, server, "--prompt-file", str(prompt))
        assert server.answer_arrivals() == []
    assert result.exit_code != 0 and "bad.txt" in result.output and "{gold}" in result.output


@pytest.mark.parametrize(
    "reply, status, note",
    [
        ('{"reference_facts": 4, "reference_supported": 3, "predicted_facts": 2, "predicted_supported": 2}', "ok", ""),
        (
            '{"facts count reference questions": "4", "support reference questions": 1,'
            ' "facts count predicted questions": 2, "support predicted questions": 0}',
            "ok",
            "",
        ),
        (
            '{"reference_facts": 0, "reference_supported": 0, "predicted_facts": 2, "predicted_supported": 1}',
            "parse_failure",
            "no reference facts",
        ),
        (
            '{"reference_facts": 2, "reference_supported": 3, "predicted_facts": 2, "predicted_supported": 1}',
            "parse_failure",
            "3 of 2 reference",
        ),
        (
            '{"reference_facts": 2.5, "reference_supported": 1, "predicted_facts": 2, "predicted_supported": 1}',
            "parse_failure",
            "not a whole number",
        ),
        ("About half of the facts match.", "parse_failure", "no JSON object"),
    ],
)
def test_judge_replies_are_read_or_refused_with_a_reason(reply, status, note):
    answer = parse_counts(reply)
    assert answer.status == status
    assert note in (answer.explanation or "")
    if status == "ok":
        assert answer.parsed["recall"] == answer.parsed["reference_supported"] / answer.parsed["reference_facts"]


def test_only_the_first_ten_predicted_pairs_are_judged():
    evidence = [{"question": f"q{n}", "answer": f"a{n}"} for n in range(13)]
    shown, carried = predicted_pairs(Prediction(run_id=1, claim_id=1, status="ok", parsed={"evidence": evidence}))
    assert carried == 13 and [p.question for p in shown] == [f"q{n}" for n in range(10)]


def test_a_claim_without_predicted_evidence_scores_zero_without_a_judge(db_path):
    demo_submission_db(db_path)
    with opened_store(db_path) as store:
        ids = store.claims.ids("dataset:averitec")
        run = store.runs.create(Run(name="bare", model="imported:x", dataset_id=1, status="finished"), ids[:4])
        for n, claim_id in enumerate(ids[:4]):
            evidence = [] if n == 0 else [{"question": "Who said it?", "answer": "The minister.", "url": ""}]
            label = store.claims.get(claim_id).label
            store.runs.record(
                Prediction(run_id=run.id, claim_id=claim_id, status="ok", verdict=label, parsed={"evidence": evidence})
            )
    with LoopbackServer("openai", answer=lambda body: json.dumps(recorded_counts(1, "pairs"))) as server:
        result = cli(db_path, "ev2r", "bare", "--judge", "openai-compatible:llama", "--base-url", server.url, "--json")
        asked = len(server.answer_arrivals())
    assert result.exit_code == 0, result.output
    found = json.loads(result.output[result.output.index("{") :])
    assert asked == 2 * 3 and found["no_evidence"] == 1
    recall = recorded_counts(1, "pairs")["reference_supported"] / recorded_counts(1, "pairs")["reference_facts"]
    assert abs(found["qa_recall"]["official"] - 3 * recall / 4) < TOLERANCE
    assert found["qa_recall"]["failures"] == 0


def test_the_organisers_baseline_on_the_real_dev_set(db_path):
    gold, baseline = require_shared(AVERITEC_DEV), require_shared(AVERITEC_BASELINE)
    assert cli(db_path, "import", str(gold)).exit_code == 0
    assert cli(db_path, "import-submission", str(baseline), "--dataset", "dev", "--run", "baseline").exit_code == 0
    fixed = {"reference_facts": 4, "reference_supported": 3, "predicted_facts": 5, "predicted_supported": 2}
    with LoopbackServer("openai", answer=lambda body: json.dumps(fixed)) as server:
        result = cli(
            db_path,
            "ev2r",
            "baseline",
            "--judge",
            "openai-compatible:llama",
            "--base-url",
            server.url,
            "--concurrency",
            "16",
            "--json",
        )
    assert result.exit_code == 0, result.output
    found = json.loads(result.output[result.output.index("{") :])
    records, labels = json.loads(baseline.read_text()), [c["label"] for c in json.loads(gold.read_text())]
    with_evidence = [bool(r["evidence"]) for r in records]
    right = [r["pred_label"] == label for r, label in zip(records, labels)]
    n = len(records)
    assert found["claims"] == n == 500 and found["no_evidence"] == with_evidence.count(False)
    assert abs(found["qa_recall"]["official"] - 0.75 * sum(with_evidence) / n) < TOLERANCE
    expected = sum(r and e for r, e in zip(right, with_evidence)) / n
    assert abs(found["score"]["official"] - expected) < TOLERANCE and found["score"]["failures"] == 0


def test_judge_repeats_are_kept_and_their_consistency_is_read(db_path):
    demo_submission_db(db_path)
    positions = claim_positions()
    from workbench.runs.requests import REPEAT_SEED_STEP

    def flickering(body: dict) -> str:
        """Recorded counts; on the second repeat, claims at even positions get one fact fewer supported."""
        prompt = body["messages"][-1]["content"]
        position = positions[re.search(r"Claim being checked: (.*)", prompt).group(1)]
        counts = recorded_counts(position, "questions" if "(questions only)" in prompt else "pairs")
        if body["seed"] // REPEAT_SEED_STEP == 1 and position % 2 == 0 and counts["reference_supported"]:
            counts["reference_supported"] -= 1
        return json.dumps(counts)

    with LoopbackServer("openai", answer=flickering) as server:
        result = judge(db_path, server, "--repeats", "2")
    assert result.exit_code == 0, result.output
    qa_run = json.loads(result.output[result.output.index("{") :])["judge_runs"]["questions"]
    found = json.loads(cli(db_path, "judge-consistency", qa_run, "--json").output)
    changed = [
        n for n in range(len(positions)) if n % 2 == 0 and recorded_counts(n, "questions")["reference_supported"]
    ]
    assert found["repeats"] == 2 and found["comparable"] == len(positions)
    with opened_store(db_path) as store:  # each repeat keeps its recall as its score, and no reason
        for kept in store.judging.repeats(store.runs.get(qa_run).id):
            position = positions[store.claims.get(kept.claim_id).text]
            counts = recorded_counts(position, "questions")
            supported = counts["reference_supported"]
            supported -= kept.repeat == 1 and position % 2 == 0 and supported > 0  # as `flickering` answers
            assert (kept.status, kept.justification) == ("ok", None)
            assert kept.score == pytest.approx(supported / counts["reference_facts"])
    assert found["identical"]["value"] == pytest.approx(1 - len(changed) / len(positions), abs=TOLERANCE)
