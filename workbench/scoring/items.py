"""Reading a run's items from the database as numpy arrays, in one SQL statement.

Every claim in the run's subset becomes one item: its gold label, its outcome (a
predicted value, an API error, or missing) and its slice values. The statement
(store.scoring) scans run_claims x claims once and the run's predictions index once, and
ships each column as one group_concat string; parsing those is C-speed, where fetching
100,000 row tuples is not.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Sequence

import numpy as np

from store import LabelSpace, Run, Store
from store.scoring import SEPARATOR, CodedColumn, OutcomeCodes
from workbench.metrics import NO_VALUE, OutcomeCoder
from workbench.scoring.fields import FLAG_NO, FLAG_YES, SliceField

_MAX_PACKED = 1 << 24
"""Claim id times every code base stays far below 2**63 (SQLite would turn it into a REAL)."""


@dataclass(frozen=True)
class FieldColumn:
    """One slice field's values for a set of items, as (item, value) membership pairs.

    A single-valued field has one pair per item; a list-valued one (claim types) may have
    several, so an item counts in each of its slices.
    """

    field: SliceField
    values: tuple[str, ...]
    members: np.ndarray
    """Item positions, one per pair."""
    codes: np.ndarray
    """Index into `values`, one per pair."""

    def items_with(self, value: str) -> np.ndarray:
        """Positions of the items in the slice `value`."""
        return self.members[self.codes == self.values.index(value)]


@dataclass(frozen=True)
class CodedField:
    """A slice field that the store sends as a code: its column and each code's slice value."""

    field: SliceField
    column: CodedColumn
    names: tuple[str | None, ...]
    """The slice value of each code; None marks a value the column held no name for."""

    @property
    def base(self) -> int:
        return self.column.base


def outcome_codes(space: LabelSpace) -> OutcomeCodes:
    """Outcome codes as RunItems keeps them: the confusion columns (classes, abstain,
    parse failure), then API error, then missing. An abstention where the dataset has no
    abstain label has no column of its own: it counts as a parse failure (unreadable)."""
    coder = OutcomeCoder(space.labels, space.abstain)
    k, m = len(coder.classes), len(coder.columns)
    verdicts = {name: i for i, name in enumerate(space.labels)}
    if space.abstain is not None:
        verdicts[space.abstain] = k
    abstain = k if space.abstain is not None else m - 1
    return OutcomeCodes(verdicts, abstain, parse_failure=m - 1, error=m, missing=m + 1)


def coded_fields(store: Store, fields: Sequence[SliceField], gold_base: int) -> list[CodedField]:
    """The fields that can travel as codes: fixed vocabularies, then small indexed columns."""
    coded, packed = [], gold_base
    for slice_field in fields:
        found = _coded(store, slice_field)
        if found is not None and packed * found.base <= _MAX_PACKED:
            coded.append(found)
            packed *= found.base
    return coded


def _coded(store: Store, slice_field: SliceField) -> CodedField | None:
    if slice_field.vocabulary:  # the schema allows nothing else: any other value is NO_VALUE
        column = CodedColumn(slice_field.source, slice_field.vocabulary, open_ended=False)
        return CodedField(slice_field, column, (*slice_field.vocabulary, NO_VALUE))
    if slice_field.kind != "column":
        return None
    raws = store.scoring.column_values(slice_field.key)
    if raws is None:
        return None
    names = (*(slice_field.values(raw or None) for raw in raws), NO_VALUE, None)
    return CodedField(slice_field, CodedColumn(slice_field.source, tuple(raws), open_ended=True), names)


