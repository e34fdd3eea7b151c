"""Errors that say the fix: what the file's fields hold (kinds and counts, read again when
an import fails) and the one flag to try when the mapping does not fit them.

    census = census_of(read_records(source, options))
    census.claim_advice()   "the text fields are title (150 values), news_url (150): try --map claim=title"
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from workbench.importers.profiles import FALLBACK
from workbench.importers.reading import BadInput

_KINDS = ((bool, "true/false"), (int, "number"), (float, "number"), (str, "text"), (list, "list"), (dict, "object"))
MEETS = "and here it meets"
"""How a path error says it met a value of another kind (paths.PathError)."""


def census_of(records: Iterator, limit: int = 1_000_000) -> FieldCensus:
    """The fields of the records (Located) read once more for an error's figures (an import
    pays nothing for them until it fails); a file that breaks further on gives what came before."""
    census = FieldCensus()
    try:
        for located in itertools.islice(records, limit):
            census.count(located.value)
    except BadInput:
        pass
    return census


def kind_of(value: Any) -> str:
    for type_, name in _KINDS:
        if isinstance(value, type_):
            return name
    return type(value).__name__


@dataclass
class FieldCensus:
    """Per top-level field: how many records hold a value of each kind, and how wordy its text is."""

    kinds: dict[str, Counter] = field(default_factory=dict)
    spaces: Counter = field(default_factory=Counter)
    seen: dict[str, None] = field(default_factory=dict)
    """Every field met, in order, empty or not (a column of empty cells is a field too)."""

    def count(self, record: Any) -> None:
        if not isinstance(record, dict):
            return
        for key, value in record.items():
            self.seen.setdefault(key)
            if value is None or value == "" or (isinstance(value, float) and math.isnan(value)):
                continue
            kind = kind_of(value)
            self.kinds.setdefault(key, Counter())[kind] += 1
            if kind == "text":
                self.spaces[key] += value.count(" ")

    def listing(self, limit: int = 12) -> str:
        """ "title (text, 150), tags (list 3, text 2)", the most common fields first."""
        ordered = sorted(self.kinds, key=lambda key: -sum(self.kinds[key].values()))
        shown = [
            f"{key} ({', '.join(f'{kind} {count}' if len(self.kinds[key]) > 1 else f'{kind}, {count}' for kind, count in self.kinds[key].most_common())})"
            for key in ordered[:limit]
        ]
        more = f", ... ({len(ordered)} in all)" if len(ordered) > limit else ""
        return ", ".join(shown) + more

    def text_fields(self) -> list[tuple[str, int]]:
        """Fields holding text, the wordiest first (a claim is a sentence; ids and links are not)."""
        found = [(key, kinds["text"]) for key, kinds in self.kinds.items() if kinds.get("text")]
        return sorted(found, key=lambda item: -self.spaces[item[0]] / item[1])

    def claim_advice(self) -> str:
        """Which text fields there are and the --map to try for the claim."""
        texts = self.text_fields()
        if not texts:
            return f"no field holds text; the file's fields are {self.listing()}"
        named = ", ".join(
            f"{key} ({count} value{'s' if count != 1 else ''})" if index == 0 else f"{key} ({count})"
            for index, (key, count) in enumerate(texts[:8])
        )
        return f"the text fields are {named}{self._empty_fields()}: try --map claim={_quoted(texts[0][0])}"

    def _empty_fields(self) -> str:
        """'; news_url holds only empty values' for fields that never hold one (nothing unsaid)."""
        empty = [key for key in self.seen if key not in self.kinds]
        if not empty:
            return ""
        return f"; {', '.join(empty)} {'holds' if len(empty) == 1 else 'hold'} only empty values"

    def type_advice(self, our_field: str | None, path: str) -> str:
        """For a path that met another kind of value: what its field holds, and a --map without the []."""
        root = path.split("[", 1)[0].split(".", 1)[0].lstrip("$.")
        held = self.kinds.get(root)
        said = (
            f"the file's field {root} holds {', '.join(f'{kind} ({count} values)' for kind, count in held.most_common())}"
            if held
            else f"the file's fields are {self.listing()}"
        )
        if our_field and held and "list" not in held:
            return f"{said}: try --map {our_field}={_quoted(root)}"
        return said


# -- messages of an import (plan: pipeline.ImportPlan) ------------------------------------------


def named_profile(plan) -> bool:
    """The import reads with a profile by name (not the fallback, not a --map of one)."""
    return plan.mapping.name not in (FALLBACK, "custom") and not plan.mapping.name.endswith("+map")


def with_advice(plan, error: BadInput, census: FieldCensus) -> BadInput:
    """A record's error with the fix said: the profile's shapes, or the --map to try."""
    if named_profile(plan):
        return refusal(plan, error, census)
    if MEETS not in error.message:
        return error
    path = error.message.split("'")[1] if error.message.count("'") >= 2 else ""
    ours = next(
        (pair.partition("=")[0].strip() for pair in plan.request.maps if pair.partition("=")[2].strip() == path), None
    )
    error.message += f"; {census.type_advice(ours, path)}"
    return error


def refusal(plan, error: BadInput, census: FieldCensus) -> BadInput:
    """One line: the profile and the shapes it reads, what this file holds, and what failed."""
    mapping = plan.mapping
    fields = f" (records with {', '.join(mapping.detect[0])})" if mapping.detect else ""
    error.message = (
        f"profile {mapping.name!r} reads {mapping.description or 'its own shape'}{fields}; this"
        f" {plan.source.format.upper()} file's records have {census.listing()}: {error.message}"
    )
    return error


def header_hint(plan) -> str:
    """When a sniffed header may have been a data row: the flags that say otherwise."""
    shape = plan.source.shape
    if shape is None or not shape.header or plan.request.header is not None or plan.source.format not in ("csv", "tsv"):
        return ""
    return (
        f" (the first row was read as column names: {', '.join(shape.columns or [])}; if it is data, name the"
        " columns with --columns a,b,c)"
    )


def _quoted(name: str) -> str:
    return name if name.replace("_", "").replace("-", "").isalnum() else f"'{name}'"
