"""What is wrong with the settings, said so a user can fix it: each pydantic problem as
`key.path: what is wrong` (never the value), and a key nobody knows named with its line in
the config file and the setting meant. It knows no settings of its own: config.py passes them.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import typing
from pathlib import Path
from typing import Any

_UNKNOWN_KEY = {"extra_forbidden", "unexpected_keyword_argument"}
"""pydantic's error types for a key no setting has (the second: a dataclass's)."""


_MESSAGES = {"missing_argument": "Field required"}
"""pydantic's words for a dataclass's missing key, said as for its models' (as always here)."""


def problems_in(path: Path, error, settings: type) -> str:
    """One line: keys nobody knows first, each with its line in the file and the setting
    meant (a key of the `settings` dataclass); else each problem as validation_problems gives it."""
    unknown = [problem["loc"] for problem in error.errors() if problem["type"] in _UNKNOWN_KEY]
    if not unknown:
        return f"{path} (or a WORKBENCH_* variable): {validation_problems(error)}"
    text = _file_text(path)
    found = sorted(
        ((key_line(text, loc) if text else None, loc) for loc in unknown),
        key=lambda pair: (pair[0] is None, pair[0] or 0),
    )
    problems = [
        (f"line {line}: " if line and n else "") + f"{_key_path(loc)}: not a setting here{_did_you_mean(loc, settings)}"
        for n, (line, loc) in enumerate(found)
    ]
    first_line = found[0][0]
    where = f"{path}, line {first_line}" if first_line else f"{path} (or a WORKBENCH_* variable)"
    return f"{where}: {'; '.join(problems)}"


def validation_problems(error) -> str:
    """Each problem of a pydantic ValidationError as `key.path: what is wrong` (keys that are
    not bare words quoted, as TOML writes them: prices."openai:gpt-4o".inptu), never the value."""
    problems = []
    for problem in error.errors():
        message = (
            "not a setting here (a typo?)"
            if problem["type"] in _UNKNOWN_KEY
            else _MESSAGES.get(problem["type"], problem["msg"])
        )
        problems.append(f"{_key_path(problem['loc'])}: {message}")
    return "; ".join(problems)


def _key_path(loc: tuple) -> str:
    return ".".join(part if re.fullmatch(r"[A-Za-z0-9_-]+", str(part)) else f'"{part}"' for part in loc) or "settings"


def _did_you_mean(loc: tuple, settings: type) -> str:
    """` (did you mean X?)` for the known key nearest an unknown one, else ` (a typo?)`."""
    import difflib

    known = _known_keys(loc[:-1], settings)
    close = difflib.get_close_matches(str(loc[-1]), known, n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else " (a typo?)"


def _known_keys(loc: tuple, settings: type) -> list[str]:
    """The keys a table of the settings takes (its dataclass fields), found by following
    `loc` down from `settings`; a table of free keys (a dict) is stepped over by its key."""
    kind: Any = settings
    parts = list(loc)
    while True:
        kind = _without_none(kind)
        if dataclasses.is_dataclass(kind):
            if not parts:
                return [f.name for f in dataclasses.fields(kind)]
            kind = field_types(kind)[parts.pop(0)]
        elif typing.get_origin(kind) is dict and parts:
            parts.pop(0)
            kind = typing.get_args(kind)[1]
        else:
            return []


@functools.cache
def field_types(kind: type) -> dict[str, Any]:
    """The type of each field of a settings dataclass, by name."""
    return typing.get_type_hints(kind)


def _without_none(kind: Any) -> Any:
    if typing.get_origin(kind) in (typing.Union, type(int | None)):
        kinds = [k for k in typing.get_args(kind) if k is not type(None)]
        return kinds[0] if len(kinds) == 1 else kind
    return kind


def key_line(text: str, loc: tuple) -> int | None:
    """The line (from 1) of the TOML text where the key at `loc` is written: a `[table]`
    header, a `key = value` (dotted keys too) inside the table it belongs to, else the line
    of the nearest enclosing key (an inline table)."""
    import tomllib

    table: tuple = ()
    wanted = tuple(str(part) for part in loc)
    nearest, nearest_depth = None, 0  # an inline table holding the key: the line it starts on
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        header = re.fullmatch(r"\[\[?(.+?)\]\]?\s*(#.*)?", stripped)
        try:
            if header:
                table = _dotted(tomllib.loads(f"{header.group(1)} = 0"))
                found = table
            elif "=" in stripped and not stripped.startswith("#"):
                found = table + _dotted(tomllib.loads(f"{stripped.split('=', 1)[0]} = 0"))
            else:
                continue
        except tomllib.TOMLDecodeError:  # a line inside a multi-line value
            continue
        if found[: len(wanted)] == wanted:
            return number
        if wanted[: len(found)] == found and len(found) > nearest_depth:
            nearest, nearest_depth = number, len(found)
    return nearest


def _dotted(parsed: dict) -> tuple:
    """The key path of {"a": {"b": 0}}: ("a", "b")."""
    path: tuple = ()
    while isinstance(parsed, dict):
        ((key, parsed),) = parsed.items()
        path += (key,)
    return path


def _file_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
