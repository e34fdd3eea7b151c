"""Reading a run's items from the database as numpy arrays, in one SQL statement.

Every claim in the run's subset becomes one item: its gold label, its outcome (a
predicted value, an API error, or missing) and its slice values. The statement scans
run_claims x claims once and the run's predictions once, and ships each column as one
group_concat string; parsing those is C-speed, where fetching 100,000 row tuples is not.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Sequence

import numpy as np

from store import LabelSpace, Run, Store
from workbench.metrics import NO_VALUE, OutcomeCoder
from workbench.scoring_fields import FLAG_NO, FLAG_YES, SliceField, flag_sql

_SEP = "\x1f"  # between string values; a value holding it sends that field down the slow path


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


def gold_case(space: LabelSpace, column: str = "c.label") -> tuple[str, list]:
    """SQL CASE giving the gold code of `column`, and its parameters."""
    names = [*space.labels, *space.excluded]
    whens = " ".join(f"WHEN ? THEN {i}" for i in range(len(names)))
    return f"(CASE {column} {whens} ELSE {len(names)} END)", list(names)


def outcome_case(space: LabelSpace) -> tuple[str, list]:
    """SQL CASE giving the outcome code of a prediction row `p`, and its parameters.

    An ok verdict outside the label space, or an abstention where the dataset has no
    abstain label, has no column of its own: it counts as a parse failure (unreadable).
    """
    coder = OutcomeCoder(space.labels, space.abstain)
    k, m = len(coder.classes), len(coder.columns)
    parse_failure, error = m - 1, m
    abstain = k if space.abstain is not None else parse_failure
    names = list(space.labels) + ([space.abstain] if space.abstain is not None else [])
    # A verdict naming the abstain label is an abstention whatever its status says.
    whens = " ".join(f"WHEN ? THEN {i}" for i in range(len(names)))
    sql = (
        f"(CASE p.status WHEN 'ok' THEN (CASE p.verdict {whens} ELSE {parse_failure} END)"
        f" WHEN 'abstain' THEN {abstain} WHEN 'parse_failure' THEN {parse_failure}"
        f" ELSE {error} END)"
    )
    return sql, names


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
    fixed = [f for f in fields if f.vocabulary]
    string_fields = [f for f in fields if f.kind != "flag" and f.name != "label" and not f.vocabulary]
    kinds = list(dict.fromkeys([*flag_kinds, *(f.key for f in fields if f.kind == "flag")]))
    sql, params, gold_base, outcome_base = _statement(run.id, space, fixed, string_fields, kinds,
                                                      with_last_seen)
    row = store.db.execute(sql, params).fetchone()
    packed = _ints(row[0])
    packed, gold = packed // gold_base, packed % gold_base
    fixed_codes = []
    for slice_field in reversed(fixed):
        base = len(slice_field.vocabulary) + 1
        packed, code = packed // base, packed % base
        fixed_codes.insert(0, code)
    claim_ids = packed
    order = None if np.all(np.diff(claim_ids) > 0) else np.argsort(claim_ids, kind="stable")
    if order is not None:  # run_claims is scanned in claim id order, so this is rare
        claim_ids, gold = claim_ids[order], gold[order]
        fixed_codes = [codes[order] for codes in fixed_codes]
    predicted, _, last_seen = row[1 + len(string_fields)].partition(";")
    outcome = _outcomes(claim_ids, _ints(predicted), outcome_base, space)
    flagged = {
        kind: np.isin(claim_ids, _ints(text))
        for kind, text in zip(kinds, row[2 + len(string_fields):])
    }
    items = RunItems(run, dataset, space, claim_ids, gold, outcome, {}, flagged, cutoff,
                     last_seen or None)
    columns = {}
    for position, slice_field in enumerate(string_fields):
        raws = _strings(row[1 + position], len(claim_ids))
        if raws is None:  # a value held the separator: read this field row by row
            raws = _raw_values_slowly(store, run.id, slice_field)
        elif order is not None:
            raws = [raws[i] for i in order]
        columns[slice_field.name] = encode_field(slice_field, raws, cutoff)
    for slice_field, codes in zip(fixed, fixed_codes):
        columns[slice_field.name] = _vocabulary_column(slice_field, codes)
    for slice_field in fields:
        if slice_field.name == "label":
            columns["label"] = _label_column(slice_field, gold, space)
        elif slice_field.kind == "flag":
            columns[slice_field.name] = _flag_column(slice_field, flagged[slice_field.key])
    return replace(items, fields={f.name: columns[f.name] for f in fields})


def _statement(run_id: int, space: LabelSpace, fixed: list[SliceField],
               string_fields: list[SliceField], kinds: list[str], with_last_seen: bool):
    """The one statement; claim id, gold and fixed-vocabulary codes travel as one integer."""
    packed, params = "rc.claim_id", []
    for slice_field in fixed:
        whens = " ".join(f"WHEN ? THEN {i}" for i in range(len(slice_field.vocabulary)))
        base = len(slice_field.vocabulary) + 1
        packed = f"({packed}) * {base} + (CASE {slice_field.key} {whens} ELSE {base - 1} END)"
        params += list(slice_field.vocabulary)
    gold_sql, gold_params = gold_case(space)
    gold_base = len(space.labels) + len(space.excluded) + 1
    outcome_sql, outcome_params = outcome_case(space)
    outcome_base = len(OutcomeCoder(space.labels, space.abstain).columns) + 2
    select = [f"group_concat(({packed}) * {gold_base} + {gold_sql})"]
    params += gold_params
    for slice_field in string_fields:
        expr, expr_params = slice_field.sql()
        # The separator is a literal: SQLite evaluates a bound one on every row.
        select.append(f"group_concat(ifnull({expr}, ''), '{_SEP}')")
        params += expr_params
    # The newest created_at travels with the predictions (one snapshot): live views poll from it.
    newest = "ifnull(max(p.created_at), '')" if with_last_seen else "''"
    select.append(
        f"(SELECT ifnull(group_concat(p.claim_id * {outcome_base} + {outcome_sql}), '')"
        f" || ';' || {newest} FROM predictions p WHERE p.run_id = ?)"
    )
    params += outcome_params + [run_id]
    for kind in kinds:
        # No DISTINCT: a claim flagged twice is listed twice, which np.isin does not mind.
        select.append("(SELECT group_concat(f.claim_id) FROM flags f WHERE f.kind = ? COLLATE NOCASE)")
        params.append(kind)
    sql = (f"SELECT {', '.join(select)} FROM run_claims rc JOIN claims c ON c.id = rc.claim_id"
           " WHERE rc.run_id = ?")
    return sql, params + [run_id], gold_base, outcome_base


def _ints(text: str | None) -> np.ndarray:
    if not text:
        return np.zeros(0, dtype=np.int64)
    return np.fromstring(text, dtype=np.int64, sep=",")


def _strings(text: str | None, count: int) -> list[str] | None:
    """The group_concat'ed values, or None when a value held the separator."""
    if count == 0:
        return []
    parts = (text or "").split(_SEP)
    return parts if len(parts) == count else None


