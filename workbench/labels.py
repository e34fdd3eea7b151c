"""Label spaces and label normalisation, shared by importers (gold) and parsing (verdicts)."""

from __future__ import annotations

import dataclasses
import re

from store import LabelSpace

JSFACTCHECK = LabelSpace(
    name="jsfactcheck", labels=["Supported", "Refuted", "NotEnoughInfo"], excluded=["Unevaluable", "Unclear"]
)
REALFACTBENCH = LabelSpace(name="realfactbench", labels=["true", "false"], abstain="unknown")
AVERITEC = LabelSpace(
    name="averitec", labels=["Supported", "Refuted", "Not Enough Evidence", "Conflicting Evidence/Cherrypicking"]
)
BUILTIN_SPACES = {space.name: space for space in (JSFACTCHECK, REALFACTBENCH, AVERITEC)}

# Spellings seen in benchmark files and model answers, keyed by their squashed form.
_SYNONYMS = {
    "jsfactcheck": {
        "Supported": ["supported", "supports", "support", "true", "entailment", "correct"],
        "Refuted": ["refuted", "refutes", "refute", "false", "contradicted", "contradiction", "incorrect"],
        "NotEnoughInfo": [
            "notenoughinfo",
            "nei",
            "notenoughinformation",
            "notenoughevidence",
            "insufficientevidence",
            "insufficientinformation",
            "insufficient",
            "neutral",
        ],
        "Unevaluable": ["unevaluable", "notevaluable"],
        "Unclear": ["unclear"],
    },
    "realfactbench": {
        "true": ["true", "t", "yes", "supported", "correct", "real", "accurate"],
        "false": ["false", "f", "no", "refuted", "fake", "incorrect", "inaccurate"],
        "unknown": [
            "unknown",
            "uncertain",
            "unverifiable",
            "cannotbedetermined",
            "notenoughinfo",
            "nei",
            "notenoughinformation",
            "notenoughevidence",
            "cannotverify",
        ],
    },
    "averitec": {
        "Supported": ["supported", "supports", "support", "true"],
        "Refuted": ["refuted", "refutes", "refute", "false"],
        "Not Enough Evidence": [
            "notenoughevidence",
            "nee",
            "notenoughinfo",
            "nei",
            "notenoughinformation",
            "insufficientevidence",
        ],
        "Conflicting Evidence/Cherrypicking": [
            "conflictingevidencecherrypicking",
            "conflictingevidence",
            "conflicting",
            "cherrypicking",
            "cherrypicked",
            "conflictingevidencecherrypicked",
        ],
    },
}


ANSWER_WORDS = frozenset({"yes", "no"})
"""Spellings a model's verdict may use (yes, it is true) that a file's gold labels do not
mean by themselves: a check-worthiness file's Yes/No are not true/false. A space is never
detected from them; `--label-space realfactbench` still reads them as true/false."""


def squash(label: str) -> str:
    """Case, spacing and punctuation removed: 'Not Enough-Info ' -> 'notenoughinfo'. Letters
    of every script are kept (正しい and كاذب are two labels, not one empty one), in their
    compatibility form (full-width Ｔｒｕｅ is true)."""
    import unicodedata

    return re.sub(r"[\W_]+", "", unicodedata.normalize("NFKC", label).casefold())


def _lookup(space: LabelSpace) -> dict[str, str]:
    key = (space.name, tuple(space.labels), tuple(space.excluded), space.abstain)
    table = _LOOKUPS.get(key)
    if table is None:
        table = _LOOKUPS[key] = _build_lookup(space)
    return table


_LOOKUPS: dict[tuple, dict[str, str]] = {}


def _build_lookup(space: LabelSpace) -> dict[str, str]:
    names = space.labels + space.excluded + ([space.abstain] if space.abstain else [])
    table = {squash(name): name for name in names}
    for canonical, spellings in _SYNONYMS.get(space.name, {}).items():
        if canonical in names:
            table.update({spelling: canonical for spelling in spellings})
    return table


def normalise(label: str, space: LabelSpace) -> str | None:
    """The canonical label in `space` (gold class, excluded or abstain), or None."""
    return _lookup(space).get(squash(label)) or japanese_label(label, space)


def normalise_gold(label: str, space: LabelSpace) -> str | None:
    """A gold label: a class or an excluded label, never the abstain label (unless the space
    also excludes it: Factcheck-Bench's gold "unknown" is left out of scores, while a model's
    "unknown" is an abstention)."""
    found = normalise(label, space)
    return None if found is None or (found == space.abstain and found not in space.excluded) else found


