"""Models declared as pydantic models are (annotated fields, `Field(...)`, `@field_validator`),
validated by pydantic only when they are built from outside data.

Importing pydantic takes longer than most commands take to run, and a command that reads
the database needs no validation: the store checked every record when it was written. So a
LazyModel is a plain Python object. Building one with `Model(...)` or `Model.model_validate`
validates it with a pydantic model made from the same declaration on first use (same rules,
same ValidationError); `Model.from_store(row)` builds one from values the store wrote itself.
The calls the workbench makes on pydantic models (model_dump, model_dump_json, model_copy)
behave as pydantic's do.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from store.lazy_types import NOT_PLAIN, plain_check, store_conversion

_MISSING: Any = type("Missing", (), {"__repr__": lambda self: "<required>"})()

_PLAIN_JSON = (str, int, float, bool, type(None))

_PLAIN_CONFIG = {"extra", "use_attribute_docstrings", "title"}
"""The model_config keys under which a plain value is taken as pydantic would take it."""

_PLAIN_OPTIONS = {"description", "title", "examples"}
"""The Field options under which a plain value is taken as pydantic would take it."""


class FieldInfo:
    """What `Field(...)` declares: a default or a default factory, and pydantic's other options."""

    __slots__ = ("default", "default_factory", "options")

    def __init__(self, default: Any = _MISSING, default_factory: Callable[[], Any] | None = None,
                 options: tuple = ()):
        self.default, self.default_factory, self.options = default, default_factory, options


def Field(default: Any = _MISSING, *, default_factory: Callable[[], Any] | None = None, **options) -> Any:  # noqa: N802
    """A field's default (or default factory) and any other option of pydantic's Field."""
    return FieldInfo(default, default_factory, tuple(options.items()))


def field_validator(*fields: str, **options):
    """Mark a classmethod as pydantic's field_validator for `fields` (it runs when validating)."""

    def mark(method):
        function = getattr(method, "__func__", method)
        function.__lazy_validates__ = (fields, options)
        return method

    return mark


class _FieldSpec:
    """A declared field: its annotation as written (a string under `from __future__ import
    annotations`), its default or default factory, pydantic's other Field options."""

    __slots__ = ("name", "annotation", "default", "default_factory", "options")

    def __init__(self, name: str, annotation: Any, default: Any, default_factory: Callable[[], Any] | None,
                 options: tuple):
        self.name, self.annotation, self.default = name, annotation, default
        self.default_factory, self.options = default_factory, options

    def default_value(self) -> Any:
        """The default, a fresh copy of a mutable one (as pydantic gives every instance its own)."""
        if self.default_factory is not None:
            return self.default_factory()
        if isinstance(self.default, (list, dict, set)):
            import copy

            return copy.deepcopy(self.default)
        return self.default


