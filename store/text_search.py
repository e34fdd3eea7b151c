"""Text terms of the filter language: which index answers them, and where they match.

Two kinds of script, two ways to search (docs/browsing.md tells the user the same):

- Scripts that put spaces between words (Latin, Cyrillic, Greek, Arabic, ...): the word index
  (FTS5 unicode61, m002). `vaccine` finds the word, `vacc*` a word's beginning, case and
  diacritics folded (resume finds résumé).
- Scripts written without spaces (Han, Hiragana, Katakana, Hangul, Thai, ...): a substring,
  exactly as `LIKE '%...%'` would find it. Three characters or more are a phrase of the
  trigram index (m018). One or two are shorter than a trigram: every occurrence begins one
  (m018 indexes each text with two characters after it), so the claims holding a rare short
  query are the documents of a range of the index's terms; a common one (more than
  SHORT_FROM_INDEX claims) is a LIKE scan instead, which finds a page of matches in the
  first few thousand claims. BENCHMARKS.md measures both.

Why trigrams and not a Japanese segmenter (fugashi/SudachiPy), measured: fugashi found only 43%
of random 2-4-character substrings of Japanese claims (never 士山 in 富士山), is Japanese-only,
runs in Python (triggers could not keep its index) and takes 251 MB installed with
unidic-lite; trigrams find every substring in every script, as LIKE would (tested).
"""

from __future__ import annotations

import re
from functools import lru_cache

from store.filter_terms import FilterError, Term

TRIGRAM = 3
"""The trigram index's token length: a shorter substring has no token of its own."""
SHORT_FROM_INDEX = 5_000
"""Up to this many matching documents a short query is read from the index's terms; past
it, a scan finds a page sooner (BENCHMARKS.md: about 3 µs per place in the index against
a scan that meets a match every N / matches rows)."""
TERMS_AT_MOST = 200
"""A short query beginning more terms than this is common: no need to count its documents."""
_LAST = "\U0010ffff"
"""Above every character: term >= "東京" AND term < "東京" + _LAST is every term beginning 東京."""
_EVIDENCE_IN = "c.id IN (SELECT e.claim_id FROM evidence e WHERE e.id IN (SELECT rowid FROM {0} WHERE {0} MATCH ?))"


@lru_cache(maxsize=1)
def _unspaced():
    import regex  # its Unicode script tables; loaded only for filters that need them

    return regex.compile(
        r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\p{Thai}\p{Lao}\p{Khmer}"
        r"\p{Myanmar}\p{Tibetan}\p{Yi}\u30fc\u3005\u3006]"
    )


def is_unspaced(value: str) -> bool:
    """True when the text holds a character of a script written without spaces between words
    (or 々 and ー, which belong to Japanese text though their script is "common")."""
    return value.isascii() is False and _unspaced().search(value) is not None


def claim_text_clause(term: Term, db=None) -> tuple[str, list]:
    """SQL over `claims c` for a substring of claim text (one term, not negated); `db` lets a
    rare short query be read from the index (without it, a scan)."""
    value = _substring(term)
    if len(value) >= TRIGRAM:
        return "c.id IN (SELECT rowid FROM claims_trigram WHERE claims_trigram MATCH ?)", [_quoted(value)]
    like = "c.text LIKE ? ESCAPE '\\'"
    if _rare(db, "claims_trigram_terms", value):
        return (
            f"c.id IN (SELECT doc FROM claims_trigram_places WHERE term >= ? AND term < ?) AND {like}",
            [value, value + _LAST, _like(value)],
        )
    return like, [_like(value)]


def evidence_clause(term: Term, db=None) -> tuple[str, list]:
    """SQL over `claims c` for `evidence:VALUE`: a word (phrase, prefix) or a substring."""
    if not is_unspaced(term.value):
        return _EVIDENCE_IN.format("evidence_fts"), [fts_phrase(term)]
    value = _substring(term)
    if len(value) >= TRIGRAM:
        return _EVIDENCE_IN.format("evidence_trigram"), [_quoted(value)]
    like = "(e.title LIKE ? ESCAPE '\\' OR e.text LIKE ? ESCAPE '\\')"
    if _rare(db, "evidence_trigram_terms", value):
        sql = (
            "c.id IN (SELECT e.claim_id FROM evidence e WHERE e.id IN (SELECT doc FROM"
            f" evidence_trigram_places WHERE term >= ? AND term < ?) AND {like})"
        )
        return sql, [value, value + _LAST] + [_like(value)] * 2
    return f"EXISTS (SELECT 1 FROM evidence e WHERE e.claim_id = c.id AND {like})", [_like(value)] * 2


def _rare(db, terms: str, value: str) -> bool:
    """Whether few enough documents hold the short `value` to read them from the index. Only
    for text without case: the index's terms are case folded, and LIKE's folding differs."""
    if db is None or value.lower() != value.upper():
        return False
    sql = f"SELECT count(*), sum(doc) FROM (SELECT doc FROM {terms} WHERE term >= ? AND term < ? LIMIT ?)"
    found, documents = db.execute(sql, [value, value + _LAST, TERMS_AT_MOST + 1]).fetchone()
    return found <= TERMS_AT_MOST and (documents or 0) <= SHORT_FROM_INDEX


def fts_phrase(term: Term) -> str:
    """One FTS5 phrase: the user's words as a literal string (FTS syntax never leaks in)."""
    value = term.value
    prefix = value.endswith("*") and not term.quoted
    value = value.rstrip("*") if prefix else value
    if not any(ch.isalnum() for ch in value):
        raise FilterError(f"nothing to search for in {term.value!r}", term.start, term.end)
    return _quoted(value) + ("*" if prefix else "")


def _substring(term: Term) -> str:
    # A trailing * asks for a beginning; every substring search finds beginnings already.
    value = term.value if term.quoted else term.value.rstrip("*")
    if not value.strip():
        raise FilterError(f"nothing to search for in {term.value!r}", term.start, term.end)
    return value


def _quoted(value: str) -> str:
    return '"' + value.replace('"', '""') + '"'


def _like(value: str) -> str:
    return "%" + re.sub(r"([\\%_])", r"\\\1", value) + "%"
