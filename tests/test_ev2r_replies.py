"""Judge replies the Ev2R counts are read from: any text a judge may send is read or refused
with a reason, never a crash (review finding 7: "²".isdigit() is true, int("²") raises)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from workbench.contamination.ev2r_task import COUNT_KEYS, parse_counts

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
