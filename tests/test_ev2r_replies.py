"""Judge replies the Ev2R counts are read from: any text a judge may send is read or refused
with a reason, never a crash (review finding 7: "²".isdigit() is true, int("²") raises)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import DEMO_DATA
from tests.loopback_servers import LoopbackServer
from tests.support.ev2r import SUBMISSION, demo_submission_db
from tests.support.judging import cli
from workbench.contamination.ev2r_task import COUNT_KEYS, parse_counts
from workbench.metrics.ev2r import FAILED, ClaimEv2r, OverCounted, summarise

COUNT_TEXT = st.one_of(
    st.integers(min_value=-3, max_value=40),
    st.text(alphabet=st.characters(categories=("Nd", "No", "Zs")), max_size=3),
    st.sampled_from(["²", "½", "٣", "3", " 4 "]),
)


@given(st.fixed_dictionaries({key: COUNT_TEXT for key in COUNT_KEYS}), st.text(max_size=20))
def test_any_counts_in_a_reply_are_read_or_refused_with_a_reason(counts, around):
    answer = parse_counts(around + json.dumps(counts, ensure_ascii=False) + around)
    assert answer.status in ("ok", "parse_failure")
    if answer.status == "parse_failure":
        assert answer.explanation
    else:
        assert all(isinstance(answer.parsed[key], int) for key in COUNT_KEYS)


def test_a_superscript_digit_is_refused_not_a_crash():
    reply = {"reference_facts": "²", "reference_supported": 1, "predicted_facts": 2, "predicted_supported": 1}
    answer = parse_counts(json.dumps(reply, ensure_ascii=False))
    assert answer.status == "parse_failure" and "reference_facts is '²'" in answer.explanation


OVER = {"reference_facts": 2, "reference_supported": 3, "predicted_facts": 2, "predicted_supported": 1}


def test_over_counted_facts_are_refused_but_kept_for_the_official_figure():
    answer = parse_counts(json.dumps(OVER))
    assert answer.status == "parse_failure" and "3 of 2 reference facts supported" in answer.explanation
    assert {key: answer.parsed[key] for key in COUNT_KEYS} == OVER


def test_the_official_column_divides_over_counted_facts_as_the_organisers_scorer_does():
    over = OverCounted(**OVER)
    claims = [ClaimEv2r(True, over, over), ClaimEv2r(False, over, over), ClaimEv2r(True, FAILED, FAILED)]
    summary = summarise(claims)
    # the scorer: recall 3/2 for both over-counted claims, 0 for the unreadable one
    assert summary.pair_recall.official == (1.5 + 1.5 + 0) / 3
    assert summary.score.official == 1 / 3  # right verdict and recall 1.5 > 0.5
    assert summary.pair_recall.readable is None and summary.pair_recall.failures == 3
    assert summary.pair_precision is None


def test_an_over_counting_judge_gives_the_scorers_figures_end_to_end(db_path):
    demo_submission_db(db_path)
    with LoopbackServer("openai", answer=lambda body: json.dumps(OVER)) as server:
        result = cli(
            db_path, "ev2r", SUBMISSION, "--judge", "openai-compatible:llama", "--base-url", server.url, "--json"
        )
    assert result.exit_code == 0, result.output
    found = json.loads(result.output[result.output.index("{") :])
    gold = json.loads((DEMO_DATA / "averitec.json").read_text())
    predicted = json.loads((DEMO_DATA / "averitec_predictions.json").read_text())
    evidence = [bool(p["evidence"]) for p in predicted]
    right = [p["pred_label"] == g["label"] for p, g in zip(predicted, gold)]
    n = len(gold)
    assert found["qa_recall"]["official"] == pytest.approx(1.5 * sum(evidence) / n)
    assert found["score"]["official"] == pytest.approx(sum(r and e for r, e in zip(right, evidence)) / n)
    assert found["qa_recall"]["failures"] == sum(evidence) and found["qa_recall"]["failures_excluded"] is None
