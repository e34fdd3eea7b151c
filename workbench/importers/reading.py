"""Reading benchmark files defensively: every problem names file, line and field."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

from workbench.errors import WorkbenchError

SHORT_FIELD_CHARS = 20_000
"""Claim text, labels, ids, names: longer than this is a broken file, not a claim."""
LONG_FIELD_CHARS = 16_000_000
"""Pages, responses, articles: a 10 MB evidence page is fine; 16 M characters is not."""


class BadInput(WorkbenchError, ValueError):
    """A problem in an input file, located as precisely as we can."""

    def __init__(
        self,
        path: Path | str,
        message: str,
        line: int | None = None,
        field: str | None = None,
        record: int | None = None,
    ):
        self.path, self.line, self.field, self.record = str(path), line, field, record
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path
        if self.line is not None:
            where += f":{self.line}"
        if self.record is not None:
            where += f" (record {self.record})"
        if self.field:
            where += f", field {self.field!r}"
        return f"{where}: {self.message}"


@dataclass
class Located:
    """A parsed record and where it came from."""

    line: int | None
    """The line it starts on (None in Parquet and Arrow files)."""
    record: int
    """Its 0-based position among the file's records."""
    value: Any
    path: Path | None = None
    """The data file it is in (a folder's shard), when it is not the file being imported."""
    key: str | None = None
    """Its key, in a JSON object of records keyed by id."""
    show_record: bool = False
    """Messages name the record's position too (records of a JSON document span lines)."""
    document: str | None = None
    """The JSON document the record lies in, and where it starts in it (`start`): a message
    about one of its fields names that field's own line."""
    start: int = 0

    def field_line(self, field: str | None) -> int | None:
        """The line a field of this record is on (the record's first line when unknown)."""
        if self.document is None or not field or self.line is None:
            return self.line
        found = _value_position(self.document, self.start, _field_steps(field))
        return self.line if found is None else self.line + self.document.count("\n", self.start, found)


