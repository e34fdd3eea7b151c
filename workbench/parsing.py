"""Reading a verdict out of a model's answer, whatever shape it came in.

JSON first (the whole text, a ``` fence, or an object with text around it), then
tolerant reading ("Verdict: Refuted", a half-written JSON object, a leading label word).
Japanese answers are read the same way (判定：反駁, {"判定": "支持"}, an answer opening with
情報不足。): a Japanese label counts only when what follows it ends the word (punctuation, a
line end, a copula such as です), so 「支持されない」 in an explanation is never the verdict 支持.
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
from workbench.labels import japanese_spellings, normalise

VERDICT_KEYS = (
    "verdict",
    "label",
    "answer",
    "prediction",
    "classification",
    "rating",
    "judgement",
    "judgment",
    "decision",
    "conclusion",
    "判定",
    "評価",
    "結論",
    "判断",
    "回答",
)
EXPLANATION_KEYS = ("explanation", "reason", "reasoning", "rationale", "justification", "why", "説明", "理由", "根拠")
MAX_JSON_STARTS = 50  # object starts tried per answer: keeps a brace-heavy answer cheap
MAX_LABEL_WORDS = 6

_FENCE = re.compile(r"```[a-zA-Z]*\s*\n?(.*?)```", re.S)
_LABELLED = re.compile(
    r"(?im)^[\s>*#_\-]*(?:final\s+|overall\s+)?(?:verdict|label|answer|classification|rating|conclusion|decision)"
    r"[\s*_]*[:=\-]\s*[*_\"'`]*([^\n]*)"
)
_HEDGE = re.compile(r"\s*(?:or\b|/|\|)\s*", re.I)
_HALF_JSON = re.compile(r"\"(?:verdict|label|answer|prediction|判定)\"\s*:\s*\"([^\"\n]*)")
_HALF_EXPLANATION = re.compile(
    r'"(?:explanation|reason|reasoning|rationale|justification|説明|理由)"\s*:\s*"((?:[^"\\]|\\.)*)'
)
_EXPLAINED = re.compile(
    r"(?ims)^[\s>*#_\-【\[]*(?:explanation|reason|reasoning|rationale|justification|説明|理由|根拠)"
    r"(?:[\s*_]*[:=\-：]|[\s*_]*[】\]][:：]?)\s*(.+)"
)
# 判定：反駁 / 【判定】反駁 / 最終判定は「支持」です: a Japanese verdict word, then the verdict.
_JA_LABELLED = re.compile(r"(?:最終)?(?:判定|結論|評価|判断)(?:結果)?[\s*_]*(?:[:：=]|は|】|\]|］)[\s*_]*")
_JA_OPENING = "「『【［[（(\"'`*_ \u3000"
_JA_STRIP = _JA_OPENING + "」』】］])）。、"
# What may follow a Japanese label and still leave it the verdict: a copula or "(is) judged".
_JA_AFTER = re.compile(
    r"[」』】］\])）\"'*_]*(?:です|である|だ|と(?:判定|判断|評価|結論)(?:します|する|されます|した)?|となります)?"
    r"(?![^\W\d_])"
)
_JA_TAIL = re.compile(r"[」』】］\])）\"'*_]*(?:です|である|だ|と(?:判定|判断|評価|結論)\w*|となります)?$")
_JA_HEDGE = re.compile(r"\s*(?:[/／|｜・]|または|もしくは|あるいは|か、?)\s*")


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


def parse_answer(
    text: str, space: LabelSpace, verdict_keys: tuple[str, ...] = (), allowed: list[str] | None = None
) -> ParsedAnswer:
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
    if raw is None:
        raw, around = _japanese_labelled(text, space, allowed)
        explanation = explanation or around
    if raw is not None:
        return _judged(raw, match_label(raw, space, allowed)[0], explanation, space, None)
    # Last resort: the answer opens with a label ("Refuted. The study found ...").
    opening = re.sub(r"^[\s*_#>\"'`\[(]+", "", text)
    verdict, used = match_label(opening, space, allowed)
    if verdict is None:
        return ParsedAnswer("parse_failure", None, None, explanation, None)
    rest = opening[used:].lstrip(" \t*_.,:;!-\"'`])" + _JA_STRIP).strip()
    return _judged(_bare(opening[:used]), verdict, explanation or rest or None, space, None)


def _bare(raw: str) -> str:
    """The label as written, without the brackets and copula around a Japanese one (「支持」です -> 支持)."""
    raw = raw.strip().strip("*_" + _JA_STRIP)
    return raw if raw.isascii() else _JA_TAIL.sub("", raw).strip(_JA_STRIP)


def _judged(raw: str | None, verdict: str | None, explanation: str | None, space: LabelSpace, obj: Any) -> ParsedAnswer:
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
    return _japanese_label(raw, space, allowed)


def _japanese_label(raw: str, space: LabelSpace, allowed: list[str]) -> tuple[str | None, int]:
    """A Japanese label `raw` opens with, ended by punctuation, a line end or a copula
    (支持。 支持です 「反駁」), and how many characters it took; (None, 0) otherwise."""
    spellings = japanese_spellings(space)
    if not spellings or raw.isascii():
        return None, 0
    opening = len(raw) - len(raw.lstrip(_JA_OPENING))
    for spelling in sorted(spellings, key=len, reverse=True):
        if not raw.startswith(spelling, opening):
            continue
        after = _JA_AFTER.match(raw, opening + len(spelling))
        if after is None:
            return None, 0  # 支持されない: the word goes on, so it is not the label
        found = spellings[spelling]
        if found not in allowed or _japanese_hedge(raw[opening + len(spelling) :], found, space, allowed):
            return None, 0
        return found, after.end()
    return None, 0


def _japanese_hedge(rest: str, found: str, space: LabelSpace, allowed: list[str]) -> bool:
    rest = rest.lstrip("」』】］])）")
    hedge = _JA_HEDGE.match(rest)
    if hedge is None:
        return False
    other, _ = _japanese_label(rest[hedge.end() :], space, allowed)
    return other is not None and other != found


def _hedged(rest: str, found: str, space: LabelSpace, allowed: list[str]) -> bool:
    """True when the label is followed by "or" (or "/") and another label: an answer
    that will not choose ("Refuted or Supported") is unreadable, not the first one named."""
    hedge = _HEDGE.match(rest)
    if hedge is None:
        return False
    other, _ = match_label(rest[hedge.end() :], space, allowed)
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


def _japanese_labelled(text: str, space: LabelSpace, allowed: list[str]) -> tuple[str | None, str | None]:
    """The verdict after a Japanese verdict word (判定：反駁), the first that reads as a label,
    and the text around it (the explanation when none is labelled); (None, None) if none reads
    (「専門家の判断は分かれている」 is no verdict: the answer's opening may be)."""
    if text.isascii() or not japanese_spellings(space):
        return None, None
    for match in _JA_LABELLED.finditer(text):
        line, _, after = text[match.end() :].partition("\n")
        verdict, used = _japanese_label(line.strip(), space, allowed)
        if verdict is not None:
            around = (text[: match.start()].strip() + "\n" + after.strip()).strip()
            return _bare(line.strip()[:used]), around or None
    return None, None


def _explanation(text: str) -> str | None:
    half = _HALF_EXPLANATION.search(text)
    if half:
        try:
            return json.loads(f'"{half.group(1)}"').strip() or None
        except ValueError:
            return half.group(1).strip() or None
    match = _EXPLAINED.search(text)
    return match.group(1).strip() or None if match else None
