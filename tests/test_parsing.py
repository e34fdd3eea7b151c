"""Reading verdicts out of model answers: JSON first, then tolerant text, never raising."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.labels import AVERITEC, JSFACTCHECK, REALFACTBENCH
from workbench.parsing import parse_answer


@pytest.mark.parametrize(
    "text, verdict, explanation",
    [
        (
            '{"verdict": "Refuted", "explanation": "The trial found no effect."}',
            "Refuted",
            "The trial found no effect.",
        ),
        ('Here you go:\n```json\n{"verdict": "supported", "explanation": "ok"}\n```\nHope it helps', "Supported", "ok"),
        ('I think {"Verdict": "NOT ENOUGH INFO", "reason": "no source"} is fair.', "NotEnoughInfo", "no source"),
        ("Verdict: **Refuted**\nExplanation: the number was 4%, not 40%.", "Refuted", "the number was 4%, not 40%."),
        ("Final verdict - SUPPORTS\n", "Supported", None),
        ('{ "verdict": "Refuted", "explanation": "The study was cut off mid', "Refuted", "The study was cut off mid"),
        ("Refuted. The study reports 1.9 versus 2.0 colds.", "Refuted", "The study reports 1.9 versus 2.0 colds."),
    ],
)
def test_verdicts_are_found_in_json_fences_and_text(text, verdict, explanation):
    answer = parse_answer(text, JSFACTCHECK)
    assert (answer.status, answer.verdict, answer.explanation) == ("ok", verdict, explanation)


def test_json_object_is_kept_as_parsed():
    answer = parse_answer('{"verdict": "Refuted", "explanation": "x", "confidence": 0.3}', JSFACTCHECK)
    assert answer.parsed == {"verdict": "Refuted", "explanation": "x", "confidence": 0.3}


def test_the_abstain_label_is_its_own_state():
    answer = parse_answer('{"verdict": "Unknown", "reason": "cannot be verified"}', REALFACTBENCH)
    assert (answer.status, answer.verdict, answer.explanation) == ("abstain", "unknown", "cannot be verified")
    assert parse_answer("uncertain - nothing to go on", REALFACTBENCH).status == "abstain"


def test_an_answer_without_a_verdict_is_a_parse_failure_with_what_was_written():
    answer = parse_answer('{"verdict": "Mostly true", "explanation": "partly"}', JSFACTCHECK)
    assert (answer.status, answer.verdict, answer.raw_verdict) == ("parse_failure", None, "Mostly true")
    rambling = parse_answer("Well, the KESTREL-D study is interesting.", JSFACTCHECK)
    assert (rambling.status, rambling.verdict) == ("parse_failure", None)


def test_gold_only_labels_are_not_verdicts():
    # Unclear is a gold label kept out of scoring, not something a model may answer.
    assert parse_answer('{"verdict": "Unclear"}', JSFACTCHECK).status == "parse_failure"


def test_verdicts_are_limited_to_what_the_template_allows():
    answer = parse_answer('{"verdict": "Not Enough Evidence"}', AVERITEC, allowed=["Supported", "Refuted"])
    assert answer.status == "parse_failure"


def test_synonyms_land_in_each_space():
    assert parse_answer('{"verdict": "TRUE"}', REALFACTBENCH).verdict == "true"
    assert parse_answer('{"label": "cherry-picking"}', AVERITEC).verdict == "Conflicting Evidence/Cherrypicking"
    assert parse_answer("Answer: NEI", JSFACTCHECK).verdict == "NotEnoughInfo"


def test_a_templates_own_verdict_field_is_read():
    answer = parse_answer('{"rating": "wrong-field", "call": "Refuted"}', JSFACTCHECK, verdict_keys=("call",))
    assert answer.verdict == "Refuted"


@settings(max_examples=400, deadline=None)
@given(
    st.text(alphabet=st.characters(codec="utf-8"), max_size=400)
    | st.text(alphabet='{}[]":,`\\ verdictVERDICT:truefalsRefuted\n*-', max_size=300)
)
def test_arbitrary_text_never_raises_and_gives_one_of_three_states(text):
    for space in (JSFACTCHECK, REALFACTBENCH, AVERITEC):
        answer = parse_answer(text, space)
        assert answer.status in {"ok", "abstain", "parse_failure"}
        if answer.status == "ok":
            assert answer.verdict in space.labels
        if answer.status == "parse_failure":
            assert answer.verdict is None


def test_pathological_nesting_does_not_raise():
    assert parse_answer("{" * 100_000 + '"verdict": "Refuted"', JSFACTCHECK).status == "ok"
    assert parse_answer('{"a":' * 5000 + "1" + "}" * 5000, JSFACTCHECK).status == "parse_failure"


@pytest.mark.parametrize(
    "text, space",
    [
        ("Verdict: Refuted or Supported", JSFACTCHECK),
        ("Supported / Refuted", JSFACTCHECK),
        ('{"verdict": "Supported or Refuted", "explanation": "hard to say"}', JSFACTCHECK),
        ("true or false", REALFACTBENCH),
        ("Conflicting / Supported", AVERITEC),
    ],
)
def test_an_answer_that_will_not_choose_is_a_parse_failure(text, space):
    answer = parse_answer(text, space)
    assert (answer.status, answer.verdict) == ("parse_failure", None)


@pytest.mark.parametrize(
    "text, space, verdict",
    [
        ("Refuted or not, the report disagrees", JSFACTCHECK, "Refuted"),
        ("Refuted, supported by nothing in the report", JSFACTCHECK, "Refuted"),
        ("Conflicting Evidence/Cherrypicking", AVERITEC, "Conflicting Evidence/Cherrypicking"),
        ("Supported or supported: either way", JSFACTCHECK, "Supported"),
    ],
)
def test_a_label_followed_by_other_words_is_still_read(text, space, verdict):
    assert parse_answer(text, space).verdict == verdict
