"""How a value is taken as its declared type without pydantic (store/lazy_model.py): the
plain check (is this value plainly of the type, and what would pydantic make of it?) and the
conversion of what SQLite hands back into the declared type."""

from __future__ import annotations

import datetime
import pathlib
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

NOT_PLAIN: Any = object()


def plain_check(annotation: Any) -> Callable[[Any], Any] | None:
    """A function giving the value as pydantic would make it, or NOT_PLAIN; None for a type
    this does not know (pydantic decides)."""
    if annotation is Any:
        return lambda value: value
    if _is_model(annotation):  # pydantic keeps an instance as is
        return lambda value: value if type(value) is annotation else NOT_PLAIN
    if annotation in (str, bool, int, datetime.date):
        return lambda value: value if type(value) is annotation else NOT_PLAIN
    if annotation is float:
        return lambda value: float(value) if type(value) in (int, float) else NOT_PLAIN
    if annotation is type(None):
        return lambda value: value if value is None else NOT_PLAIN
    if annotation is pathlib.Path or (isinstance(annotation, type) and getattr(annotation, "plain_from_str", False)):
        return lambda value: annotation(value) if type(value) is str else NOT_PLAIN
    origin, arguments = typing.get_origin(annotation), typing.get_args(annotation)
    if _is_union(annotation):
        checks = [plain_check(argument) for argument in arguments]
        if None in checks:
            return None
        return lambda value: next((made for made in (check(value) for check in checks) if made is not NOT_PLAIN),
                                  NOT_PLAIN)
    if origin is typing.Literal:
        return lambda value: value if any(type(value) is type(a) and value == a for a in arguments) else NOT_PLAIN
    if origin is list and len(arguments) == 1:
        item = plain_check(arguments[0])
        return None if item is None else lambda value: _plain_items(value, list, item)
    if origin is dict and len(arguments) == 2 and arguments[0] is str:
        item = plain_check(arguments[1])
        return None if item is None else lambda value: _plain_items(value, dict, item)
    return None


def _plain_items(value: Any, kind: type, item: Callable[[Any], Any]) -> Any:
    if type(value) is not kind:
        return NOT_PLAIN
    if kind is list:
        made = [item(v) for v in value]
        return NOT_PLAIN if any(m is NOT_PLAIN for m in made) else made
    made = {key: item(v) for key, v in value.items()}
    ok = all(type(key) is str for key in made) and not any(m is NOT_PLAIN for m in made.values())
    return made if ok else NOT_PLAIN


def store_conversion(annotation: Any) -> Callable[[Any], Any] | None:
    """How a stored value becomes the declared type, where SQLite's differs (None: as stored)."""
    arguments = [a for a in typing.get_args(annotation) if a is not type(None)]
    if _is_union(annotation) and len(arguments) == 1:
        annotation, arguments = arguments[0], list(typing.get_args(arguments[0]))
    if annotation is bool:
        return bool
    if annotation is float:
        return float
    if _is_model(annotation):
        return lambda value: annotation.from_store(value) if isinstance(value, Mapping) else value
    if typing.get_origin(annotation) is list and arguments and _is_model(arguments[0]):
        item = arguments[0]
        return lambda values: [item.from_store(v) if isinstance(v, Mapping) else v for v in values]
    return None


def _is_union(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (typing.Union, types.UnionType)


def _is_model(annotation: Any) -> bool:
    """One of our LazyModels (known by its declared fields: no import of lazy_model here)."""
    return isinstance(annotation, type) and hasattr(annotation, "__lazy_fields__")
