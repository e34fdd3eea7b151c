"""Reading a run's items from the database, in one SQL statement.

The statement (store.scoring) scans run_claims x claims once and the run's predictions
index once, and ships each column as one group_concat string; parsing those is C-speed,
where fetching 100,000 row tuples is not. ClaimPlan says how the claims' side is coded;
workbench.scoring.sides reads that side once for several runs.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from store import LabelSpace, Run, Store
from store.scoring import SEPARATOR, CodedColumn
from workbench.metrics import NO_VALUE
from workbench.scoring.cluster_codes import cluster_numbers_of
from workbench.scoring.fields import FLAG_NO, FLAG_YES, SliceField
from workbench.scoring.items import FieldColumn, RunItems, outcome_codes
from workbench.scoring.slice_order import slice_field_sort_key, slice_sort_key, sorted_slices

_MAX_PACKED = 1 << 24
"""Claim id times every code base stays far below 2**63 (SQLite would turn it into a REAL)."""


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


def load_run_items(
    store: Store,
    run: Run,
    dataset: str,
    space: LabelSpace,
    fields: Sequence[SliceField] = (),
    cutoff: str | None = None,
    flag_kinds: Sequence[str] = (),
    with_last_seen: bool = False,
    cluster: SliceField | None = None,
) -> RunItems:
    """Read every item of `run` with the given slice fields and flag kinds, in one statement.

    with_last_seen: also read the newest prediction's created_at (live views poll from it).
    cluster: a field (not among `fields`) whose value puts each item in a cluster
    (cluster_codes.ClusterListError if it holds lists).
    """
    plan = ClaimPlan.of(store, space, fields, cluster)
    kinds = flag_kinds_of(fields, flag_kinds)
    codes = outcome_codes(space)
    read = store.scoring.read_run(run.id, space, codes, plan.columns, plan.sources, kinds, with_last_seen)
    claim_ids, gold, columns, clusters = plan.decode(store, run, read, cutoff)
    outcome = outcomes_of(claim_ids, read.outcome_ids, read.outcome_codes, codes.missing)
    flagged = {kind: members_of(claim_ids, parse_ints(text)) for kind, text in zip(kinds, read.flagged_ids)}
    return RunItems(
        run,
        dataset,
        space,
        claim_ids,
        gold,
        outcome,
        with_flag_columns(fields, columns, flagged),
        flagged,
        cutoff,
        read.last_seen or None,
        cluster=None if cluster is None else cluster.name,
        clusters=clusters,
    )


def flag_kinds_of(fields: Sequence[SliceField], flag_kinds: Sequence[str]) -> list[str]:
    """The flag specs to read: those asked for and those of flag fields."""
    return list(dict.fromkeys([*flag_kinds, *(f.key for f in fields if f.kind == "flag")]))


def with_flag_columns(
    fields: Sequence[SliceField], columns: dict[str, FieldColumn], flagged: dict[str, np.ndarray]
) -> dict[str, FieldColumn]:
    """Every field's column in the order asked, flag fields from the run's own flags."""
    return {f.name: _flag_column(f, flagged[f.key]) if f.kind == "flag" else columns[f.name] for f in fields}


@dataclass
class ClaimPlan:
    """How a read brings the claims' side of the items: fields coded in the packed integer,
    fields read as text, and the label field made from the gold codes."""

    space: LabelSpace
    fields: Sequence[SliceField]
    coded: list[CodedField]
    strings: list[SliceField]
    cluster: SliceField | None = None
    """Read as text after `strings`, and coded straight into cluster numbers."""

    @classmethod
    def of(
        cls, store: Store, space: LabelSpace, fields: Sequence[SliceField], cluster: SliceField | None = None
    ) -> ClaimPlan:
        claim_fields = [f for f in fields if f.kind != "flag" and f.name != "label"]
        coded = coded_fields(store, claim_fields, cls.gold_base_of(space))
        done = {found.field.name for found in coded}
        return cls(space, fields, coded, [f for f in claim_fields if f.name not in done], cluster)

    @staticmethod
    def gold_base_of(space: LabelSpace) -> int:
        return len(space.labels) + len(space.excluded) + 1

    @property
    def columns(self) -> list[CodedColumn]:
        return [found.column for found in self.coded]

    @property
    def sources(self) -> list:
        texts = [*self.strings, *([self.cluster] if self.cluster else [])]
        return [f.source for f in texts]

    def decode(
        self, store: Store, run: Run, read, cutoff: str | None
    ) -> tuple[np.ndarray, np.ndarray, dict[str, FieldColumn], np.ndarray | None]:
        """Claim ids, gold codes, the claim fields' columns (flag fields not included) and
        each item's cluster number (None without a cluster field)."""
        claim_ids, gold, field_codes, order = _unpack(read.packed, self.gold_base_of(self.space), self.coded)
        columns = {}
        for found, codes_of_field in zip(self.coded, field_codes):
            column = _named_column(found, codes_of_field)
            columns[found.field.name] = column or _read_slowly(store, run.id, found.field, cutoff)
        for text, slice_field in zip(read.strings, self.strings):
            columns[slice_field.name] = encode_field(
                slice_field, _raws(store, run, text, slice_field, order, len(claim_ids)), cutoff
            )
        for slice_field in self.fields:
            if slice_field.name == "label":
                columns["label"] = _label_column(slice_field, gold, self.space)
        clusters = None
        if self.cluster is not None:
            raws = _raws(store, run, read.strings[len(self.strings)], self.cluster, order, len(claim_ids))
            clusters = cluster_numbers_of(self.cluster, raws)
        return claim_ids, gold, columns, clusters


