"""Finding a quoted passage in its page when the two are not written byte for byte alike.

Annotators copy a passage out of a page, and the copy drifts: a Japanese page writes
full-width digits and letters (２０２３年, ＷＨＯ) where the quote has half-width ones,
half-width katakana (ﾜｸﾁﾝ) where the quote has full-width, or breaks a line in the middle
of a sentence (Japanese has no spaces, so a line break is the only gap). The workbench
matches the two under Unicode compatibility equivalence (the equivalence NFKC
normalises to) with all whitespace ignored, and keeps a map from every normalised
character back to the page's own offsets: the window is then cut from the page as
stored, never from a normalised copy.

Each page character is decomposed on its own (NFKD, which defines the same equivalence
classes as NFKC): a half-width ｶﾞ and a full-width ガ both become カ + the combining
voiced mark, and every resulting character points at the one page character it came
from. Whole-string NFKC would compose ｶﾞ into one character made from two page
characters, which has no single offset to point back to. Case is kept (a passage that
differs in case is a different quote).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache


def folded(text: str) -> tuple[str, list[int]]:
    """`text` decomposed (NFKD per character) with whitespace dropped, and for every
    character of the result the offset in `text` of the character it came from."""
    chars: list[str] = []
    origins: list[int] = []
    for offset, char in enumerate(text):
        parts = _parts(char)
        if len(parts) == 1:  # most characters: one part (or none, for whitespace)
            chars.append(parts[0])
            origins.append(offset)
        else:
            chars.extend(parts)
            origins.extend([offset] * len(parts))
    return "".join(chars), origins


@lru_cache(maxsize=8192)
def _parts(char: str) -> tuple[str, ...]:
    """A character's compatibility decomposition without whitespace (looked up once per character)."""
    return tuple(part for part in unicodedata.normalize("NFKD", char) if not part.isspace())


@lru_cache(maxsize=64)  # a window of a passage not in its page is drawn again and again
def find_passage(page: str, passage: str) -> tuple[int, int] | None:
    """(start, end) of `passage` in `page`, as offsets into `page` as written; None if absent.

    An exact occurrence wins; otherwise the first occurrence under compatibility
    equivalence (full/half-width forms, ligatures, composed or decomposed kana) with
    whitespace and line breaks ignored. The span runs from the page character the
    passage's first character came from to the one its last came from, so it never
    starts or ends inside a character, and whitespace around it is left out.
    """
    if not page or not passage:
        return None
    exact = page.find(passage)
    if exact >= 0:
        return exact, exact + len(passage)
    wanted, _ = folded(passage)
    if not wanted:
        return None
    text, origins = folded(page)
    found = text.find(wanted)
    # A match that stops before a combining mark matched half a character (カ in ガ): skip it.
    while found >= 0 and _splits_a_character(text, found + len(wanted)):
        found = text.find(wanted, found + 1)
    if found < 0:
        return None
    return origins[found], origins[found + len(wanted) - 1] + 1


def _splits_a_character(text: str, end: int) -> bool:
    return end < len(text) and unicodedata.combining(text[end]) != 0


__all__ = ["find_passage", "folded"]
