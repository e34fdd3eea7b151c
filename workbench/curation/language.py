"""The language step: claims in the languages asked for.

A review's markup usually says its language (the API's languageCode, schema.org's
inLanguage: the `language` attribute); when it does not, the claim text's language is
detected with py3langid (workbench.nlp.languages). A detection less sure than
MIN_CONFIDENCE (short claims such as "Covid vaccine" are hard) decides nothing: the claim
is kept and counted as unclear.
"""

from __future__ import annotations

import re

from store import CurationRow
from workbench.curation import CurationError
from workbench.nlp.languages import MIN_CONFIDENCE, detect

_CODE = re.compile(r"^[a-z]{2,3}$")


def languages(asked: list[str]) -> list[str]:
    """Language codes from --language values (repeatable, or comma separated): en, en-US -> en."""
    codes = [part.strip().lower().split("-")[0] for value in asked for part in value.split(",") if part.strip()]
    bad = [code for code in codes if not _CODE.match(code)]
    if bad:
        raise CurationError(f"--language takes ISO 639-1 codes such as en, es, fr; not {', '.join(bad)}")
    return list(dict.fromkeys(codes))


def other_languages(rows: list[CurationRow], wanted: list[str]) -> tuple[dict[int, str], int]:
    """(claim id -> why, for the claims in another language; how many stayed unclear)."""
    removed, unclear = {}, 0
    for row in rows:
        marked = row.attributes.get("language")
        if isinstance(marked, str) and marked.strip():
            code = marked.strip().lower().split("-")[0]
            if code not in wanted:
                removed[row.id] = f"language {code} (from the markup)"
            continue
        code, probability = detect(row.text)
        if probability < MIN_CONFIDENCE:
            unclear += 1
        elif code not in wanted:
            removed[row.id] = f"language {code} (detected from the claim, {probability:.2f})"
    return removed, unclear


__all__ = ["MIN_CONFIDENCE", "detect", "languages", "other_languages"]