class LazyModel:
    """Base class; see the module docstring. `model_config` takes pydantic's ConfigDict keys."""

    model_config: ClassVar[dict[str, Any]] = {}
    __lazy_fields__: ClassVar[dict[str, _FieldSpec]] = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        fields = dict(cls.__lazy_fields__)  # the base classes' fields first, as pydantic orders them
        for name, annotation in cls.__dict__.get("__annotations__", {}).items():
            if name.startswith("_") or str(annotation).startswith(("ClassVar", "typing.ClassVar")):
                continue
            declared = cls.__dict__.get(name, _MISSING)
            if isinstance(declared, FieldInfo):
                fields[name] = _FieldSpec(name, annotation, declared.default, declared.default_factory, declared.options)
            else:
                fields[name] = _FieldSpec(name, annotation, declared, None, ())
            if name in cls.__dict__:
                delattr(cls, name)  # an instance always holds every field
        cls.__lazy_fields__ = fields
        cls._pydantic = None
        cls._from_store_plan = None
        cls._plain_plan = None

    # -- building -------------------------------------------------------------------

    def __init__(self, **values: Any):
        """Validate `values` (pydantic's rules and errors)."""
        self.__dict__.update(type(self)._validated(values))

    @classmethod
    def model_validate(cls, obj: Any):
        """Validate a mapping of field values (an instance of this class is returned as is)."""
        if isinstance(obj, cls):
            return obj
        return cls._built(cls._validated(obj))

    @classmethod
    def model_construct(cls, **values: Any):
        """No validation: the values given, the declared defaults for the rest."""
        data = {name: values[name] if name in values else spec.default_value()
                for name, spec in cls.__lazy_fields__.items()}
        return cls._built(data)

    @classmethod
    def from_store(cls, values: Mapping[str, Any]):
        """A record from a row the store wrote (checked when written): no validation, only
        SQLite's types turned into the declared ones (0/1 -> bool, an integer -> float,
        nested mappings -> their models). A value for no field is an error, as in pydantic."""
        plan = cls._from_store_plan if cls._from_store_plan is not None else cls._plan_from_store()
        data, matched = {}, 0
        for name, spec in cls.__lazy_fields__.items():
            if name in values:
                matched += 1
                value = values[name]
                convert = plan.get(name)
                data[name] = value if convert is None or value is None else convert(value)
            elif spec.default is _MISSING and spec.default_factory is None:
                raise ValueError(f"{cls.__name__}: no value for the required field {name!r}")
            else:
                data[name] = spec.default_value()
        if matched < len(values):
            unknown = sorted(set(values) - set(data))
            raise ValueError(f"{cls.__name__}: no field named {', '.join(unknown)}")
        return cls._built(data)

    @classmethod
    def field_names(cls) -> list[str]:
        """The declared fields, in order."""
        return list(cls.__lazy_fields__)

    @classmethod
    def field_type(cls, name: str) -> Any:
        """A field's declared type, as an object (the annotation evaluated)."""
        return _resolved(cls.__lazy_fields__[name].annotation, _annotation_namespace(cls, twins=False))

    @classmethod
    def _built(cls, data: dict):
        record = cls.__new__(cls)
        record.__dict__.update(data)
        return record

    # -- what pydantic models offer -------------------------------------------------

    def model_dump(self, *, mode: str = "python", include: set | None = None, exclude: set | None = None,
                   exclude_none: bool = False) -> dict[str, Any]:
        """The fields as a new dict (nested models as dicts), as pydantic's model_dump."""
        dumped = {}
        for name in self.__lazy_fields__:
            if (include is not None and name not in include) or (exclude and name in exclude):
                continue
            value = self.__dict__[name]
            if value is None and exclude_none:
                continue
            dumped[name] = _dumped(value, mode, exclude_none)
        return dumped

    def model_dump_json(self, *, indent: int | None = None) -> str:
        """JSON text exactly as pydantic writes it (pydantic_core's serialiser)."""
        from pydantic_core import to_json

        return to_json(self.model_dump(), indent=indent).decode()

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False):
        """A copy with some fields replaced (not validated, as in pydantic)."""
        data = dict(self.__dict__)
        if deep:
            import copy

            data = copy.deepcopy(data)
        data.update(update or {})
        return type(self)._built(data)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.__dict__ == other.__dict__

    __hash__ = None  # mutable, as pydantic's models

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self.__lazy_fields__ and not name.startswith("_"):  # a typo is an error, as in pydantic
            raise ValueError(f'"{type(self).__name__}" object has no field "{name}"')
        self.__dict__[name] = value

    def __iter__(self):
        yield from ((name, self.__dict__[name]) for name in self.__lazy_fields__)

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={value!r}" for name, value in self)
        return f"{type(self).__name__}({fields})"

    # -- the pydantic model behind ---------------------------------------------------

    @classmethod
    def _validated(cls, values: Any) -> dict:
        """The field values pydantic would make of `values` (its ValidationError if none):
        values plainly of their declared types are taken without asking pydantic."""
        if isinstance(values, LazyModel):
            values = values.__dict__
        plain = cls._plain_data(values) if isinstance(values, Mapping) else None
        if plain is not None:
            return plain
        model = cls.pydantic_model()
        checked = model.model_validate(_as_input(values) if isinstance(values, Mapping) else values)
        return {name: _ours(value) for name, value in checked.__dict__.items()}

    @classmethod
    def _plain_data(cls, values: Mapping[str, Any]) -> dict | None:
        """Every field's value (in declared order, defaults for the rest) when each value given
        is plainly of its declared type (a str for a str, a list of str for list[str], one of
        our models for that model) and converted as pydantic converts it (a str to a Path, an
        int to a float); None when pydantic must decide: a value of another type, a missing
        required field, an unknown one (unless extra="ignore"), a field with a validator."""
        plan = cls._plain_plan if cls._plain_plan is not None else cls._plan_plain()
        ignore_unknown = cls.model_config.get("extra", "ignore") == "ignore"
        given = {}
        for name, value in values.items():
            check = plan.get(name, _IGNORED)
            if check is _IGNORED:
                if ignore_unknown:
                    continue
                return None
            converted = NOT_PLAIN if check is None else check(value)
            if converted is NOT_PLAIN:
                return None
            given[name] = converted
        data = {}
        for name, spec in cls.__lazy_fields__.items():
            if name in given:
                data[name] = given[name]
            elif spec.default is _MISSING and spec.default_factory is None:
                return None
            else:
                data[name] = spec.default_value()
        return data

    @classmethod
    def pydantic_model(cls):
        """The pydantic model of the same declaration (made once, on first use)."""
        if cls._pydantic is not None:
            return cls._pydantic
        import pydantic

        namespace = _annotation_namespace(cls, twins=True)
        fields = {}
        for name, spec in cls.__lazy_fields__.items():
            annotation = _resolved(spec.annotation, namespace)
            options = dict(spec.options)
            if spec.default_factory is not None:
                options["default_factory"] = spec.default_factory
            elif spec.default is not _MISSING:
                options["default"] = spec.default
            fields[name] = (annotation, pydantic.Field(**options))
        validators = {}
        for klass in reversed(cls.__mro__):
            for key, member in vars(klass).items():
                marked = getattr(getattr(member, "__func__", member), "__lazy_validates__", None)
                if marked:
                    validators[key] = pydantic.field_validator(*marked[0], **marked[1])(member)
        model = pydantic.create_model(cls.__name__, __config__=pydantic.ConfigDict(**cls.model_config),
                                      __validators__=validators, __module__=cls.__module__, **fields)
        model.__lazy_model__ = cls
        cls._pydantic = model
        return model

    @classmethod
    def _plan_from_store(cls) -> dict[str, Callable[[Any], Any]]:
        namespace = _annotation_namespace(cls, twins=False)
        plan = {}
        for name, spec in cls.__lazy_fields__.items():
            convert = store_conversion(_resolved(spec.annotation, namespace))
            if convert is not None:
                plan[name] = convert
        cls._from_store_plan = plan
        return plan

    @classmethod
    def _plan_plain(cls) -> dict[str, Callable[[Any], Any] | None]:
        """Per field, the plain check (None: always leave it to pydantic: a validator or a
        constraint on the field, or a type the check does not know)."""
        namespace = _annotation_namespace(cls, twins=False)
        if set(cls.model_config) - _PLAIN_CONFIG:  # e.g. strict or str_strip_whitespace: pydantic decides all
            cls._plain_plan = dict.fromkeys(cls.__lazy_fields__)
            return cls._plain_plan
        validated = set()
        for klass in cls.__mro__:
            for member in vars(klass).values():
                marked = getattr(getattr(member, "__func__", member), "__lazy_validates__", None)
                validated.update(marked[0] if marked else ())
        plan = {}
        for name, spec in cls.__lazy_fields__.items():
            constrained = any(key not in _PLAIN_OPTIONS for key, _ in spec.options)
            plain = None if constrained or name in validated or "*" in validated \
                else plain_check(_resolved(spec.annotation, namespace))
            plan[name] = plain
        cls._plain_plan = plan
        return plan


