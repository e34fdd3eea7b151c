"""Turning what a file holds into claim fields: text, dates, numbers, choices, JSON.

Each conversion either returns the value, or raises BadInput (a wrong type: the file or
the mapping is broken), or records a warning and returns None (a content oddity: an
unreadable date, an importance outside Main/Sub/Irrelevant).
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import math
from decimal import Decimal
from typing import Any

from workbench.importers.paths import MISSING
from workbench.importers.reading import LONG_FIELD_CHARS, SHORT_FIELD_CHARS, BadInput
from workbench.importers.warnings import ImportWarning

ISO_FORMATS = (
    "%Y-%m-%d",
    "%Y/%m/%d",
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%d %H:%M:%S",
    "%d %B %Y",
    "%B %d, %Y",
    "%b %d, %Y",
    "%d %b %Y",
    "%Y%m%d",
)
"""Date spellings read without being told (none of them is ambiguous)."""
TRUE_WORDS, FALSE_WORDS = {"true", "yes", "1", "y", "t"}, {"false", "no", "0", "n", "f"}


class Where:
    """Where a value comes from, to say so in errors and warnings: the file, the record's
    line (in a pretty-printed JSON document, the field's own line) and position."""

    def __init__(self, path: str, line: int | None, record: int | None, warnings, located=None):
        self.path, self.line, self.record, self.warnings = path, line, record, warnings
        self.located = located

    def line_of(self, field: str | None) -> int | None:
        return self.located.field_line(field) if self.located is not None else self.line

    def error(self, field: str, message: str) -> BadInput:
        return BadInput(self.path, message, line=self.line_of(field), field=field, record=self.record)

    def warn(self, field: str, message: str, kind: str) -> None:
        self.warnings.add(ImportWarning(self.path, message, self.line_of(field), self.record, field, kind))


def absent(value: Any) -> bool:
    return (
        value is MISSING
        or value is None
        or (isinstance(value, str) and not value.strip())
        or (isinstance(value, float) and math.isnan(value))
    )


def non_finite(value: Any) -> bool:
    """NaN or an infinity: numbers JSON has no spelling for (pandas writes NaN for a gap)."""
    return isinstance(value, float) and not math.isfinite(value)


def json_spelling(number: float) -> str:
    """NaN, Infinity, -Infinity: how a JSON file (or pandas) writes them."""
    return "NaN" if math.isnan(number) else ("Infinity" if number > 0 else "-Infinity")


def no_value(value: Any, where: Where, field: str) -> bool:
    """True when there is nothing to read; a NaN or an infinity is nothing too, said once."""
    if non_finite(value):
        where.warn(
            field, f"{json_spelling(value)} where a value is expected (read as no value)", "NaN or Infinity for a value"
        )
        return True
    return absent(value)


def text(value: Any, where: Where, field: str, long: bool = False, numbers: bool = False) -> str | None:
    """A text field: strings as they are; a number is read as its text with a warning (unless
    `numbers`: ids and labels are often numbers). A long text (a page, a response) may be a
    list of texts (sentences), one per line: an empty sentence is an empty line, so the
    sentence at position n is always line n."""
    if no_value(value, where, field):
        return None
    if isinstance(value, list) and long:
        value = _lines(value, where, field)
        if not value.strip():
            return None
    elif isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise where.error(field, f"must be text, not {type(value).__name__}")
    elif not isinstance(value, str):
        if not numbers:
            where.warn(
                field,
                f"the number {value!r} where text is expected (kept as the text {str(value)!r})",
                "number where text is expected",
            )
        value = str(value)
    limit = LONG_FIELD_CHARS if long else SHORT_FIELD_CHARS
    if len(value) > limit:
        raise where.error(field, f"is {len(value):,} characters long; the limit is {limit:,}")
    return value


def _lines(items: list, where: Where, field: str) -> str:
    """A list of texts joined one per line, keeping every position."""
    if not all(item is None or (isinstance(item, (str, int, float)) and not isinstance(item, bool)) for item in items):
        raise where.error(
            field,
            "must be text or a list of texts, not a list of "
            + ", ".join(sorted({type(item).__name__ for item in items})),
        )
    lines = []
    for position, item in enumerate(items):
        if item is None or non_finite(item):
            shown = "null" if item is None else json_spelling(item)
            where.warn(
                f"{field}[{position}]",
                f"{shown} in a list of texts (kept as an empty line, so later positions stay where they are)",
                "null or NaN in a list of texts",
            )
            item = ""
        elif not isinstance(item, str):
            where.warn(
                f"{field}[{position}]",
                f"the number {item!r} in a list of texts (kept as its text)",
                "number where text is expected",
            )
        lines.append(str(item))
    return "\n".join(lines)


def sentence_starts(items: Any) -> list[int] | None:
    """Where each text of a list starts once joined one per line, when a text holds a line
    break of its own (then lines and positions differ, and these offsets say where each is)."""
    if not isinstance(items, list) or not any(isinstance(item, str) and "\n" in item for item in items):
        return None
    starts, offset = [], 0
    for item in items:
        starts.append(offset)
        offset += len("" if item is None or non_finite(item) else str(item)) + 1
    return starts


def identifier(value: Any, where: Where, field: str) -> str | None:
    """An id: text or a whole number (1.0 reads as 1)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, (list, dict)):
        raise where.error(field, f"an id must be text or a number, not {type(value).__name__}")
    return text(value, where, field, numbers=True)


def label(value: Any, where: Where, field: str) -> str | None:
    """A gold label as text: true/false for booleans, numbers as text."""
    if no_value(value, where, field):
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, (list, dict)):
        raise where.error(field, f"a label must be one value, not a {type(value).__name__}")
    return text(value, where, field, numbers=True)


def date(value: Any, where: Where, field: str, formats: tuple[str, ...] = ()) -> str | None:
    """An ISO date (or date-time); the profile's formats and the unambiguous ones are read,
    anything else is a warning and no date."""
    if no_value(value, where, field):
        return None
    if isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    raw = str(value).strip()
    for fmt in formats:
        try:
            return dt.datetime.strptime(raw, fmt).date().isoformat()
        except ValueError:
            continue
    try:
        if len(raw) == 10:
            return dt.date.fromisoformat(raw).isoformat()
        return dt.datetime.fromisoformat(raw.replace("Z", "+00:00")).isoformat()
    except ValueError:
        pass
    for fmt in ISO_FORMATS:
        try:
            return dt.datetime.strptime(raw, fmt).date().isoformat()
        except ValueError:
            continue
    shown = raw if len(raw) <= 40 else raw[:39] + "…"
    where.warn(field, f"{shown!r} is not a date this import can read (kept without a date)", "unreadable date")
    return None


def integer(value: Any, where: Where, field: str) -> int | None:
    if no_value(value, where, field):
        return None
    if isinstance(value, bool):
        value = None
    elif isinstance(value, float) and value.is_integer():
        return int(value)
    elif isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    if isinstance(value, int):
        return value
    where.warn(field, f"{value!r} is not a whole number (left out)", "not a whole number")
    return None


def boolean(value: Any, where: Where, field: str) -> bool:
    if no_value(value, where, field):
        return False
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower()
    if word in TRUE_WORDS | FALSE_WORDS:
        return word in TRUE_WORDS
    where.warn(field, f"{value!r} is not true or false (read as false)", "not true or false")
    return False


def choice(value: Any, where: Where, field: str, options: list[str]) -> str | None:
    found = text(value, where, field)
    if found is None:
        return None
    for option in options:
        if option.lower() == found.strip().lower():
            return option
    where.warn(field, f"{found!r} is not one of {', '.join(options)} (left out)", f"{field} not one of its values")
    return None


def json_safe(value: Any, gaps: list | None = None, at: str = "") -> Any:
    """A value as JSON can hold it (dates as ISO text, bytes as base64, NaN as null); `gaps`
    collects where a NaN or an infinity was made null."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        if gaps is not None:
            gaps.append(at)
        return None
    if isinstance(value, dict):
        return {str(key): json_safe(item, gaps, f"{at}.{key}" if at else str(key)) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(item, gaps, f"{at}[{n}]") for n, item in enumerate(value)]
    if isinstance(value, (dt.date, dt.datetime, dt.time)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    return str(value)


def attribute_value(value: Any, where: Where, field: str) -> Any:
    """A value kept as an attribute, as JSON can hold it; a NaN or an infinity in it becomes
    null, and a warning names where."""
    gaps: list[str] = []
    kept = json_safe(value, gaps, field)
    for place in gaps[:3]:
        where.warn(place, "NaN or Infinity, which JSON cannot hold (kept as null)", "NaN or Infinity in an attribute")
    if len(gaps) > 3:
        where.warn(
            field, f"{len(gaps) - 3} more NaN or Infinity values (kept as null)", "NaN or Infinity in an attribute"
        )
    return kept


def attribute_cell(value: Any) -> Any:
    """A CSV cell of an `attr.NAME` column: a list or object written as JSON is read back."""
    if isinstance(value, str) and value.startswith(("[", "{")):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value
