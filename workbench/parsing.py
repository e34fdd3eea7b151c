"""Reading a verdict out of a model's answer, whatever shape it came in.

JSON first (the whole text, a ``` fence, or an object with text around it), then
tolerant reading ("Verdict: Refuted", a half-written JSON object, a leading label word).
The verdict is normalised into the dataset's label space. Three outcomes, never merged:
ok (a verdict in the space), abstain (the space's abstain label), parse_failure (the raw
text is kept for a person to read). API errors are the run engine's fourth state.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from store import LabelSpace
from workbench.labels import normalise

VERDICT_KEYS = ("verdict", "label", "answer", "prediction", "classification", "rating", "judgement",
                "judgment", "decision", "conclusion")
EXPLANATION_KEYS = ("explanation", "reason", "reasoning", "rationale", "justification", "why")
MAX_JSON_STARTS = 50  # object starts tried per answer: keeps a brace-heavy answer cheap
MAX_LABEL_WORDS = 6

_FENCE = re.compile(r"```[a-zA-Z]*\s*\n?(.*?)```", re.S)
_LABELLED = re.compile(
    r"(?im)^[\s>*#_\-]*(?:final\s+|overall\s+)?(?:verdict|label|answer|classification|rating|conclusion|decision)"
    r"[\s*_]*[:=\-]\s*[*_\"'`]*([^\n]*)")
_HEDGE = re.compile(r"\s*(?:or\b|/|\|)\s*", re.I)
_HALF_JSON = re.compile(r"\"(?:verdict|label|answer|prediction)\"\s*:\s*\"([^\"\n]*)")
_HALF_EXPLANATION = re.compile(
    r'"(?:explanation|reason|reasoning|rationale|justification)"\s*:\s*"((?:[^"\\]|\\.)*)')
_EXPLAINED = re.compile(r"(?ims)^[\s>*#_\-]*(?:explanation|reason|reasoning|rationale|justification)"
                        r"[\s*_]*[:=\-]\s*(.+)")


@dataclass(frozen=True)
class ParsedAnswer:
    status: str
    """ok, abstain or parse_failure."""
    verdict: str | None
    """The canonical label (None unless ok or abstain)."""
    raw_verdict: str | None
    """The verdict as the model wrote it, when one could be found."""
    explanation: str | None
    parsed: Any = None
    """The JSON object the answer held, if any."""


def parse_answer(text: str, space: LabelSpace, verdict_keys: tuple[str, ...] = (),
                 allowed: list[str] | None = None) -> ParsedAnswer:
    """The verdict and explanation in `text`; never raises.

    `verdict_keys` adds JSON keys to look for (a template's own field names); `allowed`
    limits verdicts to these labels (default: the space's classes and its abstain label).
    """
    text = text if isinstance(text, str) else ""
    keys = tuple(dict.fromkeys((*verdict_keys, *VERDICT_KEYS)))
    allowed = allowed if allowed is not None else space.labels + ([space.abstain] if space.abstain else [])
    obj = find_json_object(text, keys)
    if obj is not None:
        raw = _first_text(obj, keys)
        explanation = _first_text(obj, EXPLANATION_KEYS)
        return _judged(raw, match_label(raw, space, allowed)[0], explanation, space, obj)
    raw = _labelled_verdict(text)
    explanation = _explanation(text)
    if raw is not None:
        return _judged(raw, match_label(raw, space, allowed)[0], explanation, space, None)
    # Last resort: the answer opens with a label ("Refuted. The study found ...").
    opening = re.sub(r"^[\s*_#>\"'`\[(]+", "", text)
    verdict, used = match_label(opening, space, allowed)
    if verdict is None:
        return ParsedAnswer("parse_failure", None, None, explanation, None)
    rest = opening[used:].lstrip(" \t*_.,:;!-\"'`])").strip()
    return _judged(opening[:used].strip().strip("*_"), verdict, explanation or rest or None, space, None)


def _judged(raw: str | None, verdict: str | None, explanation: str | None, space: LabelSpace,
            obj: Any) -> ParsedAnswer:
    if verdict is None:
        return ParsedAnswer("parse_failure", None, raw, explanation, obj)
    status = "abstain" if verdict == space.abstain else "ok"
    return ParsedAnswer(status, verdict, raw, explanation, obj)


def match_label(raw: str | None, space: LabelSpace, allowed: list[str]) -> tuple[str | None, int]:
    """The allowed label `raw` opens with (all of it, else its longest leading words), and
    how many characters of `raw` that label took; (None, 0) if none."""
    if not raw:
        return None, 0
    spans = [m.span() for m in re.finditer(r"\S+", raw[:400])][:MAX_LABEL_WORDS]
    for count in range(len(spans), 0, -1):
        end = spans[count - 1][1]
        found = normalise(raw[:end].replace("**", " "), space)
        if found is not None:
            # Punctuation the label swallowed ("Supported /") may start a hedge.
            label_end = len(re.sub(r"\W+$", "", raw[:end]))
            if found not in allowed or _hedged(raw[label_end:], found, space, allowed):
                return None, 0
            return found, end
    return None, 0


def _hedged(rest: str, found: str, space: LabelSpace, allowed: list[str]) -> bool:
    """True when the label is followed by "or" (or "/") and another label: an answer
    that will not choose ("Refuted or Supported") is unreadable, not the first one named."""
    hedge = _HEDGE.match(rest)
    if hedge is None:
        return False
    other, _ = match_label(rest[hedge.end():], space, allowed)
    return other is not None and other != found


def find_json_object(text: str, keys: tuple[str, ...]) -> dict | None:
    """The first JSON object in `text` that holds one of `keys` (case-insensitive)."""
    candidates = [text] + [m.group(1) for m in _FENCE.finditer(text)]
    for candidate in candidates:
        for obj in _objects_in(candidate):
            if _first_text(obj, keys) is not None:
                return obj
    return None


def json_objects(text: str):
    """Every JSON object in `text` and in its ``` fences, in order (a bounded number of tries)."""
    for candidate in [text] + [m.group(1) for m in _FENCE.finditer(text)]:
        yield from _objects_in(candidate)


def _objects_in(text: str):
    decoder = json.JSONDecoder()
    start, tried = text.find("{"), 0
    while start != -1 and tried < MAX_JSON_STARTS:
        tried += 1
        try:
            value, _ = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            value = None
        if isinstance(value, dict):
            yield value
        start = text.find("{", start + 1)


def _first_text(obj: dict, keys: tuple[str, ...]) -> str | None:
    lowered = {str(k).strip().lower(): v for k, v in obj.items()}
    for key in keys:
        value = lowered.get(key)
        if isinstance(value, (str, bool)) and str(value).strip():
            return str(value).strip()
    return None


def _labelled_verdict(text: str) -> str | None:
    match = _HALF_JSON.search(text) or _LABELLED.search(text)
    if match is None:
        return None
    value = match.group(1).strip().strip("*_\"'`[]().").strip()
    return value or None


def _explanation(text: str) -> str | None:
    half = _HALF_EXPLANATION.search(text)
    if half:
        try:
            return json.loads(f'"{half.group(1)}"').strip() or None
        except ValueError:
            return half.group(1).strip() or None
    match = _EXPLAINED.search(text)
    return match.group(1).strip() or None if match else None
