"""Running scores for live panels, updated one prediction at a time.

Each record touches a handful of plain Python ints (overall plus one tally per slice
field); numpy only comes in when a panel asks for a summary. A first load of many items
(`load`) is counted with numpy and kept as arrays: a run of 300,000 items is counted in
milliseconds, and an item recorded again later is looked up there by binary search.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from workbench.metrics.breakdown import NO_VALUE, in_meaning_order
from workbench.metrics.confusion import OutcomeCoder
from workbench.metrics.summary import MetricSummary, summarise_slot_counts


@dataclass(frozen=True)
class Memberships:
    """One slice field's values for a set of items, as (item position, value code) pairs:
    one pair per item for a single-valued field, any number (distinct values) for a list."""

    values: tuple[str, ...]
    members: np.ndarray
    codes: np.ndarray


Entry = tuple[int, tuple[tuple[str, ...], ...]]
"""What an item counts: its slot and, per slice field, its values."""


class _Loaded:
    """Items counted by `load`, as arrays sorted by item id; an item recorded again
    afterwards leaves (`take`) and lives on in the per-item dict instead."""

    def __init__(self, ids: np.ndarray, slots: np.ndarray, fields: Sequence[Memberships | None]):
        ascending = len(ids) < 2 or bool(np.all(ids[1:] > ids[:-1]))  # a run's items come sorted
        order = np.arange(len(ids)) if ascending else np.argsort(ids, kind="stable")
        self.ids, self.slots = ids[order], slots[order]
        if not ascending and bool(np.any(self.ids[1:] == self.ids[:-1])):
            raise ValueError("load takes each item once")
        self.alive = np.ones(len(ids), dtype=bool)
        self.count = len(ids)
        rank = order if ascending else np.empty(len(ids), dtype=np.int64)
        rank[order] = np.arange(len(ids))
        self.fields = []  # per field: (values, starts, codes) with each item's codes together
        for field in fields:
            if field is None:
                self.fields.append(None)
                continue
            positions = rank[field.members]
            grouped = len(positions) < 2 or bool(np.all(positions[1:] >= positions[:-1]))
            by_item = slice(None) if grouped else np.argsort(positions, kind="stable")
            if grouped and len(positions) == len(ids) and bool(np.all(positions == np.arange(len(ids)))):
                starts = np.arange(len(ids) + 1)  # one value per item, in item order
            else:
                starts = np.searchsorted(positions[by_item], np.arange(len(ids) + 1))
            self.fields.append((field.values, starts, field.codes[by_item]))

    def position(self, item_id: Hashable) -> int | None:
        try:
            at = int(np.searchsorted(self.ids, item_id))
        except (TypeError, ValueError):
            return None  # an id of another kind was never loaded
        if at < len(self.ids) and self.ids[at] == item_id and self.alive[at]:
            return at
        return None

    def take(self, item_id: Hashable) -> Entry | None:
        """The entry of a loaded item, which stops being counted here (None if not loaded)."""
        at = self.position(item_id)
        if at is None:
            return None
        self.alive[at] = False
        self.count -= 1
        values = []
        for field in self.fields:
            if field is None:
                values.append((NO_VALUE,))
                continue
            names, starts, codes = field
            values.append(tuple(names[c] for c in codes[starts[at] : starts[at + 1]]) or (NO_VALUE,))
        return int(self.slots[at]), tuple(values)


class LiveMetrics:
    """Confusion counts overall and per slice value, kept current as answers arrive.

    `slice_fields` names the fields panels break scores down by (e.g. importance,
    domain, contaminated, cutoff); each item brings its own value for each field.
    """

    def __init__(self, classes: Sequence[str], abstain_label: str | None = None, slice_fields: Sequence[str] = ()):
        self._coder = OutcomeCoder(classes, abstain_label)
        self.slice_fields = tuple(slice_fields)
        self._overall = [0] * self._coder.slot_count
        # One {slice value: slot tally} per slice field, in slice_fields order.
        self._tallies: list[dict[str, list[int]]] = [{} for _ in self.slice_fields]
        self._items: dict[Hashable, Entry] = {}
        self._loaded: _Loaded | None = None

    def __len__(self) -> int:
        return len(self._items) + (self._loaded.count if self._loaded else 0)

    def __contains__(self, item_id: Hashable) -> bool:
        return item_id in self._items or (self._loaded is not None and self._loaded.position(item_id) is not None)

    def load(self, item_ids: np.ndarray, slots: np.ndarray, slices: Mapping[str, Memberships] | None = None) -> None:
        """Count many items at once, before any other: ids (distinct), their OutcomeCoder
        slots, and each slice field's memberships (a field not given: NO_VALUE for all;
        an item without a pair in a field counts under NO_VALUE)."""
        if len(self) or self._loaded is not None:
            raise ValueError("load counts the first items; record the others one at a time")
        item_ids, slots = np.asarray(item_ids), np.asarray(slots, dtype=np.int64)
        fields = [(slices or {}).get(name) for name in self.slice_fields]
        loaded = _Loaded(item_ids, slots, fields)  # raises before anything is counted
        width = self._coder.slot_count
        for slot, n in enumerate(np.bincount(slots, minlength=width).tolist()):
            self._overall[slot] += n
        for tallies, field in zip(self._tallies, fields):
            self._count_field(tallies, field, slots)
        self._loaded = loaded

    def _count_field(self, tallies: dict[str, list[int]], field: Memberships | None, slots: np.ndarray) -> None:
        width = self._coder.slot_count
        without = np.ones(len(slots), dtype=bool)  # items with no value in this field
        if field is not None:
            without[field.members] = False
            flat = np.bincount(field.codes * width + slots[field.members], minlength=len(field.values) * width)
            for value, tally in zip(field.values, flat.reshape(len(field.values), width).tolist()):
                self._add_tally(tallies, value, tally)
        self._add_tally(tallies, NO_VALUE, np.bincount(slots[without], minlength=width).tolist())

    def _add_tally(self, tallies: dict[str, list[int]], value: str, counts: list[int]) -> None:
        if not any(counts):
            return
        tally = tallies.setdefault(value, [0] * self._coder.slot_count)
        for slot, n in enumerate(counts):
            tally[slot] += n

    def _previous(self, item_id: Hashable) -> Entry | None:
        """What the item counts now, taken out of the loaded arrays if it is there."""
        previous = self._items.get(item_id)
        if previous is None and self._loaded is not None:
            previous = self._loaded.take(item_id)
        return previous

    def record(
        self, item_id: Hashable, gold: str, outcome: str, slices: Mapping[str, str | None] | None = None
    ) -> None:
        """Count one item's outcome: a predicted value, API_ERROR or MISSING.

        Recording an item again replaces what it counted before (a retried item can go
        from an error to a verdict). Keys of `slices` that are not slice fields are
        ignored; a slice field the item lacks counts under NO_VALUE. A value may be a
        list or tuple (e.g. an item's claim types): the item counts under each of them.
        """
        slot = self._coder.slot(gold, outcome)  # raises before anything changes
        slices = slices or {}
        values = tuple(_values(slices.get(field)) for field in self.slice_fields)
        previous = self._previous(item_id)
        if previous is not None:
            self._add(previous, -1)
        entry = (slot, values)
        self._items[item_id] = entry
        self._add(entry, 1)

    def update(self, item_id: Hashable, gold: str, outcome: str) -> None:
        """Count a known item's new outcome; its slice values stay as they were."""
        slot = self._coder.slot(gold, outcome)  # raises before anything changes
        previous = self._previous(item_id)
        if previous is None:
            raise KeyError(f"item {item_id!r} was never recorded")
        self._add(previous, -1)
        entry = (slot, previous[1])
        self._items[item_id] = entry
        self._add(entry, 1)

    def record_many(
        self,
        item_ids: Sequence[Hashable],
        gold: Sequence[str],
        outcomes: Sequence[str],
        slices: Mapping[str, Sequence[str | Sequence[str] | None]] | None = None,
    ) -> None:
        """`record` for many items at once (a first load): the same counts, counted in bulk.

        `slices` maps a field to one value per item, in item order.
        """
        item_ids = list(item_ids)
        slots = self._coder.slots(gold, outcomes).tolist()  # raises before anything changes
        slices = slices or {}
        columns = []
        for field in self.slice_fields:
            values = slices.get(field)
            if values is not None and len(values) != len(item_ids):
                raise ValueError(f"{len(values)} values of {field!r} for {len(item_ids)} items")
            columns.append([(NO_VALUE,)] * len(item_ids) if values is None else [_values(v) for v in values])
        entries = list(zip(slots, zip(*columns))) if columns else [(slot, ()) for slot in slots]
        replacing = self._loaded is not None or not self._items.keys().isdisjoint(item_ids)
        if replacing or len(set(item_ids)) != len(item_ids):
            for item_id, entry in zip(item_ids, entries):  # replacements: one at a time
                previous = self._previous(item_id)
                if previous is not None:
                    self._add(previous, -1)
                self._items[item_id] = entry
                self._add(entry, 1)
            return
        self._items.update(zip(item_ids, entries))
        for slot, n in Counter(slots).items():
            self._overall[slot] += n
        for tallies, column in zip(self._tallies, columns):
            pairs = Counter((value, slot) for slot, values in zip(slots, column) for value in values)
            for (value, slot), n in pairs.items():
                tally = tallies.get(value)
                if tally is None:
                    tally = tallies[value] = [0] * self._coder.slot_count
                tally[slot] += n

    def remove(self, item_id: Hashable) -> bool:
        """Forget an item's contribution; False if it was never recorded."""
        entry = self._items.pop(item_id, None)
        if entry is None and self._loaded is not None:
            entry = self._loaded.take(item_id)
        if entry is None:
            return False
        self._add(entry, -1)
        return True

    def _add(self, entry: Entry, step: int) -> None:
        slot, values = entry
        self._overall[slot] += step
        for tallies, field_values in zip(self._tallies, values):
            for value in field_values:
                tally = tallies.get(value)
                if tally is None:
                    tally = tallies[value] = [0] * self._coder.slot_count
                tally[slot] += step

    def summary(self, slice_field: str | None = None, slice_value: str | None = None) -> MetricSummary:
        """Scores overall, or of the items whose `slice_field` has `slice_value`."""
        if slice_field is None:
            return summarise_slot_counts(self._overall, self._coder)
        tallies = self._tallies[self._field_index(slice_field)]
        empty = [0] * self._coder.slot_count
        return summarise_slot_counts(tallies.get(_value(slice_value), empty), self._coder)

    def slice_values(self, field: str) -> list[str]:
        """The values of `field` held by at least one recorded item, in order (importance
        by meaning, see in_meaning_order)."""
        tallies = self._tallies[self._field_index(field)]
        return in_meaning_order(value for value, tally in tallies.items() if any(tally))

    def _field_index(self, field: str) -> int:
        try:
            return self.slice_fields.index(field)
        except ValueError:
            raise KeyError(f"{field!r} is not a slice field ({list(self.slice_fields)})") from None


def _value(value: str | None) -> str:
    return NO_VALUE if value is None else value


def _values(value: str | Sequence[str] | None) -> tuple[str, ...]:
    """An item's values for one field: one, or each of a list's (NO_VALUE if none)."""
    if value is None or isinstance(value, str):
        return (_value(value),)
    distinct = tuple(dict.fromkeys(_value(v) for v in value))
    return distinct or (NO_VALUE,)
