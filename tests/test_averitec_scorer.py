"""AVeriTeC evidence scoring follows the official scorer's conventions."""

from __future__ import annotations

import json
from pathlib import Path

import nltk
import pytest
from nltk.tokenize import word_tokenize
from nltk.translate.meteor_score import single_meteor_score

from workbench.contamination.averitec_scorer import (
    LABELS,
    EvidenceDataError,
    averitec_at,
    gold_strings,
    load_records,
    macro_f1,
    predicted_strings,
    score_evidence,
)
from workbench.nlp.meteor import MeteorScorer

AVERITEC = Path(__file__).resolve().parents[2] / "shared" / "data" / "averitec"


def meteor(gold: str, predicted: str) -> float:
    """The official pairwise metric, computed straight with nltk."""
    return single_meteor_score(word_tokenize(gold), word_tokenize(predicted))


def gold_claim(questions: list[tuple[str, list[dict]]], label: str = "Refuted") -> dict:
    return {"label": label, "questions": [{"question": q, "answers": answers} for q, answers in questions]}


def prediction(evidence: list[tuple[str, str]], label: str = "Refuted") -> dict:
    return {"pred_label": label, "evidence": [{"question": q, "answer": a, "url": ""} for q, a in evidence]}


ANSWER = {"answer": "Joe Biden won the election.", "answer_type": "Extractive"}
QUESTION = "Who won the 2020 presidential election?"
# No word (nor punctuation) in common with QUESTION + ANSWER: METEOR 0.
OFF_TOPIC = [(f"Zebra stripes pattern {i}", "Striped animals graze savannah grass") for i in range(10)]


def test_boolean_answers_carry_their_explanation():
    boolean = {"answer": "No", "answer_type": "Boolean", "boolean_explanation": "The letter was satire"}
    record = gold_claim([("Is the letter real?", [boolean])])
    assert gold_strings(record) == ["Is the letter real? No. The letter was satire"]
    pred = prediction([("Is the letter real?", "No")])
    expected = meteor("Is the letter real? No. The letter was satire", "Is the letter real? No")
    assert score_evidence([record], [pred]).qa == expected


def test_unanswered_question_becomes_no_answer_string():
    record = gold_claim([("Did anyone reply?", []), (QUESTION, [ANSWER])])
    assert gold_strings(record) == [
        "Did anyone reply? No answer could be found.",
        QUESTION + " Joe Biden won the election.",
    ]


def test_only_the_first_ten_predicted_items_count():
    gold = [gold_claim([(QUESTION, [ANSWER])])]
    perfect = (QUESTION, ANSWER["answer"])
    late = prediction(OFF_TOPIC + [perfect])
    early = prediction([perfect] + OFF_TOPIC)
    assert len(predicted_strings(late)) == 10
    assert score_evidence(gold, [late]).qa == 0.0
    assert score_evidence(gold, [early]).qa == meteor(*[QUESTION + " " + ANSWER["answer"]] * 2)


def test_each_gold_string_is_matched_once_and_divided_by_gold_count():
    other = {"answer": "Turnout was the highest in a century."}
    gold = [gold_claim([(QUESTION, [ANSWER]), ("What was the turnout?", [other])])]
    text = QUESTION + " " + ANSWER["answer"]
    # The same perfect item twice cannot claim both gold strings.
    twice = prediction([(QUESTION, ANSWER["answer"])] * 2)
    result = score_evidence(gold, [twice])
    best = meteor(text, text) + meteor("What was the turnout? " + other["answer"], text)
    assert result.qa == pytest.approx(best / 2)
    assert result.claims[0].question_only == pytest.approx(
        (meteor(QUESTION, QUESTION) + meteor("What was the turnout?", QUESTION)) / 2
    )


def test_no_predicted_evidence_scores_zero_even_with_the_right_label():
    gold = [gold_claim([(QUESTION, [ANSWER])], label="Refuted")]
    result = score_evidence(gold, [prediction([], label="Refuted")])
    assert result.qa == 0.0 and result.question_only == 0.0
    assert result.label_accuracy == 1.0
    assert all(value == 0.0 for value in result.averitec.values())


def test_threshold_is_strict():
    assert averitec_at([0.25, 0.2500001], [True, True], 0.25) == 0.5
    assert averitec_at([0.9, 0.9], [True, False], 0.25) == 0.5
    assert averitec_at([], [], 0.25) == 0.0


