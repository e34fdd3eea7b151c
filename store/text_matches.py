"""Where a filter's text terms match inside a text, for highlighting what the search found.

The same rules as the SQL the terms compile to (store.text_search): in spaced scripts whole
words, case and diacritics folded, the last word of `vacc*` as a beginning, the words of a
"quoted phrase" one after another; in unspaced scripts (Japanese, Chinese, ...) the substring,
case folded as the trigram index folds it.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from store.filter_terms import FilterError, parse_terms
from store.text_search import is_unspaced

_WORD = re.compile(r"[^\W_]+")
"""A word as the word index cuts one: a run of letters and digits."""
_KEYWORDS = {"wrong", "right", "correct", "missing", "predicted", "reviewed"}


@dataclass(frozen=True)
class _Phrase:
    words: tuple[str, ...]  # folded
    prefix: bool


@dataclass(frozen=True)
class TextMatcher:
    """The positive text terms of one filter, ready to find their places in a text."""

    phrases: tuple[_Phrase, ...] = ()
    substrings: tuple[re.Pattern, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.phrases or self.substrings)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """(start, end) of every match in `text`, sorted, overlapping ones merged."""
        found = [m.span() for pattern in self.substrings for m in pattern.finditer(text)]
        if self.phrases:
            words = [(m.start(), m.end(), fold(m.group())) for m in _WORD.finditer(text)]
            for phrase in self.phrases:
                found += _phrase_spans(words, phrase)
        return _merged(found)


@lru_cache(maxsize=64)
def text_matcher(filter_text: str, field: str | None = None) -> TextMatcher:
    """The matcher for the claim-text terms of `filter_text` (field None) or its
    `evidence:` terms (field "evidence"); a filter that does not parse matches nothing."""
    try:
        terms = parse_terms(filter_text or "")
    except FilterError:
        return TextMatcher()
    phrases, substrings = [], []
    for term in terms:
        if term.negated or term.field != field:
            continue
        if field is None and not term.quoted and term.value.lower() in _KEYWORDS:
            continue
        prefix = term.value.endswith("*") and not term.quoted
        value = term.value.rstrip("*") if prefix else term.value
        if is_unspaced(value):
            if value.strip():
                substrings.append(re.compile(re.escape(value), re.IGNORECASE))
        else:
            words = tuple(fold(w) for w in _WORD.findall(value))
            if words:
                phrases.append(_Phrase(words, prefix))
    return TextMatcher(tuple(phrases), tuple(substrings))


def fold(word: str) -> str:
    """A word with case and diacritics taken off, as the word index compares words."""
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()


def _phrase_spans(words: list[tuple[int, int, str]], phrase: _Phrase) -> list[tuple[int, int]]:
    size = len(phrase.words)
    spans = []
    for i in range(len(words) - size + 1):
        here = words[i : i + size]
        if all(w[2] == p for w, p in zip(here[:-1], phrase.words[:-1])) and (
            here[-1][2].startswith(phrase.words[-1]) if phrase.prefix else here[-1][2] == phrase.words[-1]
        ):
            spans.append((here[0][0], here[-1][1]))
    return spans


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        elif end > start:
            merged.append((start, end))
    return merged