def with_excluded(space: LabelSpace, excluded: list[str]) -> LabelSpace:
    """The space with more gold labels kept on claims but left out of scores (a class named
    here leaves the classes; a label the space does not know joins as it is spelled)."""
    named = list(dict.fromkeys(normalise(label, space) or label for label in excluded if label.strip()))
    more = [label for label in named if label not in space.excluded]
    if not more:
        return space
    return dataclasses.replace(
        space, labels=[label for label in space.labels if label not in more], excluded=[*space.excluded, *more]
    )


def detect_space(raw_labels: set[str]) -> LabelSpace | None:
    """The built-in space whose own label names spell every label (case and spacing aside),
    else the first in which every label is a valid gold label through its documented
    synonyms (docs/formats.md; yes and no are not among them: see ANSWER_WORDS).

    Names first: TRUE / FALSE are RealFactBench's labels, not synonyms of Supported /
    Refuted, and "Not Enough Evidence" is AVeriTeC's.
    """
    squashed = {squash(label) for label in raw_labels}
    for space in BUILTIN_SPACES.values():
        if squashed <= {squash(name) for name in space.labels + space.excluded}:
            return space
    if squashed & ANSWER_WORDS:
        return None
    for space in BUILTIN_SPACES.values():
        if all(normalise_gold(label, space) for label in raw_labels):
            return space
    return None


def distinct(raw_labels) -> list[str]:
    """Labels in order of first appearance, one per spelling that squashes alike (the first
    spelling names it: Yes, then yes, gives Yes)."""
    found: dict[str, str] = {}
    for label in raw_labels:
        found.setdefault(squash(label), label)
    return list(found.values())


def synonyms(space_name: str) -> dict[str, list[str]]:
    """Canonical label -> the squashed spellings read as it in a built-in space (for the docs)."""
    return {label: list(spellings) for label, spellings in _SYNONYMS.get(space_name, {}).items()}


def space_from_header(value: object) -> LabelSpace:
    """A label space from a file header: a built-in name or {labels, abstain, excluded}."""
    if isinstance(value, str):
        if value not in BUILTIN_SPACES:
            raise ValueError(f"unknown label space {value!r}; built-in: {', '.join(BUILTIN_SPACES)}")
        return BUILTIN_SPACES[value]
    if isinstance(value, dict):
        return LabelSpace(
            name=str(value.get("name", "custom")),
            labels=list(value["labels"]),
            abstain=value.get("abstain"),
            excluded=list(value.get("excluded", [])),
        )
    raise ValueError("label_space must be a built-in name or an object with 'labels'")


# Japanese spellings of the built-in spaces' labels (the jsfactcheck-ja template asks for
# 支持 / 反駁 / 情報不足; the others are words models and annotators write for the same verdicts).
# squash() keeps only ASCII, so these are looked up by their own key (japanese_key).
_JAPANESE = {
    "Supported": ["支持", "支持される", "正しい", "正確", "真", "事実"],
    "Refuted": ["反駁", "反証", "反証される", "誤り", "誤っている", "不正確", "偽", "虚偽"],
    "NotEnoughInfo": ["情報不足", "判断不能", "判定不能", "検証不能", "証拠不十分", "根拠不十分", "不明"],
}
_JAPANESE_SPACES = {
    "jsfactcheck": _JAPANESE,
    "averitec": {
        "Supported": _JAPANESE["Supported"],
        "Refuted": _JAPANESE["Refuted"],
        "Not Enough Evidence": _JAPANESE["NotEnoughInfo"],
        "Conflicting Evidence/Cherrypicking": ["証拠が矛盾", "矛盾する証拠", "チェリーピッキング"],
    },
    "realfactbench": {
        "true": ["真", "正しい", "事実", "支持"],
        "false": ["偽", "誤り", "虚偽", "反駁"],
        "unknown": ["不明", "情報不足", "判断不能", "判定不能", "検証不能"],
    },
}


def japanese_key(label: str) -> str:
    """A Japanese label with width forms folded (NFKC) and spaces, brackets and punctuation
    removed: '「支持」' and ' 支持。' -> '支持'."""
    import unicodedata

    return re.sub(r"[\W_]+", "", unicodedata.normalize("NFKC", label))


def japanese_spellings(space: LabelSpace) -> dict[str, str]:
    """Japanese spelling -> canonical label, for the space's labels (empty for other spaces)."""
    names = set(space.labels + space.excluded + ([space.abstain] if space.abstain else []))
    return {
        spelling: canonical
        for canonical, spellings in _JAPANESE_SPACES.get(space.name, {}).items()
        if canonical in names
        for spelling in spellings
    }


def japanese_label(label: str, space: LabelSpace) -> str | None:
    """The canonical label a Japanese spelling stands for in `space`, or None."""
    if label.isascii():
        return None
    return japanese_spellings(space).get(japanese_key(label))
