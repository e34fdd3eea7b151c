"""Evidence windows: exactly what the Reference / Full / Pages settings show."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from store import Claim, Evidence
from workbench.prompting.evidence import cut_window, full_window, page_windows, qa_text, reference_passages, window_of


def page(text: str, passage: str | None = None, cited: bool = False, url: str = "u") -> Evidence:
    start = text.index(passage) if passage else None
    return Evidence(
        kind="page",
        text=text,
        passage=passage,
        passage_start=start,
        passage_end=None if passage is None else start + len(passage),
        is_cited=cited,
        url=url,
    )


def test_full_window_is_centred_on_the_passage():
    text = "a" * 10_000 + "THE QUOTE" + "b" * 10_000
    window = window_of(page(text, "THE QUOTE"), 6_000)
    assert len(window.text) == 6_000
    h_start, h_end = window.highlight
    assert window.text[h_start:h_end] == "THE QUOTE"
    assert abs(h_start - (6_000 - h_end)) <= 1  # as much text before as after


@pytest.mark.parametrize("where", ["start", "end"])
def test_window_is_clamped_at_the_page_edges(where):
    filler = "x" * 9_000
    text = "QUOTE" + filler if where == "start" else filler + "QUOTE"
    window = window_of(page(text, "QUOTE"), 6_000)
    assert len(window.text) == 6_000
    assert (window.start == 0) if where == "start" else (window.end == len(text))
    assert "QUOTE" in window.text


def test_a_passage_longer_than_the_window_is_never_cut():
    passage = "p" * 700
    text = "x" * 1000 + passage + "y" * 1000
    window = window_of(page(text, passage), 600)
    assert window.text == passage


def test_short_pages_are_shown_whole_and_pages_without_passage_from_the_start():
    assert window_of(page("short page"), 600).text == "short page"
    assert window_of(page("z" * 2000), 600).text == "z" * 600


@given(length=st.integers(1, 5000), start=st.integers(0, 4999), span=st.integers(1, 800), size=st.integers(1, 3000))
def test_windows_always_hold_the_passage_and_stay_in_bounds(length, start, span, size):
    start = min(start, length - 1)
    end = min(length, start + span)
    w_start, w_end = cut_window("x" * length, size, (start, end))
    assert 0 <= w_start <= start and end <= w_end <= length
    assert w_end - w_start == max(min(size, length), end - start)


def test_settings_views_of_a_claim():
    cited = page(
        "intro " * 300 + "The ferry began in 1998." + " tail" * 300,
        "The ferry began in 1998.",
        cited=True,
        url="https://cited",
    )
    other = page("other page " * 100, url="https://other")
    claim = Claim(external_id="1", text="The ferry began in 1998.", evidence=[other, cited])
    assert [w.text for w in reference_passages(claim)] == ["The ferry began in 1998."]
    full = full_window(claim)
    assert full.url == "https://cited" and "The ferry began in 1998." in full.text
    pages = page_windows(claim)
    assert [w.url for w in pages] == ["https://other", "https://cited"]
    assert all(len(w.text) <= 600 for w in pages) and pages[1].is_cited and pages[1].highlight


def test_snippet_datasets_and_qa_pairs():
    snippet = Evidence(kind="passage", text="Water boils at 100 C.")
    claim = Claim(external_id="1", text="Water boils at 100 C.", evidence=[snippet])
    assert [w.text for w in reference_passages(claim)] == ["Water boils at 100 C."]
    assert full_window(claim).text == "Water boils at 100 C."
    boolean = Evidence(kind="qa", question="Is it?", text="No", answer_type="Boolean", explanation="It is not.")
    unanswered = Evidence(kind="qa", question="Who?", text=None)
    assert qa_text(boolean) == "Q: Is it? A: No. It is not."
    assert qa_text(unanswered) == "Q: Who? A: No answer could be found."
