"""Running scores for live panels, updated one prediction at a time.

Each record touches a handful of plain Python ints (overall plus one tally per slice
field); numpy only comes in when a panel asks for a summary.
"""

from __future__ import annotations

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
        self._items: dict[Hashable, tuple[int, tuple[str, ...]]] = {}

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
        ignored; a slice field the item lacks counts under NO_VALUE.
        """
        slot = self._coder.slot(gold, outcome)  # raises before anything changes
        slices = slices or {}
        values = tuple(_value(slices.get(field)) for field in self.slice_fields)
        previous = self._items.get(item_id)
        if previous is not None:
            self._add(previous, -1)
        entry = (slot, values)
        self._items[item_id] = entry
        self._add(entry, 1)

    def remove(self, item_id: Hashable) -> bool:
        """Forget an item's contribution; False if it was never recorded."""
        entry = self._items.pop(item_id, None)
        if entry is None:
            return False
        self._add(entry, -1)
        return True

    def _add(self, entry: tuple[int, tuple[str, ...]], step: int) -> None:
        slot, values = entry
        self._overall[slot] += step
        for tallies, value in zip(self._tallies, values):
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