def decode_json(path: Path, text: str, line: int | None = None, field: str | None = None) -> Any:
    """json.loads, with every way it can fail as a BadInput naming where. A value nested
    too deeply for the parser (Python's recursion limit) is a broken file like any other."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        where = f" in the {field} cell" if field else ""
        raise BadInput(
            path,
            f"invalid JSON{where}: {error.msg} (column {error.colno})",
            line=error.lineno + (line - 1 if line else 0),
            field=field,
        ) from None
    except RecursionError:
        raise BadInput(
            path, "invalid JSON: nested too deeply to read (over about 1,000 levels)", line=line, field=field
        ) from None


def iter_json_array(path: Path, text: str) -> Iterator[Located]:
    """The objects of a top-level JSON array, each with the line it starts on."""
    document = decode_json(path, text)
    if not isinstance(document, list):
        raise BadInput(path, "expected a JSON array of claims at the top level")
    starts = _element_starts(text, len(document))
    for index, value in enumerate(document):
        line, start = starts[index]
        if not isinstance(value, dict):
            raise BadInput(path, f"expected a JSON object, got {type(value).__name__}", line=line, record=index)
        yield Located(line, index, value, show_record=True, document=text, start=start)


def _element_starts(text: str, count: int) -> list[tuple[int, int]]:
    """(line, offset) where each top-level array element starts (for messages)."""
    decoder = json.JSONDecoder()
    starts: list[tuple[int, int]] = []
    pos = text.index("[") + 1
    line = text.count("\n", 0, pos) + 1
    for _ in range(count):
        while text[pos] in " \t\r\n,":
            line += text[pos] == "\n"
            pos += 1
        starts.append((line, pos))
        _, end = decoder.raw_decode(text, pos)
        line += text.count("\n", pos, end)
        pos = end
    return starts


_STEP = re.compile(r"\[(-?\d+)\]|([^.\[\]]+)")


def _field_steps(field: str) -> list[str | int]:
    """questions[1].answers[0].answer -> ["questions", 1, "answers", 0, "answer"]."""
    return [int(index) if index else name for index, name in _STEP.findall(field)]


def _value_position(text: str, pos: int, steps: list[str | int]) -> int | None:
    """Where the value a field path names starts in a JSON document (None: not there)."""
    decoder = json.JSONDecoder()
    try:
        for step in steps:
            pos = _blank(text, pos)
            opening, closing = ("{", "}") if isinstance(step, str) else ("[", "]")
            if text[pos] != opening:
                return None
            pos, index = pos + 1, 0
            while True:
                pos = _blank(text, pos)
                if text[pos] == closing:
                    return None
                if isinstance(step, str):
                    key, pos = json.decoder.scanstring(text, pos + 1)
                    pos = _blank(text, _blank(text, pos) + 1)  # past the colon
                    if key == step:
                        break
                elif index == step:
                    break
                _, pos = decoder.raw_decode(text, pos)
                pos = _blank(text, pos)
                pos += text[pos] == ","
                index += 1
        return pos
    except (ValueError, IndexError):
        return None


def _blank(text: str, pos: int) -> int:
    while text[pos] in " \t\r\n":
        pos += 1
    return pos


class RecordReader:
    """Typed access to one record's fields, raising BadInput that names the field."""

    def __init__(self, path: Path, located: Located, prefix: str = "", show_record: bool = False, warnings=None):
        self.path, self.located, self.prefix = path, located, prefix
        self.show_record = show_record
        self.record: dict = located.value
        self.warnings = warnings
        """Where a content oddity is said (a number read as text, a NaN read as nothing)."""

    def fail(self, field: str, message: str) -> BadInput:
        """An error about one of this record's fields."""
        record = self.located.record if self.show_record else None
        return BadInput(
            self.path,
            message,
            line=self.located.field_line(self.prefix + field),
            field=self.prefix + field,
            record=record,
        )

    def nested(self, value: Any, prefix: str) -> RecordReader:
        """A reader for an object inside this record (field names get `prefix`)."""
        if not isinstance(value, dict):
            raise self.fail(prefix.rstrip("."), f"must be an object, not {type(value).__name__}")
        located = Located(
            self.located.line, self.located.record, value, document=self.located.document, start=self.located.start
        )  # field paths stay the record's: prefix + name
        return RecordReader(self.path, located, self.prefix + prefix, self.show_record, self.warnings)

    def text(self, name: str, required: bool = False, long: bool = False, aliases: tuple[str, ...] = ()) -> str | None:
        """A string field (numbers are accepted and turned into text)."""
        key, value = name, self.record.get(name)
        if value is None and aliases:
            key = next((k for k in aliases if self.record.get(k) is not None), name)
            value = self.record.get(key)
        # The common case first: a non-blank string within the limit.
        if type(value) is str and len(value) <= SHORT_FIELD_CHARS and value[:1].strip():
            return value
        if isinstance(value, float) and not math.isfinite(value):
            shown = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
            self._warn(key, f"{shown} where a value is expected (read as no value)", "NaN or Infinity for a value")
            value = None
        if value is None or (isinstance(value, str) and not value.strip()):
            if required:
                raise self.fail(key, "is required" if value is None else "is empty")
            return None
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise self.fail(key, f"must be text, not {type(value).__name__}")
        if not isinstance(value, str) and name != "id":
            self._warn(
                key,
                f"the number {value!r} where text is expected (kept as the text {str(value)!r})",
                "number where text is expected",
            )
        value = str(value)
        limit = LONG_FIELD_CHARS if long else SHORT_FIELD_CHARS
        if len(value) > limit:
            raise self.fail(key, f"is {len(value):,} characters long; the limit is {limit:,}")
        return value

    def _warn(self, field: str, message: str, kind: str) -> None:
        if self.warnings is not None:
            record = self.located.record if self.show_record or self.located.line is None else None
            self.warnings.say(
                str(self.path), message, self.located.field_line(self.prefix + field), record, self.prefix + field, kind
            )

    def integer(self, name: str) -> int | None:
        value = self.record.get(name)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(name, f"must be a whole number, not {value!r}")
        return value

    def boolean(self, name: str) -> bool:
        value = self.record.get(name, False)
        if value in (None, ""):
            return False
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false", "yes", "no", "1", "0"):
            return value.lower() in ("true", "yes", "1")
        raise self.fail(name, f"must be true or false, not {value!r}")

    def date(self, name: str, *formats: str) -> str | None:
        """An ISO date (or date-time) string; other `formats` are converted to ISO."""
        value = self.text(name)
        if value is None:
            return None
        value = value.strip()
        for fmt in formats:
            try:
                return datetime.strptime(value, fmt).date().isoformat()
            except ValueError:
                continue
        try:
            if len(value) == 10:
                return date.fromisoformat(value).isoformat()
            return datetime.fromisoformat(value.replace("Z", "+00:00")).isoformat()
        except ValueError:
            raise self.fail(name, f"is not a date (expected YYYY-MM-DD): {value!r}") from None

    def mapping(self, name: str) -> dict:
        value = self.record.get(name)
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.fail(name, f"must be an object, not {type(value).__name__}")
        return value

    def items(self, name: str) -> list:
        value = self.record.get(name)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail(name, f"must be a list, not {type(value).__name__}")
        return value

    def choice(self, name: str, options: list[str]) -> str | None:
        value = self.text(name)
        if value is None:
            return None
        for option in options:
            if option.lower() == value.strip().lower():
                return option
        raise self.fail(name, f"must be one of {', '.join(options)}, not {value!r}")