@dataclass(frozen=True)
class RunItems:
    """Every item of one run: claim ids (ascending), gold and outcome codes, slices.

    gold: 0..K-1 a scored class; K+j the dataset's j-th excluded label; K+E no usable label.
    outcome: 0..M-1 a confusion column (classes, abstain, parse failure); M an API error;
    M+1 missing (no answer recorded).
    """

    run: Run
    dataset: str
    space: LabelSpace
    claim_ids: np.ndarray
    gold: np.ndarray
    outcome: np.ndarray
    fields: dict[str, FieldColumn] = field(default_factory=dict)
    flagged: dict[str, np.ndarray] = field(default_factory=dict)
    """flag kind -> bool per item: the claim carries a flag of that kind."""
    cutoff: str | None = None
    last_seen: str | None = None
    """The newest prediction's created_at when these items were read."""

    @cached_property
    def coder(self) -> OutcomeCoder:
        return OutcomeCoder(self.space.labels, self.space.abstain)

    @property
    def error_code(self) -> int:
        return len(self.coder.columns)

    @property
    def missing_code(self) -> int:
        return len(self.coder.columns) + 1

    def __len__(self) -> int:
        return len(self.claim_ids)

    def slots(self) -> np.ndarray:
        """OutcomeCoder slot numbers per item (what the pure metrics count)."""
        coder = self.coder
        k, m = len(coder.classes), len(coder.columns)
        cells = self.gold.astype(np.int64) * m + np.minimum(self.outcome, m - 1)
        slots = np.where(self.outcome == m, coder.error_slot, cells)
        slots = np.where(self.outcome == m + 1, coder.missing_slot, slots)
        return np.where(self.gold >= k, coder.excluded_slot, slots)

    def excluded_by_label(self) -> dict[str, int]:
        """How many items each excluded gold label kept out of scoring (and unlabelled ones)."""
        k = len(self.space.labels)
        names = [*self.space.excluded, NO_VALUE]
        counts = np.bincount(self.gold[self.gold >= k] - k, minlength=len(names))
        return {name: int(n) for name, n in zip(names, counts) if n}

    def subset(self, keep: np.ndarray) -> RunItems:
        """The items where `keep` (bool per item) is true, slices and flags included."""
        keep = np.asarray(keep, dtype=bool)
        new_position = np.cumsum(keep) - 1
        fields = {}
        for name, column in self.fields.items():
            kept = keep[column.members]
            fields[name] = replace(column, members=new_position[column.members[kept]],
                                   codes=column.codes[kept])
        return replace(
            self, claim_ids=self.claim_ids[keep], gold=self.gold[keep], outcome=self.outcome[keep],
            fields=fields, flagged={kind: flags[keep] for kind, flags in self.flagged.items()},
        )


def load_run_items(
    store: Store,
    run: Run,
    dataset: str,
    space: LabelSpace,
    fields: Sequence[SliceField] = (),
    cutoff: str | None = None,
    flag_kinds: Sequence[str] = (),
    with_last_seen: bool = False,
) -> RunItems:
    """Read every item of `run` with the given slice fields and flag kinds, in one statement.

    with_last_seen: also read the newest prediction's created_at (live views poll from it).
    """
    gold_base = len(space.labels) + len(space.excluded) + 1
    coded = coded_fields(store, [f for f in fields if f.kind != "flag" and f.name != "label"], gold_base)
    done = {found.field.name for found in coded}
    string_fields = [f for f in fields if f.kind != "flag" and f.name != "label" and f.name not in done]
    kinds = list(dict.fromkeys([*flag_kinds, *(f.key for f in fields if f.kind == "flag")]))
    codes = outcome_codes(space)
    read = store.scoring.read_run(run.id, space, codes, [found.column for found in coded],
                                  [f.source for f in string_fields], kinds, with_last_seen)
    claim_ids, gold, field_codes, order = _unpack(read.packed, gold_base, coded)
    outcome = _outcomes(claim_ids, read.outcome_ids, read.outcome_codes, codes.missing)
    flagged = {kind: _members(claim_ids, _ints(text)) for kind, text in zip(kinds, read.flagged_ids)}
    columns = {}
    for found, codes_of_field in zip(coded, field_codes):
        column = _named_column(found, codes_of_field)
        columns[found.field.name] = column or _read_slowly(store, run.id, found.field, cutoff)
    for text, slice_field in zip(read.strings, string_fields):
        raws = _strings(text, len(claim_ids))
        if raws is None:  # a value held the separator: read this field row by row
            raws = store.scoring.raw_values(run.id, slice_field.source)
        elif order is not None:
            raws = [raws[i] for i in order]
        columns[slice_field.name] = encode_field(slice_field, raws, cutoff)
    for slice_field in fields:
        if slice_field.name == "label":
            columns["label"] = _label_column(slice_field, gold, space)
        elif slice_field.kind == "flag":
            columns[slice_field.name] = _flag_column(slice_field, flagged[slice_field.key])
    return RunItems(run, dataset, space, claim_ids, gold, outcome, {f.name: columns[f.name] for f in fields},
                    flagged, cutoff, read.last_seen or None)


