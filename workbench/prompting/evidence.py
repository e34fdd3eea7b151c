"""Evidence windows: exactly the text each input setting shows a model (and the TUI shows
a person).

- Reference: the annotators' quoted passage.
- Full: the cited page cut to a 6,000-character window centred on the passage, clamped
  at the page edges, never cutting the passage.
- Pages: every candidate page cut to 600 characters; the cited page's window centred on
  the passage, the others from their start.

Sizes count characters (Python code points), whatever the script: a Japanese page's
6,000-character window holds 6,000 kana, kanji and full-width punctuation marks. A quoted
passage is placed where the import found it; one the import could not place is looked
for again under compatibility equivalence (full/half-width forms, line breaks ignored:
workbench.nlp.passages), and the window is cut from the page as stored.
"""

from __future__ import annotations

from dataclasses import dataclass

from store import Claim, Evidence
from workbench.nlp.passages import find_passage

FULL_WINDOW_CHARS = 6_000
PAGE_WINDOW_CHARS = 600


@dataclass(frozen=True)
class Window:
    """A slice of an evidence text, with the quoted passage's place inside it."""

    text: str
    start: int
    """Where the slice starts in the full text."""
    end: int
    highlight: tuple[int, int] | None = None
    """The passage's offsets within `text`, when it is inside."""
    url: str | None = None
    title: str | None = None
    is_cited: bool = False
    total_chars: int = 0

    @property
    def clipped_before(self) -> bool:
        return self.start > 0

    @property
    def clipped_after(self) -> bool:
        return self.end < self.total_chars


def cut_window(text: str, size: int, passage: tuple[int, int] | None = None) -> tuple[int, int]:
    """(start, end) of a `size`-character window of `text` centred on `passage`.

    Clamped at both edges; a passage longer than the window is kept whole.
    """
    if size <= 0:
        raise ValueError("window size must be positive")
    length = len(text)
    if passage is None:
        return 0, min(size, length)
    p_start, p_end = passage
    if p_end - p_start >= size:
        return p_start, p_end
    centre = (p_start + p_end) / 2
    start = int(round(centre - size / 2))
    start = max(0, min(start, length - size))
    end = min(length, start + size)
    return start, end


def window_of(item: Evidence, size: int) -> Window:
    """One evidence item cut to `size` characters (centred on its passage if it has one)."""
    text = item.text or ""
    passage = passage_span(item)
    start, end = cut_window(text, size, passage)
    highlight = None
    if passage and start <= passage[0] and passage[1] <= end:
        highlight = (passage[0] - start, passage[1] - start)
    return Window(text[start:end], start, end, highlight, item.url, item.title, item.is_cited, len(text))


def passage_span(item: Evidence) -> tuple[int, int] | None:
    """Where the quoted passage lies in the item's text: the stored offsets, else where the
    passage is found under compatibility equivalence (None when it is not in the text)."""
    if item.passage_start is not None and item.passage_end is not None:
        return item.passage_start, item.passage_end
    if item.passage and item.text:
        return find_passage(item.text, item.passage)
    return None


def cited_page(claim: Claim) -> Evidence | None:
    """The page the annotators cited, else the first page, else None."""
    pages = [e for e in claim.evidence if e.kind == "page"]
    return next((e for e in pages if e.is_cited), pages[0] if pages else None)


def reference_passages(claim: Claim) -> list[Window]:
    """The Reference setting: quoted passages; for datasets without pages, their snippets."""
    quoted = [e for e in claim.evidence if e.passage]
    if quoted:
        return [
            Window(
                e.passage,
                e.passage_start or 0,
                e.passage_end or len(e.passage),
                (0, len(e.passage)),
                e.url,
                e.title,
                e.is_cited,
                len(e.text or ""),
            )
            for e in quoted
        ]
    snippets = [e for e in claim.evidence if e.kind in ("passage", "article") and e.text]
    return [Window(e.text, 0, len(e.text), None, e.url, e.title, e.is_cited, len(e.text)) for e in snippets]


def full_window(claim: Claim, size: int = FULL_WINDOW_CHARS) -> Window | None:
    """The Full setting: the cited page cut to `size` characters around the passage."""
    page = cited_page(claim)
    if page is not None:
        return window_of(page, size)
    snippets = [e for e in claim.evidence if e.kind in ("passage", "article") and e.text]
    return window_of(snippets[0], size) if snippets else None


def page_windows(claim: Claim, size: int = PAGE_WINDOW_CHARS) -> list[Window]:
    """The Pages setting: every candidate page (or snippet) cut to `size` characters."""
    pages = [e for e in claim.evidence if e.kind == "page"]
    if not pages:
        pages = [e for e in claim.evidence if e.kind in ("passage", "article") and e.text]
    return [window_of(e, size) for e in pages]


def qa_pairs(claim: Claim) -> list[Evidence]:
    """AVeriTeC-style question-answer evidence, in order."""
    return [e for e in claim.evidence if e.kind == "qa"]


def qa_text(item: Evidence) -> str:
    """A question-answer pair as one line of text (a Boolean answer keeps its explanation)."""
    answer = item.text or "No answer could be found."
    if item.answer_type == "Boolean" and item.explanation:
        answer = f"{answer}. {item.explanation}"
    return f"Q: {item.question} A: {answer}"


def page_sentences(item: Evidence) -> list[str]:
    """A page built from a list of sentences, as that list: position n is sentence n. Lines
    are the sentences unless one held a line break of its own; then the offsets the import
    stored (attributes.sentence_starts) say where each begins."""
    text = item.text or ""
    starts = item.attributes.get("sentence_starts")
    if not isinstance(starts, list) or not starts:
        return text.split("\n")
    ends = [*starts[1:], len(text) + 1]
    return [text[start : end - 1] for start, end in zip(starts, ends)]
