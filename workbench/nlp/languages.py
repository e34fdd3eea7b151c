"""Which language a text is in, by py3langid (its model loaded once per process).

Datasets do not record a language (only some ClaimReview markup says one per claim), so
where the workbench needs a dataset's language it detects it from the claims' texts: the
curation step's language filter, and the hint that a Japanese template exists for
Japanese claims.
"""

from __future__ import annotations

import threading
from collections import Counter

MIN_CONFIDENCE = 0.5
"""A detection less sure than this decides nothing (short texts are hard)."""
LANGUAGE_NAMES = {"ja": "Japanese", "zh": "Chinese", "en": "English", "ko": "Korean"}
_identifier = None
_lock = threading.Lock()


MACROLANGUAGES = {"wuu": "zh", "yue": "zh", "ary": "ar", "arz": "ar", "uzs": "uz"}
"""py3langid's individual languages folded into the ISO 639-1 code users filter by: it reads
much Mandarin as Wu (wuu), so without this `--language zh` removed Chinese claims."""


def detect(text: str) -> tuple[str, float]:
    """(ISO 639-1 language code where there is one, probability) of a text; the probabilities
    of the individual languages of a macrolanguage (zh: wuu, yue) are added together."""
    global _identifier
    with _lock:
        if _identifier is None:
            from py3langid.langid import MODEL_FILE, LanguageIdentifier

            _identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
        ranked = _identifier.rank(text)
    totals: Counter[str] = Counter()
    for code, probability in ranked:
        totals[MACROLANGUAGES.get(code, code)] += float(probability)
    code, probability = totals.most_common(1)[0]
    return code, probability


def main_language(texts: list[str]) -> str | None:
    """The language most of `texts` are confidently in (more than half of those read), else None."""
    codes = Counter(code for code, probability in map(detect, texts) if probability >= MIN_CONFIDENCE)
    if not codes:
        return None
    code, count = codes.most_common(1)[0]
    return code if count * 2 > sum(codes.values()) else None


def language_name(code: str) -> str:
    """'Japanese' for ja; the code itself for a language without a name here."""
    return LANGUAGE_NAMES.get(code, code)


__all__ = ["MIN_CONFIDENCE", "detect", "language_name", "main_language"]
