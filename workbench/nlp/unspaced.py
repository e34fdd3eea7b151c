"""Texts in scripts written without spaces between words (Japanese, Chinese, Thai, ...), where
scores built on English words mean nothing.

METEOR as the workbench computes it (nltk) splits text into words with an English tokenizer
and matches them through English stems and WordNet synonyms. A Japanese sentence has no
spaces: it comes out as one or a few "words", so two sentences that say the same thing score
0 unless they are identical, and WordNet synonyms never apply. The contamination pipeline
therefore refuses METEOR on such text and names the route that works: sentence embeddings
from a multilingual model (`--metric embedding:PATH`, or the name of a sentence-transformers
model in the Hugging Face cache).
"""

from __future__ import annotations

import unicodedata

UNSPACED_SCRIPTS = ("CJK", "HIRAGANA", "KATAKANA", "HANGUL", "THAI", "LAO", "KHMER", "MYANMAR", "TIBETAN")
"""Unicode name prefixes of letters in scripts written without spaces between words
(Korean is spaced, but by phrase, not by word: METEOR fares no better on it)."""
MOST = 0.3
"""A text whose letters are this share or more unspaced-script letters counts as unspaced
(a Japanese sentence with Latin names and numbers in it stays Japanese)."""


def unspaced_share(text: str) -> float:
    """The share of `text`'s letters that belong to an unspaced script (0 for no letters)."""
    letters = [char for char in text if char.isalpha()]
    if not letters:
        return 0.0
    unspaced = sum(1 for char in letters if unicodedata.name(char, "").startswith(UNSPACED_SCRIPTS))
    return unspaced / len(letters)


def is_unspaced(text: str) -> bool:
    """True for a text mostly in a script written without spaces (Japanese, Chinese, Thai)."""
    return unspaced_share(text) >= MOST


def meteor_refusal(texts: list[str], models: list[str] | None = None) -> str | None:
    """Why METEOR cannot score these texts (None when it can): the message names the
    embeddings route and, when given, the sentence-transformers models found locally."""
    unspaced = [text for text in texts if is_unspaced(text)]
    if not unspaced:
        return None
    found = (
        f"; sentence-transformers models in your Hugging Face cache: {', '.join(models)}"
        if models
        else "; none was found in your Hugging Face cache"
    )
    return (
        f"METEOR cannot score text written without spaces between words ({len(unspaced)} of {len(texts)} texts,"
        f" e.g. {unspaced[0][:30]!r}): it splits words at spaces and matches English stems and"
        " WordNet synonyms, which do not apply. Use sentence embeddings from a multilingual model instead:"
        f" --metric embedding:PATH (a model folder) or embedding:ORG/NAME (a model in the Hugging Face"
        f" cache){found}"
    )


__all__ = ["MOST", "is_unspaced", "meteor_refusal", "unspaced_share"]