def _unpack(text: str | None, gold_base: int, coded: list[CodedField]):
    """Claim ids (ascending), gold codes and each coded field's codes from the packed ints;
    and the sorting order applied, if the rows did not come in claim id order."""
    packed = _ints(text)
    packed, gold = np.divmod(packed, gold_base)
    codes = []
    for found in reversed(coded):
        packed, code = np.divmod(packed, found.base)
        codes.insert(0, code)
    claim_ids = packed
    order = None if np.all(claim_ids[1:] > claim_ids[:-1]) else np.argsort(claim_ids, kind="stable")
    if order is not None:  # run_claims is scanned in claim id order, so this is rare
        claim_ids, gold = claim_ids[order], gold[order]
        codes = [field_codes[order] for field_codes in codes]
    return claim_ids, gold, codes, order


def _ints(text: str | None) -> np.ndarray:
    if not text:
        return np.zeros(0, dtype=np.int64)
    return np.fromstring(text, dtype=np.int64, sep=",")


def _strings(text: str | None, count: int) -> list[str] | None:
    """The group_concat'ed values, or None when a value held the separator."""
    if count == 0:
        return []
    parts = (text or "").split(SEPARATOR)
    return parts if len(parts) == count else None


def _positions(claim_ids: np.ndarray, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Item position of each wanted claim id, and whether it is one of the items."""
    if len(claim_ids) == 0:
        return np.zeros(len(wanted), dtype=np.int64), np.zeros(len(wanted), dtype=bool)
    low, high = int(claim_ids[0]), int(claim_ids[-1])
    if high - low < 4 * len(claim_ids):  # dense ids: a lookup table beats a binary search
        table = np.full(high - low + 2, -1, dtype=np.int64)
        table[claim_ids - low] = np.arange(len(claim_ids))
        position = table[np.clip(wanted - low, -1, high - low + 1)]
        return position, position >= 0
    position = np.minimum(np.searchsorted(claim_ids, wanted), len(claim_ids) - 1)
    return position, claim_ids[position] == wanted


def _members(claim_ids: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Bool per item: its claim id is among `wanted`."""
    position, known = _positions(claim_ids, wanted)
    member = np.zeros(len(claim_ids), dtype=bool)
    member[position[known]] = True
    return member


def _outcomes(claim_ids: np.ndarray, texts: Sequence[str | None], codes: Sequence[int],
              missing: int) -> np.ndarray:
    """Each item's outcome code from the claim ids listed per outcome code; `missing` where
    the run has no prediction for the claim."""
    outcome = np.full(len(claim_ids), missing, dtype=np.int64)
    ids = [_ints(text) for text in texts]
    if any(len(group) for group in ids):
        position, known = _positions(claim_ids, np.concatenate(ids))
        outcome[position[known]] = np.repeat(codes, [len(group) for group in ids])[known]
    return outcome


def _read_slowly(store: Store, run_id: int, slice_field: SliceField, cutoff: str | None) -> FieldColumn:
    """A coded field met a value written after its values were read: read it row by row."""
    return encode_field(slice_field, store.scoring.raw_values(run_id, slice_field.source), cutoff)


def encode_field(slice_field: SliceField, raws: list, cutoff: str | None) -> FieldColumn:
    """Slice values of every item from its raw value; each distinct raw is read once."""
    per_raw = {raw: slice_field.values(raw or None, cutoff) for raw in set(raws)}
    values = sorted({v for found in per_raw.values() for v in _as_tuple(found)},
                    key=lambda v: slice_field_sort_key(slice_field, v))
    index = {value: i for i, value in enumerate(values)}
    if not slice_field.multi_valued:
        code_of = {raw: index[found] for raw, found in per_raw.items()}
        codes = np.fromiter(map(code_of.__getitem__, raws), dtype=np.int64, count=len(raws))
        return FieldColumn(slice_field, tuple(values), np.arange(len(raws)), codes)
    codes_of = {raw: tuple(index[v] for v in _as_tuple(found)) for raw, found in per_raw.items()}
    counts = np.fromiter((len(codes_of[raw]) for raw in raws), dtype=np.int64, count=len(raws))
    codes = np.fromiter(itertools.chain.from_iterable(map(codes_of.__getitem__, raws)),
                        dtype=np.int64, count=int(counts.sum()))
    return FieldColumn(slice_field, tuple(values), np.repeat(np.arange(len(raws)), counts), codes)


def _as_tuple(found: str | tuple[str, ...]) -> tuple[str, ...]:
    return (found,) if isinstance(found, str) else found


def _label_column(slice_field: SliceField, gold: np.ndarray, space: LabelSpace) -> FieldColumn:
    return _coded_column(slice_field, (*space.labels, *space.excluded, NO_VALUE), gold)


def _coded_column(slice_field: SliceField, names: tuple[str, ...], codes: np.ndarray) -> FieldColumn:
    """A column from codes into `names`, keeping only the values some item has."""
    present = np.flatnonzero(np.bincount(codes, minlength=len(names)))
    remap = np.full(len(names), -1, dtype=np.int64)
    remap[present] = np.arange(len(present))
    return FieldColumn(slice_field, tuple(names[i] for i in present), np.arange(len(codes)), remap[codes])


def _named_column(found: CodedField, codes: np.ndarray) -> FieldColumn | None:
    """A coded field's column, slices in reading order (None if a code has no name)."""
    present = [found.names[i] for i in np.flatnonzero(np.bincount(codes, minlength=found.base))]
    if None in present:
        return None
    values = sorted(set(present), key=lambda value: slice_field_sort_key(found.field, value))
    index = {value: i for i, value in enumerate(values)}
    remap = np.array([index.get(name, -1) for name in found.names], dtype=np.int64)
    return FieldColumn(found.field, tuple(values), np.arange(len(codes)), remap[codes])


def _flag_column(slice_field: SliceField, flagged: np.ndarray) -> FieldColumn:
    values = tuple(v for v, present in ((FLAG_YES, flagged.any()), (FLAG_NO, (~flagged).any())) if present)
    yes = values.index(FLAG_YES) if FLAG_YES in values else -1
    no = values.index(FLAG_NO) if FLAG_NO in values else -1
    codes = np.where(flagged, yes, no).astype(np.int64)
    return FieldColumn(slice_field, values, np.arange(len(flagged)), codes)


_FIXED_ORDER = {
    "importance": ["Main", "Sub", "Irrelevant"],
    "cutoff": ["before", "after", "unknown"],
    "flag": [FLAG_YES, FLAG_NO],
}


def slice_field_sort_key(slice_field: SliceField, value: str) -> tuple:
    """Slices in a reader's order: Main before Sub, before before after, (none) last."""
    fixed = _FIXED_ORDER.get(slice_field.name) or _FIXED_ORDER.get(slice_field.kind) or []
    if value == NO_VALUE:
        return (2, 0, "")
    if value in fixed:
        return (0, fixed.index(value), "")
    return (1, 0, value.casefold() + "\0" + value)


__all__ = ["CodedField", "FieldColumn", "RunItems", "encode_field", "load_run_items", "outcome_codes",
           "slice_field_sort_key"]