def test_labels_accuracy_and_macro_f1():
    gold = ["Supported", "Refuted", "Refuted", "Not Enough Evidence"]
    pred = ["Supported", "Refuted", "Supported", "Refuted"]
    # F1: Supported 2/3, Refuted 1/2, NEE 0, Conflicting 0 (no support, no guesses).
    assert macro_f1(gold, pred) == pytest.approx((2 / 3 + 1 / 2) / 4)
    sklearn = pytest.importorskip("sklearn.metrics")
    assert macro_f1(gold, pred) == pytest.approx(
        sklearn.f1_score(gold, pred, labels=list(LABELS), average="macro", zero_division=0)
    )


def test_per_claim_scores_and_label_correctness():
    gold = [gold_claim([(QUESTION, [ANSWER])], "Refuted"), gold_claim([(QUESTION, [ANSWER])], "Supported")]
    preds = [
        prediction([(QUESTION, ANSWER["answer"])], "Refuted"),
        prediction([(QUESTION, ANSWER["answer"])], "Refuted"),
    ]
    result = score_evidence(gold, preds)
    assert [c.label_correct for c in result.claims] == [True, False]
    assert result.label_accuracy == 0.5
    assert result.averitec[0.5] == 0.5  # high evidence score, only one right label
    assert json.loads(json.dumps(result.to_dict()))["averitec"]["0.5"] == 0.5


def test_length_mismatch_is_an_error():
    gold = [gold_claim([(QUESTION, [ANSWER])])] * 2
    with pytest.raises(EvidenceDataError, match="1 records but gold has 2"):
        score_evidence(gold, [prediction([])])


@pytest.mark.parametrize(
    "which,field", [("pred", "evidence"), ("pred", "pred_label"), ("gold", "questions"), ("gold", "label")]
)
def test_missing_field_names_file_record_and_field(which, field):
    gold = [gold_claim([(QUESTION, [ANSWER])]) for _ in range(2)]
    preds = [prediction([]) for _ in range(2)]
    del (preds if which == "pred" else gold)[1][field]
    with pytest.raises(EvidenceDataError) as caught:
        score_evidence(gold, preds, gold_name="g.json", pred_name="p.json")
    assert f"{which[0]}.json: record 1: missing field '{field}'" in str(caught.value)


def test_unknown_label_and_bad_json_are_errors(tmp_path):
    with pytest.raises(EvidenceDataError, match="'Supports' is not one of"):
        score_evidence([gold_claim([(QUESTION, [ANSWER])])], [prediction([], "Supports")])
    bad = tmp_path / "bad.json"
    bad.write_text("[{", encoding="utf-8")
    with pytest.raises(EvidenceDataError, match="bad.json: invalid JSON"):
        load_records(bad)
    with pytest.raises(EvidenceDataError, match="file not found"):
        load_records(tmp_path / "absent.json")


@pytest.fixture(scope="module")
def dev_data():
    if not (AVERITEC / "dev_baseline_predictions.json").exists():
        pytest.skip(f"{AVERITEC} is absent (the real AVeriTeC data lives in ../shared)")
    return load_records(AVERITEC / "dev.json"), load_records(AVERITEC / "dev_baseline_predictions.json")


def test_dev_baseline_reproduces_the_published_table(dev_data):
    result = score_evidence(*dev_data)
    published = {"question_only": 0.24, "qa": 0.19, "0.2": 0.19, "0.25": 0.09, "0.3": 0.05}
    ours = {
        "question_only": round(result.question_only, 2),
        "qa": round(result.qa, 2),
        **{str(t): round(result.averitec[t], 2) for t in (0.2, 0.25, 0.3)},
    }
    # nltk 3.9.3 began splitting en dashes in word_tokenize, which moves a few scores.
    assert ours == published, (
        f"nltk {nltk.__version__} does not reproduce AVeriTeC's published scores; they need nltk>=3.9.1,<3.9.3"
    )
    assert result.n_claims == 500 and result.label_accuracy == 0.546


def test_two_workers_give_identical_results(dev_data):
    gold, preds = dev_data
    gold, preds = gold[:150], preds[:150]
    # Fresh scorers, so neither run profits from caches the other filled.
    parallel = score_evidence(gold, preds, workers=2, scorer=MeteorScorer())
    assert parallel == score_evidence(gold, preds, workers=1, scorer=MeteorScorer())
