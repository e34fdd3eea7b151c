"""Japanese verdicts: the jsfactcheck-ja template's 支持 / 反駁 / 情報不足 read from answers shaped
as models write them, and a negation inside an explanation never taken for the verdict."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench.labels import AVERITEC, JSFACTCHECK, normalise
from workbench.parsing import parse_answer

ANSWERS = [
    # JSON, as the template asks, the explanation saying what is not supported
    (
        '{"verdict": "反駁", "explanation": "引用された一節によると参加者は240人であり、2,400人という主張は支持されない。"}',
        "Refuted",
        "反駁",
    ),
    # JSON in a fence, with Japanese keys
    ('```json\n{"判定": "支持", "理由": "ページには同じ日付と金額が書かれている。"}\n```', "Supported", "支持"),
    # the text form the template asks for
    ("判定: 情報不足\n説明: ページは開業の年を述べているが、利用者数には触れていない。", "NotEnoughInfo", "情報不足"),
    # full-width colon, explanation first and the verdict last
    (
        "説明：資料では効果は「統計的に有意ではない」とされ、主張は支持されないと考えられる。\n判定：反駁",
        "Refuted",
        "反駁",
    ),
    # the verdict first, bare, then the reasons
    ("反駁。記事によると増加率は20%ではなく約2%であり、主張は支持されません。", "Refuted", "反駁"),
    ("「支持」です。ページの記述と主張は一致しています。", "Supported", "支持"),
    ("**情報不足**\n\n与えられた資料には、この点についての記述がありません。", "NotEnoughInfo", "情報不足"),
    # the verdict last, in a sentence
    ("ページの数字は主張と食い違っています。以上から、最終判定は「反駁」です。", "Refuted", "反駁"),
    ("【判定】支持\n【理由】公式発表と一致する。", "Supported", "支持"),
    # a judgement word in the explanation that is not the verdict
    ("支持。専門家の判断は分かれているが、引用された調査は主張を裏付けている。", "Supported", "支持"),
    # English verdicts still read in a Japanese answer
    ("Verdict: Refuted\nExplanation: 数字が違う。", "Refuted", "Refuted"),
]


@pytest.mark.parametrize("answer, verdict, raw", ANSWERS)
def test_japanese_answers_are_read(answer, verdict, raw):
    parsed = parse_answer(answer, JSFACTCHECK)
    assert (parsed.status, parsed.verdict, parsed.raw_verdict) == ("ok", verdict, raw)
    assert parsed.explanation


@pytest.mark.parametrize(
    "answer",
    [
        "この主張は支持されない。",  # a negation, no verdict given
        "支持されない。資料と食い違う。",  # opens with the label's word, but negated
        "判定：支持できない",
        "支持または反駁のどちらとも言える。",  # will not choose
        "支持／反駁",
        "真偽不明",  # 真 is a verdict word only on its own
        "正しいとは言えない。",
    ],
)
def test_negations_and_hedges_are_not_verdicts(answer):
    parsed = parse_answer(answer, JSFACTCHECK)
    assert parsed.status == "parse_failure" and parsed.verdict is None


def test_japanese_labels_fold_into_the_built_in_spaces():
    assert [normalise(label, JSFACTCHECK) for label in ("支持", "反駁", "情報不足", "「反駁」", "支持されない")] == [
        "Supported",
        "Refuted",
        "NotEnoughInfo",
        "Refuted",
        None,
    ]
    assert normalise("情報不足", AVERITEC) == "Not Enough Evidence"


NEGATED = st.sampled_from(
    [
        "支持されない",
        "支持できない",
        "反駁されていない",
        "情報不足ではない",
        "正しくない",
        "誤りとは言えない",
        "判断は難しい",
        "判定は分かれる",
    ]
)
PROSE = st.text(st.sampled_from(list("資料にはこの点の記述があるが数字は異なる。、")), max_size=40)


@given(
    before=PROSE,
    negated=NEGATED,
    after=PROSE,
    verdict=st.sampled_from(["支持", "反駁", "情報不足"]),
    shape=st.sampled_from(["json", "first", "last"]),
)
def test_a_negation_in_the_explanation_never_overrides_the_verdict(before, negated, after, verdict, shape):
    explanation = f"{before}主張は{negated}。{after}"
    answer = {
        "json": json.dumps({"verdict": verdict, "explanation": explanation}, ensure_ascii=False),
        "first": f"{verdict}。{explanation}",
        "last": f"説明：{explanation}\n判定：{verdict}",
    }[shape]
    parsed = parse_answer(answer, JSFACTCHECK)
    assert parsed.verdict == normalise(verdict, JSFACTCHECK)
    assert parsed.raw_verdict == verdict
