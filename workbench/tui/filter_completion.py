"""Completing the filter bar's token under the cursor (Tab), and nothing else.

The rest of the filter stays exactly as typed: a run's or a dataset's name is case-
sensitive (`dataset:FactBench` and `dataset:factbench` are two datasets), so completing
`lab` must not touch what stands before it. What completes:

    lab            -> label:        field names and run keywords (typed letters kept as typed)
    has:pa         -> has:pages     the values has:, status:, flagged:, label: take
    run:smo        -> run:smollm2-jsfactcheck-claim+time     run and dataset names, quoted
    dataset:"my d  -> dataset:"my data"                      when they hold spaces
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from store.filter_terms import FilterError, parse_terms
from store.filters import KNOWN_FIELDS

FIELD_NAMES = sorted({name for name in KNOWN_FIELDS if "NAME" not in name} | {"has", "flagged", "triage"})
KEYWORDS = [
    "wrong",
    "right",
    "missing",
    "predicted",
    "reviewed",
    "status:abstain",
    "status:parse_failure",
    "status:error",
    "flagged:contaminated",
    "flagged:any",
]
FIXED_VALUES = {
    "has": ["question", "response", "article", "date", "reftime", "evidence", "pages", "qa", "passage", "image"],
    "status": ["ok", "abstain", "parse_failure", "error"],
}


@dataclass
class Names:
    """The names the database holds, for completing values."""

    runs: list[str] = field(default_factory=list)
    datasets: list[str] = field(default_factory=list)
    flag_kinds: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)

    def values_of(self, name: str) -> list[str]:
        if name == "label":
            return self.labels
        if name == "run":
            return self.runs
        if name == "dataset":
            return self.datasets
        if name == "flagged":
            return ["any", *self.flag_kinds]
        return FIXED_VALUES.get(name, [])


def labels_first(filter_text: str, gold: dict[str, list[str]], current: str | None = None) -> list[str]:
    """Every gold label, those of the dataset the filter names (its last `dataset:` term),
    else of `current` (the claim under the cursor), first and in that dataset's own order;
    then the other datasets' labels, alphabetically."""
    terms = _terms_before_trouble(filter_text)
    named = [t.value for t in terms if t.field == "dataset" and t.op == ":" and not t.negated]
    dataset = next((d for d in reversed(named) if d in gold), current if current in gold else None)
    first = list(dict.fromkeys(gold.get(dataset, []))) if dataset else []
    rest = sorted({label for labels in gold.values() for label in labels} - set(first))
    return first + rest


def _terms_before_trouble(text: str) -> list:
    """The filter's terms up to the first one that does not parse yet (`label:` being typed)."""
    while text:
        try:
            return parse_terms(text)
        except FilterError as error:
            text = text[: min(error.start, len(text) - 1)]
    return []


@dataclass(frozen=True)
class Completion:
    value: str
    """The whole filter, the token completed."""
    cursor: int
    """Where the cursor goes: right after the completed token."""


def complete(value: str, cursor: int, names: Names) -> Completion | None:
    """The filter with the token that ends at `cursor` completed, or None (nothing to
    complete, the cursor inside a word, or no candidate)."""
    start = _token_start(value, cursor)
    if start is None:
        return None
    token = value[start:cursor]
    negation = "-" if token.startswith("-") else ""
    word = token[len(negation) :]
    completed = _complete_value(word, names) if ":" in word else _complete_field(word)
    if completed is None or completed == word:
        return None
    new = value[:start] + negation + completed
    return Completion(new + value[cursor:], len(new))


def extension(value: str, names: Names) -> str | None:
    """The filter completed at its end, if that only adds to what was typed (what the bar
    shows dimmed after the cursor; right arrow or Tab takes it)."""
    found = complete(value, len(value), names)
    return found.value if found is not None and found.value.startswith(value) else None


def _token_start(value: str, cursor: int) -> int | None:
    """Where the token ending at `cursor` starts; None when the cursor is inside a word."""
    if cursor < len(value) and not value[cursor].isspace():
        return None
    start, quoted = 0, False
    for position, char in enumerate(value[:cursor]):
        if char == '"':
            quoted = not quoted
        elif char.isspace() and not quoted:
            start = position + 1
    return start if start < cursor else None


def _complete_field(word: str) -> str | None:
    if len(word) < 2 or not re.fullmatch(r"[A-Za-z_.]+", word):
        return None
    lowered = word.lower()
    for candidate in [f"{name}:" for name in FIELD_NAMES] + KEYWORDS:  # flag -> flagged:, then its kinds
        if candidate.startswith(lowered) and candidate != lowered:
            return word + candidate[len(word) :]  # the letters typed stay as typed
    return None


def _complete_value(word: str, names: Names) -> str | None:
    name, _, typed = word.partition(":")
    opened = typed.startswith('"')
    prefix = typed[1:] if opened else typed
    if '"' in prefix:
        return None  # a closed quote: the value is complete
    candidates = names.values_of(name.lower())
    # Gold labels come in meaning order, the current dataset's first (labels_first); other
    # names alphabetically.
    order = list if name.lower() == "label" else sorted
    exact = order(c for c in candidates if c.startswith(prefix))
    # A name's case counts (two datasets may differ in case only); typed in another case,
    # the name as it is stored replaces the letters typed.
    found = exact or order(c for c in candidates if c.lower().startswith(prefix.lower()))
    if not found:
        return None
    common = os.path.commonprefix(found)
    chosen = common if len(found) > 1 and len(common) > len(prefix) else found[0]
    whole = chosen in candidates
    return f"{name}:{_quoted(chosen, opened, whole)}"


def _quoted(text: str, opened: bool, whole: bool) -> str:
    """As the filter language reads a value back: quoted when it holds a space or a quote."""
    needs = opened or bool(re.search(r'[\s"\\]', text))
    if not needs:
        return text
    inner = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{inner}"' if whole else f'"{inner}'