_IGNORED: Any = object()
def _annotation_namespace(cls: type, twins: bool) -> dict[str, Any]:
    """The names the declaration's annotations use; with `twins`, models named in them stand
    for their pydantic models."""
    namespace = dict(vars(sys.modules[cls.__module__]))
    if twins:
        written = " ".join(str(spec.annotation) for spec in cls.__lazy_fields__.values())
        for word in set(re.findall(r"[A-Za-z_]\w*", written)):
            value = namespace.get(word)
            if isinstance(value, type) and issubclass(value, LazyModel) and value is not LazyModel:
                namespace[word] = value.pydantic_model()
    return namespace


def _resolved(annotation: Any, namespace: dict[str, Any]) -> Any:
    return eval(annotation, namespace) if isinstance(annotation, str) else annotation  # noqa: S307 (our own source)


def _as_input(value: Any) -> Any:
    """Values for pydantic: our models (at any depth of lists and dicts) as their field dicts."""
    if isinstance(value, LazyModel):
        return {name: _as_input(item) for name, item in value.__dict__.items()}
    if isinstance(value, Mapping):
        return {key: _as_input(item) for key, item in value.items()} if _holds_models(value.values()) else value
    if isinstance(value, list | tuple) and _holds_models(value):
        return [_as_input(item) for item in value]
    return value


def _holds_models(values) -> bool:
    return any(isinstance(v, LazyModel) or (isinstance(v, (list, tuple, dict)) and v) for v in values)


def _ours(value: Any) -> Any:
    """pydantic's validated value with its models turned back into ours."""
    lazy = getattr(type(value), "__lazy_model__", None)
    if lazy is not None:
        return lazy._built({name: _ours(item) for name, item in value.__dict__.items()})
    if type(value) is list and value and any(getattr(type(v), "__lazy_model__", None) for v in value):
        return [_ours(item) for item in value]
    return value


def _dumped(value: Any, mode: str, exclude_none: bool) -> Any:
    if isinstance(value, LazyModel):
        return value.model_dump(mode=mode, exclude_none=exclude_none)
    if isinstance(value, _PLAIN_JSON):
        return value
    if type(value) is list:
        return [_dumped(item, mode, exclude_none) for item in value]
    if type(value) is dict:
        return {key: _dumped(item, mode, exclude_none) for key, item in value.items()}
    if mode == "json":  # dates, paths, tuples, ...: as pydantic writes them
        from pydantic_core import to_jsonable_python

        return to_jsonable_python(value)
    return value


__all__ = ["Field", "FieldInfo", "LazyModel", "field_validator"]
