"""Evidence windows on Japanese pages: sizes in characters, the quoted passage found despite
full/half-width forms and line breaks, and the window cut from the page as stored."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from store import Evidence
from workbench.nlp.passages import find_passage
from workbench.prompting.evidence import FULL_WINDOW_CHARS, PAGE_WINDOW_CHARS, window_of

# Hiragana, katakana, common kanji and full-width punctuation: a Japanese page has no spaces.
JAPANESE = st.sampled_from(
    [chr(c) for c in range(0x3041, 0x3097)]
    + [chr(c) for c in range(0x30A1, 0x30FB)]
    + [chr(c) for c in range(0x4E00, 0x4E00 + 400)]
    + list("、。「」『』（）・！？：ー")
)
japanese_text = st.lists(JAPANESE, min_size=1, max_size=60).map("".join)

PAGE = (
    "厚生労働省の発表によると、２０２３年度の国内の献血者数は約５００万人でした。"
    "このうち１０代と２０代の割合は\n前年より減っており、若い世代への呼びかけが続いています。"
    "ＷＨＯの指針では、献血の間隔は男性で１２週間以上とされています。"
)


def page(text: str, passage: str | None = None, placed: bool = False) -> Evidence:
    """A page as the import stores it: with offsets if the passage was placed, else without."""
    span = find_passage(text, passage) if placed and passage else None
    return Evidence(
        kind="page",
        text=text,
        passage=passage,
        is_cited=True,
        url="https://example.jp/a",
        passage_start=span[0] if span else None,
        passage_end=span[1] if span else None,
    )


def test_a_half_width_quote_is_found_in_a_full_width_page_across_a_line_break():
    quote = "このうち10代と20代の割合は前年より減っており"
    start, end = find_passage(PAGE, quote)
    assert PAGE[start:end] == "このうち１０代と２０代の割合は\n前年より減っており"


def test_half_width_katakana_and_composed_kana_are_the_same_passage():
    text = "新しいﾜｸﾁﾝのｶﾞｲﾄﾞﾗｲﾝが公表された。"
    start, end = find_passage(text, "ワクチンのガイドライン")
    assert text[start:end] == "ﾜｸﾁﾝのｶﾞｲﾄﾞﾗｲﾝ"
    # カ is not the first half of ガ: a passage ending on a base letter does not match one with a mark.
    assert find_passage("ガ", "カ") is None


def test_a_passage_that_is_not_there_is_not_found():
    assert find_passage(PAGE, "献血者数は約６００万人") is None
    assert find_passage(PAGE, "") is None


def test_the_window_of_an_unplaced_quote_is_cut_from_the_page_as_stored():
    text = "前置き。" * 2_000 + PAGE + "後書き。" * 2_000
    item = page(text, "WHOの指針では、献血の間隔は男性で12週間以上")
    window = window_of(item, FULL_WINDOW_CHARS)
    assert len(window.text) == FULL_WINDOW_CHARS
    h_start, h_end = window.highlight
    assert window.text[h_start:h_end] == "ＷＨＯの指針では、献血の間隔は男性で１２週間以上"
    assert text[window.start : window.end] == window.text
    assert abs(h_start - (FULL_WINDOW_CHARS - h_end)) <= 1  # centred on the passage


@given(
    before=st.integers(0, 9_000),
    after=st.integers(0, 9_000),
    passage=japanese_text,
    size=st.sampled_from([FULL_WINDOW_CHARS, PAGE_WINDOW_CHARS]),
    seed=st.integers(0, 10**6),
)
def test_japanese_windows_are_exact_in_characters_wherever_the_passage_lies(before, after, passage, size, seed):
    filler = "".join(chr(0x4E00 + (seed + i * 7919) % 300) + "。、"[i % 2] for i in range((before + after) // 2 + 1))
    text = filler[:before] + passage + filler[before : before + after]
    item = Evidence(
        kind="page", text=text, passage=passage, passage_start=before, passage_end=before + len(passage), is_cited=True
    )
    window = window_of(item, size)
    assert len(window.text) == max(min(size, len(text)), len(passage))
    assert text[window.start : window.end] == window.text
    h_start, h_end = window.highlight
    assert window.text[h_start:h_end] == passage
    if window.start > 0 and window.end < len(text):  # not clamped at an edge: centred
        assert abs(h_start - (len(window.text) - h_end)) <= 1


def widened(text: str) -> str:
    """ASCII letters and digits written full-width, as many Japanese pages write them."""
    return "".join(chr(ord(c) + 0xFEE0) if c.isascii() and c.isalnum() else c for c in text)


@given(
    head=japanese_text,
    passage=st.lists(JAPANESE | st.sampled_from(list("0123456789ABCxyz")), min_size=1, max_size=40).map("".join),
    tail=japanese_text,
    breaks=st.lists(st.integers(0, 40), max_size=3),
)
def test_a_quote_is_found_despite_widths_and_line_breaks_near_either_end(head, passage, tail, breaks):
    shown = widened(passage)
    for at in sorted(set(breaks), reverse=True):
        if 0 < at < len(shown):
            shown = shown[:at] + "\n" + shown[at:]
    text = head + shown + tail
    start, end = find_passage(text, passage)
    found = text[start:end]
    strip = lambda s: "".join(unicodedata.normalize("NFKC", s).split())  # noqa: E731
    assert strip(found) == strip(passage)
    assert not found[0].isspace() and not found[-1].isspace()