def _raws(store: Store, run: Run, text: str | None, slice_field: SliceField, order, count: int) -> list:
    """One string field's raw values in claim id order ('' for NULL)."""
    raws = _strings(text, count)
    if raws is None:  # a value held the separator: read this field row by row
        return store.scoring.raw_values(run.id, slice_field.source)
    return raws if order is None else [raws[i] for i in order]


def _unpack(text: str | None, gold_base: int, coded: list[CodedField]):
    """Claim ids (ascending), gold codes and each coded field's codes from the packed ints;
    and the sorting order applied, if the rows did not come in claim id order."""
    packed = parse_ints(text)
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


def parse_ints(text: str | None) -> np.ndarray:
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


def members_of(claim_ids: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Bool per item: its claim id is among `wanted`."""
    position, known = _positions(claim_ids, wanted)
    member = np.zeros(len(claim_ids), dtype=bool)
    member[position[known]] = True
    return member


def outcomes_of(claim_ids: np.ndarray, texts: Sequence[str | None], codes: Sequence[int], missing: int) -> np.ndarray:
    """Each item's outcome code from the claim ids listed per outcome code; `missing` where
    the run has no prediction for the claim."""
    outcome = np.full(len(claim_ids), missing, dtype=np.int64)
    ids = [parse_ints(text) for text in texts]
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
    values = sorted_slices(slice_field, {v for found in per_raw.values() for v in _as_tuple(found)})
    index = {value: i for i, value in enumerate(values)}
    if not slice_field.multi_valued:
        code_of = {raw: index[found] for raw, found in per_raw.items()}
        codes = np.fromiter(map(code_of.__getitem__, raws), dtype=np.int64, count=len(raws))
        return FieldColumn(slice_field, tuple(values), np.arange(len(raws)), codes)
    codes_of = {raw: tuple(index[v] for v in _as_tuple(found)) for raw, found in per_raw.items()}
    counts = np.fromiter((len(codes_of[raw]) for raw in raws), dtype=np.int64, count=len(raws))
    codes = np.fromiter(
        itertools.chain.from_iterable(map(codes_of.__getitem__, raws)), dtype=np.int64, count=int(counts.sum())
    )
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
    values = sorted_slices(found.field, present)
    index = {value: i for i, value in enumerate(values)}
    remap = np.array([index.get(name, -1) for name in found.names], dtype=np.int64)
    return FieldColumn(found.field, tuple(values), np.arange(len(codes)), remap[codes])


def _flag_column(slice_field: SliceField, flagged: np.ndarray) -> FieldColumn:
    values = tuple(v for v, present in ((FLAG_YES, flagged.any()), (FLAG_NO, (~flagged).any())) if present)
    yes = values.index(FLAG_YES) if FLAG_YES in values else -1
    no = values.index(FLAG_NO) if FLAG_NO in values else -1
    codes = np.where(flagged, yes, no).astype(np.int64)
    return FieldColumn(slice_field, values, np.arange(len(flagged)), codes)


__all__ = [
    "CodedField",
    "FieldColumn",
    "RunItems",
    "encode_field",
    "load_run_items",
    "outcome_codes",
    "slice_field_sort_key",
    "slice_sort_key",
    "sorted_slices",
]
