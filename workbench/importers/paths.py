"""Paths into a record, as field mappings write them.

    claim                  a top-level field
    meta.id                a field inside an object
    evidence[]             each element of a list (one value per element)
    questions[].answers[]  each answer of each question
    questions[].answers[]? the same, but a question without answers still counts once
    labels[0]  labels[-1]  one element of a list
    labels[#]              the element at the position of the item at hand (parallel lists)
    .                      the value itself (in a list of sentences: the sentence)
    #  ^#                  the position of the item at hand (of its parent) in its list
    ^question  ^^id        from an item, its parent's field (one ^ per level up)
    $id                    from an item, the record's own field
    "speaker's job"        a name with spaces or dots, in double quotes

A path is parsed once (PathError says what is wrong with it) and then evaluated in a
Context: the value at hand, its parents and their positions, and the record.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_TOKEN = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|\[\]\??|\[#\]|\[-?\d+\]|\.|[^.\[\]"]+)')
MISSING = object()
"""What a path gives where the record has nothing (distinct from a JSON null)."""


class PathError(ValueError):
    """A path that cannot be read; the message says where in it."""


@dataclass(frozen=True)
class Context:
    """Where a path is evaluated: the value at hand, the elements it lies in (innermost
    first, the record last), the positions of the value and of each of those, the record."""

    value: Any
    parents: tuple = ()
    positions: tuple = ()
    """positions[0] is the value's position in its list; positions[1] its parent's; ..."""
    record: Any = None

    @classmethod
    def of(cls, record: Any) -> Context:
        return cls(record, (), (), record)


@dataclass(frozen=True)
class Step:
    kind: str
    """key, index, here (the item's position as an index), each, each? (empty lists kept once)."""
    key: str | int | None = None


@dataclass(frozen=True)
class Path:
    """A parsed path: where it starts (item, n parents up, or the record) and its steps."""

    text: str
    steps: tuple[Step, ...]
    up: int = 0
    """0: from the value at hand; n: from its n-th parent; -1: from the record."""
    position: bool = False
    """`#`: the path is the position of the value (or of its up-th parent)."""
    fans_out: bool = False
    keys: tuple | None = None
    """The field names, when every step is one (the common case, read without a walk)."""

    def __post_init__(self):
        object.__setattr__(self, "fans_out", any(step.kind.startswith("each") for step in self.steps))
        plain = not self.position and all(step.kind == "key" for step in self.steps)
        object.__setattr__(self, "keys", tuple(step.key for step in self.steps) if plain else None)

    @property
    def root_key(self) -> str | None:
        """The top-level field a path from the record starts with (None otherwise)."""
        starts_at_record = self.up == -1
        if self.position or not self.steps or self.steps[0].kind != "key":
            return None
        return str(self.steps[0].key) if starts_at_record or self.up == 0 else None

    def values(self, context: Context) -> list[Any]:
        """Every value the path reaches (an empty list where there is nothing)."""
        return [found for found in self._walk(self._start(context), 0, context) if found is not MISSING]

    def first(self, context: Context) -> Any:
        """The value the path reaches (MISSING when none; a fan-out gives the list)."""
        if self.keys is not None:
            value = self._start(context)
            for key in self.keys:
                if not isinstance(value, dict):
                    return MISSING
                value = value.get(key, MISSING)
            return value
        if self.fans_out:
            found = self.values(context)
            return found if found else MISSING
        return next(iter(self._walk(self._start(context), 0, context)), MISSING)

    def items(self, context: Context) -> list[Context]:
        """The context of each element a fan-out reaches: its parents are the elements of
        the earlier fan-outs, then where the path started and its parents, innermost first."""
        start = self._start(context)
        if self.up == -1:
            chain, places = (), ()
        else:
            chain, places = context.parents[self.up :], context.positions[self.up :]
        out: list[Context] = []
        self._items(start, 0, context, start, chain, places, out)
        return out

    def _start(self, context: Context) -> Any:
        if self.up == 0 and not self.position:
            return context.value
        if self.position:
            level = max(self.up, 0)
            return context.positions[level] if level < len(context.positions) else MISSING
        if self.up == -1:
            return context.record
        if self.up == 0:
            return context.value
        return context.parents[self.up - 1] if self.up - 1 < len(context.parents) else MISSING

    def _walk(self, value: Any, index: int, context: Context):
        if index == len(self.steps):
            yield value
            return
        step = self.steps[index]
        if step.kind.startswith("each"):
            self._check_list(value)
            if isinstance(value, list) and value:
                for element in value:
                    yield from self._walk(element, index + 1, context)
            elif step.kind == "each?":
                yield MISSING
            return
        yield from self._walk(_step(value, step, context), index + 1, context)

    def _items(
        self, value: Any, index: int, context: Context, holder: Any, chain: tuple, places: tuple, out: list
    ) -> None:
        if index == len(self.steps):
            out.append(Context(value, chain, places, context.record))
            return
        step = self.steps[index]
        if step.kind.startswith("each"):
            self._check_list(value)
            if isinstance(value, list) and value:
                for position, element in enumerate(value):
                    self._items(element, index + 1, context, element, (holder,) + chain, (position,) + places, out)
            elif step.kind == "each?":
                self._items(MISSING, index + 1, context, MISSING, (holder,) + chain, (None,) + places, out)
            return
        self._items(_step(value, step, context), index + 1, context, holder, chain, places, out)

    def _check_list(self, value: Any) -> None:
        """[] over something that is there but is not a list: the mapping or the file is wrong."""
        if value is not MISSING and value is not None and not isinstance(value, list):
            raise PathError(
                f"the path {self.text!r} takes each element of a list, and here it meets"
                f" {type(value).__name__} {_shown(value)}"
            )


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _step(value: Any, step: Step, context: Context) -> Any:
    if step.kind == "key":
        return value.get(step.key, MISSING) if isinstance(value, dict) else MISSING
    key = step.key
    if step.kind == "here":
        key = context.positions[0] if context.positions else None
        if key is None:
            return MISSING
    if isinstance(value, list) and -len(value) <= key < len(value):
        return value[key]
    return MISSING


def parse_path(text: str) -> Path:
    """A Path from its written form; PathError names what cannot be read."""
    source = text.strip()
    if not source:
        raise PathError("an empty path")
    up, rest = 0, source
    if rest.startswith("$"):
        up, rest = -1, rest[1:].lstrip(".")
    else:
        while rest.startswith("^"):
            up, rest = up + 1, rest[1:]
    if rest == "#":
        return Path(source, (), up, position=True)
    steps = [] if rest in ("", ".") else _steps(source, rest)
    return Path(source, tuple(steps), up)


def _steps(source: str, rest: str) -> list[Step]:
    steps: list[Step] = []
    position, expect_key = 0, True
    while position < len(rest):
        match = _TOKEN.match(rest, position)
        if not match or match.end() == position:
            raise PathError(f"cannot read the path {source!r} at {rest[position:]!r}")
        token = match.group(0).strip()
        position = match.end()
        if token == ".":
            if expect_key:
                raise PathError(f"the path {source!r} has an empty name before a dot")
            expect_key = True
        elif token.startswith("["):
            if expect_key and steps:
                raise PathError(f"the path {source!r} has a dot before [")
            steps.append(_bracket(token))
            expect_key = False
        else:
            if not expect_key:
                raise PathError(f"the path {source!r} needs a dot before {token!r}")
            name = match.group(1).replace('\\"', '"') if match.group(1) is not None else token
            steps.append(Step("key", name))
            expect_key = False
    if expect_key and steps:
        raise PathError(f"the path {source!r} ends with a dot")
    return steps


def _bracket(token: str) -> Step:
    if token.startswith("[]"):
        return Step("each?" if token == "[]?" else "each")
    if token == "[#]":
        return Step("here")
    return Step("index", int(token[1:-1]))
