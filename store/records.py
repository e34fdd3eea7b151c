"""The records the store reads and writes: plain dataclasses, declared by what reads them
(store.claim_records, dataset_records, run_records, answer_records, flag_records) and found here by name, each
module imported when one of its records is first asked for (PEP 562): making a dataclass costs
about a millisecond, and a reading command makes only those it reads.

The store builds them from rows it wrote itself (checked when written), so reading needs no
validation. Where data comes from outside (a file being imported), `validated()` checks it
with pydantic against the same declarations (field types, no unknown field), naming the
field that is wrong, before anything touches the database.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, TypeVar

from store.importance import Importance  # noqa: F401 (a record field's type, named here with the others)

EvidenceKind = Literal["passage", "page", "qa", "article"]
PredictionStatus = Literal["ok", "abstain", "parse_failure", "error"]
PredictionOutcome = Literal["correct", "wrong", "abstain", "parse_failure", "unscored", "error"]
RunStatus = Literal["pending", "running", "finished", "cancelled", "failed", "interrupted", "batched"]
"""Stored: pending, running, finished, cancelled, failed. "interrupted" is read, not stored: a
run marked running whose process on this machine is gone (killed, crashed, powered off).
"batched" is read too: a run whose requests wait in a provider's batch API."""


class NotBlank:
    """A text that must not be blank, checked by pydantic when outside data is validated
    (pydantic's protocol for a check carried in `Annotated`; pydantic is imported only then)."""

    def __init__(self, message: str):
        self.message = message

    def __get_pydantic_core_schema__(self, source, handler):
        from pydantic_core import core_schema

        return core_schema.no_info_after_validator_function(self._checked, handler(source))

    def _checked(self, value: str) -> str:
        if not value.strip():
            raise ValueError(self.message)
        return value


_PYDANTIC_CONFIG = {"extra": "forbid", "use_attribute_docstrings": True}
"""How pydantic checks outside data against a record (read by pydantic, a plain dict here)."""


def record(cls: type) -> type:
    """A record's declaration: a dataclass of keyword-only fields (a required one may follow
    one with a default), checked by pydantic with no unknown field when outside data comes in."""
    made = dataclass(kw_only=True)(cls)
    made.__pydantic_config__ = _PYDANTIC_CONFIG
    return made


_HOMES = {
    "Evidence": "store.claim_records",
    "ClaimImage": "store.claim_records",
    "Claim": "store.claim_records",
    "LabelSpace": "store.dataset_records",
    "Dataset": "store.dataset_records",
    "Run": "store.run_records",
    "Prediction": "store.answer_records",
    "Flag": "store.flag_records",
}
"""Record name -> the module declaring it."""


def __getattr__(name: str):
    module = _HOMES.get(name)
    if module is None:
        raise AttributeError(f"module 'store.records' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})


UNATTRIBUTED = "unattributed"
"""The annotator of labels made before annotators were recorded (migration m015), or
written without a name."""


def now_iso() -> str:
    """The current UTC time as stored in the database (milliseconds: run speeds need them)."""
    return datetime.now(UTC).replace(tzinfo=None).isoformat(timespec="milliseconds") + "Z"


def to_json(value: Any) -> str:
    """Compact, key-sorted JSON (stable for hashing and for diffs)."""
    import json  # here: a reading command writes none

    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


RecordType = TypeVar("RecordType")


def validated(kind: type[RecordType], data: Any) -> RecordType:
    """`data` (a mapping from outside) checked by pydantic as a `kind` record, nested records
    built too; pydantic's ValidationError names each field that is wrong. A record is kept."""
    if isinstance(data, kind):
        return data
    return _adapter(kind).validate_python(data)


@functools.cache
def _adapter(kind: type):
    from pydantic import TypeAdapter  # only where outside data comes in: it costs a reading command 80 ms

    return TypeAdapter(kind)


def as_dict(
    item: Any, *, include: set[str] | None = None, exclude: set[str] | None = None, exclude_none: bool = False
) -> dict[str, Any]:
    """A record's fields as a new dict (nested records as dicts, lists and tables copied), some
    left out on request; `exclude_none` leaves out fields that are None, nested records' too."""
    return {
        f.name: _plain(getattr(item, f.name), exclude_none)
        for f in dataclasses.fields(item)
        if (include is None or f.name in include)
        and not (exclude and f.name in exclude)
        and not (exclude_none and getattr(item, f.name) is None)
    }


def _plain(value: Any, exclude_none: bool) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return as_dict(value, exclude_none=exclude_none)
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(item, exclude_none) for item in value)
    if isinstance(value, dict):
        return {key: _plain(item, exclude_none) for key, item in value.items()}
    return value
