"""Running scores for live panels, updated one prediction at a time.

Each record touches a handful of plain Python ints (overall plus one tally per slice
field); numpy only comes in when a panel asks for a summary.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence

from workbench.metrics.breakdown import NO_VALUE
from workbench.metrics.confusion import OutcomeCoder
from workbench.metrics.summary import MetricSummary, summarise_slot_counts


class LiveMetrics:
    """Confusion counts overall and per slice value, kept current as answers arrive.

    `slice_fields` names the fields panels break scores down by (e.g. importance,
    domain, contaminated, cutoff); each item brings its own value for each field.
    """

    def __init__(
        self,
        classes: Sequence[str],
        abstain_label: str | None = None,
        slice_fields: Sequence[str] = (),
    ):
        self._coder = OutcomeCoder(classes, abstain_label)
        self.slice_fields = tuple(slice_fields)
        self._overall = [0] * self._coder.slot_count
        # One {slice value: slot tally} per slice field, in slice_fields order.
        self._tallies: list[dict[str, list[int]]] = [{} for _ in self.slice_fields]
        self._items: dict[Hashable, tuple[int, tuple[tuple[str, ...], ...]]] = {}

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, item_id: Hashable) -> bool:
        return item_id in self._items

    def record(
        self,
        item_id: Hashable,
        gold: str,
        outcome: str,
        slices: Mapping[str, str | None] | None = None,
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
        previous = self._items.get(item_id)
        if previous is not None:
            self._add(previous, -1)
        entry = (slot, values)
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
        if len(set(item_ids)) != len(item_ids) or not self._items.keys().isdisjoint(item_ids):
            for item_id, entry in zip(item_ids, entries):  # replacements: one at a time
                previous = self._items.get(item_id)
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
        if entry is None:
            return False
        self._add(entry, -1)
        return True

    def _add(self, entry: tuple[int, tuple[tuple[str, ...], ...]], step: int) -> None:
        slot, values = entry
        self._overall[slot] += step
        for tallies, field_values in zip(self._tallies, values):
            for value in field_values:
                tally = tallies.get(value)
                if tally is None:
                    tally = tallies[value] = [0] * self._coder.slot_count
                tally[slot] += step

    def summary(
        self, slice_field: str | None = None, slice_value: str | None = None
    ) -> MetricSummary:
        """Scores overall, or of the items whose `slice_field` has `slice_value`."""
        if slice_field is None:
            return summarise_slot_counts(self._overall, self._coder)
        tallies = self._tallies[self._field_index(slice_field)]
        empty = [0] * self._coder.slot_count
        return summarise_slot_counts(tallies.get(_value(slice_value), empty), self._coder)

    def slice_values(self, field: str) -> list[str]:
        """The values of `field` held by at least one recorded item, sorted."""
        tallies = self._tallies[self._field_index(field)]
        return sorted(value for value, tally in tallies.items() if any(tally))

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
