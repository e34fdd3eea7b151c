"""The fields scores can be broken down by, and how a claim's value for each is read.

    importance  task  domain  label        claim columns
    claim-type                             attr.claim_types (a list: one item, many slices)
    attr.NAME                              any free-form attribute (a list works the same way)
    flag:KIND                              yes / no: the claim carries a flag of that kind
    flag:KIND@MODEL                        ... found for that model or naming none (@run: the run's)
    cutoff                                 before / after / unknown: claim date vs a model's cutoff
    modality                               with image / text only: whether the claim has an image

The store reads each field's raw value per claim (its `source`); `values` turns it into
slice values; the batch loader and the live poller share both halves.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from functools import lru_cache

from store import FlagSpec, FlagSpecError
from store.scoring import FieldSource
from workbench.choices import BREAKDOWN_FIELDS
from workbench.errors import WorkbenchError
from workbench.metrics import NO_VALUE, cutoff_bucket

FLAG_YES, FLAG_NO = "yes", "no"
WITH_IMAGE, TEXT_ONLY = "with image", "text only"
_COLUMNS = ("importance", "task", "domain", "label")
_ALIASES = {
    "claim-type": "attr.claim_types",
    "claim_type": "attr.claim_types",
    "claim-types": "attr.claim_types",
    "claim_types": "attr.claim_types",
    "flagged": "flag:contaminated",
    "contaminated": "flag:contaminated",
    "gold": "label",
}
_VOCABULARIES = {"importance": ("Main", "Sub", "Irrelevant")}  # the schema's CHECK allows no other
_NAME = re.compile(r"^[A-Za-z0-9_\-. /]+$")
KNOWN_FIELDS = BREAKDOWN_FIELDS


class FieldError(WorkbenchError, ValueError):
    """A breakdown field or cutoff date the user typed cannot be used."""


@dataclass(frozen=True)
class SliceField:
    """A field to break scores down by; `name` is how it is shown and typed."""

    name: str
    kind: str
    """column, attribute, flag, cutoff or modality."""
    key: str
    """The column name, attribute name or flag kind."""
    vocabulary: tuple[str, ...] = ()
    """Every value the column can hold, when the schema fixes them (importance)."""

    @property
    def multi_valued(self) -> bool:
        """An item may fall in several slices (attributes holding lists)."""
        return self.kind == "attribute"

    @property
    def source(self) -> FieldSource:
        """Where the store reads this field's raw value from."""
        return FieldSource(self.kind, self.key)

    def values(self, raw: object, cutoff: str | None = None) -> str | tuple[str, ...]:
        """The slice value(s) of one claim from its raw value (a tuple for lists)."""
        if self.kind == "column":
            return _text_value(raw)
        if self.kind == "cutoff":
            return cutoff_bucket(raw, cutoff) if cutoff else NO_VALUE
        if self.kind == "flag":
            return FLAG_YES if raw else FLAG_NO
        if self.kind == "modality":
            return WITH_IMAGE if str(raw) == "1" else TEXT_ONLY
        return attribute_values(raw)


def parse_field(text: str) -> SliceField:
    """A breakdown field from what the user typed; FieldError names the problem."""
    raw = (text or "").strip()
    name = _ALIASES.get(raw.lower(), raw)
    lowered = name.lower()
    if lowered in _COLUMNS:
        return SliceField(lowered, "column", lowered, _VOCABULARIES.get(lowered, ()))
    if lowered == "cutoff":
        return SliceField("cutoff", "cutoff", "claim_date")
    if lowered == "modality":
        return SliceField("modality", "modality", "images")
    if lowered.startswith("attr.") and _NAME.match(name[5:] or "!"):
        key = name[5:]
        shown = "claim-type" if key == "claim_types" else f"attr.{key}"
        return SliceField(shown, "attribute", key)
    if lowered.startswith("flag:"):
        try:
            spec = FlagSpec.parse(name[5:])
        except FlagSpecError as error:
            raise FieldError(str(error)) from None
        return SliceField(f"flag:{spec}", "flag", str(spec))
    close = difflib.get_close_matches(raw.lower(), [*_COLUMNS, "cutoff", "claim-type", "modality"], n=1)
    hint = f"; did you mean {close[0]}?" if close else ""
    raise FieldError(f"unknown field {raw!r}{hint} (known: {', '.join(KNOWN_FIELDS)})")


CLUSTER_COLUMNS = ("question", "response", "source", "article_url", "task", "domain")
"""Claim columns whose claims can be resampled together (--cluster); attr.NAME too."""


def parse_cluster(text: str) -> SliceField:
    """A --cluster field: a claim column claims share (question, response, ...) or attr.NAME."""
    raw = (text or "").strip()
    lowered = raw.lower()
    if lowered in CLUSTER_COLUMNS:
        return SliceField(lowered, "column", lowered)
    if lowered.startswith("attr.") and _NAME.match(raw[5:] or "!"):
        return SliceField(f"attr.{raw[5:]}", "attribute", raw[5:])
    close = difflib.get_close_matches(lowered, CLUSTER_COLUMNS, n=1)
    hint = f"; did you mean {close[0]}?" if close else ""
    raise FieldError(f"unknown cluster field {raw!r}{hint} (known: {', '.join(CLUSTER_COLUMNS)}, attr.NAME)")


def check_cutoff(text: str) -> str:
    """A cutoff as typed: a date (YYYY-MM-DD), or a model's name, which stands for the day
    after its knowledge cutoff (the table `workbench cutoffs` lists); FieldError otherwise."""
    from workbench.cutoffs import CutoffError, split_date

    try:
        return split_date(text)
    except CutoffError as error:
        raise FieldError(str(error)) from None


def _text_value(raw: object) -> str:
    if raw is None or raw == "":
        return NO_VALUE
    return str(raw)


@lru_cache(maxsize=4096)
def attribute_values(raw: object) -> str | tuple[str, ...]:
    """Slice values of a json_array(attribute) text: a scalar, or each item of a list."""
    if raw is None:
        return NO_VALUE
    try:
        value = json.loads(raw)[0]
    except (TypeError, ValueError, IndexError):
        return _text_value(raw)
    if isinstance(value, list):
        return tuple(dict.fromkeys(_json_text(v) for v in value if v is not None)) or NO_VALUE
    return NO_VALUE if value is None else _json_text(value)


def _json_text(value: object) -> str:
    """A JSON value as a slice value: strings as they are, others in JSON spelling."""
    # Compact, as SQLite spells JSON: the filter attr.NAME:VALUE compares with that spelling;
    # a number by its value (3.0 and 3 are one slice, as the filter finds them together).
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        value = int(value)
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))