def _outcomes(claim_ids: np.ndarray, packed: np.ndarray, base: int, space: LabelSpace) -> np.ndarray:
    """Each item's outcome code; MISSING where the run has no prediction for the claim."""
    missing = len(OutcomeCoder(space.labels, space.abstain).columns) + 1
    outcome = np.full(len(claim_ids), missing, dtype=np.int64)
    if len(packed) and len(claim_ids):
        predicted_ids, codes = packed // base, packed % base
        position = np.minimum(np.searchsorted(claim_ids, predicted_ids), len(claim_ids) - 1)
        known = claim_ids[position] == predicted_ids
        outcome[position[known]] = codes[known]
    return outcome


def _raw_values_slowly(store: Store, run_id: int, slice_field: SliceField) -> list:
    expr, params = slice_field.sql()
    rows = store.db.execute(
        f"SELECT {expr} FROM run_claims rc JOIN claims c ON c.id = rc.claim_id"
        " WHERE rc.run_id = ? ORDER BY rc.claim_id",
        params + [run_id],
    )
    return ["" if value is None else value for (value,) in rows]


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
    present = np.unique(codes)
    remap = np.full(len(names), -1, dtype=np.int64)
    remap[present] = np.arange(len(present))
    return FieldColumn(slice_field, tuple(names[i] for i in present), np.arange(len(codes)), remap[codes])


def _vocabulary_column(slice_field: SliceField, codes: np.ndarray) -> FieldColumn:
    return _coded_column(slice_field, (*slice_field.vocabulary, NO_VALUE), codes)


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


__all__ = ["FieldColumn", "RunItems", "encode_field", "gold_case", "load_run_items", "outcome_case",
           "slice_field_sort_key", "flag_sql"]
