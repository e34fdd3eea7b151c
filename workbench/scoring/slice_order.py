"""The order slices are listed in: fixed vocabularies by rank (Main before Sub, before before
after), the rest by their folded spelling, (none) last."""

from __future__ import annotations

from workbench.metrics import NO_VALUE
from workbench.scoring.fields import FLAG_NO, FLAG_YES, SliceField

_FIXED_ORDER = {
    "importance": ["Main", "Sub", "Irrelevant"],
    "cutoff": ["before", "after", "unknown"],
    "flag": [FLAG_YES, FLAG_NO],
}


def slice_field_sort_key(slice_field: SliceField, value: str) -> tuple:
    """Slices in a reader's order: Main before Sub, before before after, (none) last."""
    return slice_sort_key(slice_field)(value)


def slice_sort_key(slice_field: SliceField):
    """slice_field_sort_key for one field, its fixed order looked up once (a field read from
    a million claims can have tens of thousands of values to sort)."""
    rank = _fixed_rank(slice_field)

    def key(value: str) -> tuple:
        if value == NO_VALUE:
            return (2, 0, "")
        at = rank.get(value)
        if at is not None:
            return (0, at, "")
        return (1, 0, value.casefold() + "\0" + value)

    return key


def _fixed_rank(slice_field: SliceField) -> dict[str, int]:
    """The field's fixed order (Main, Sub, ...): each value's first place."""
    fixed = _FIXED_ORDER.get(slice_field.name) or _FIXED_ORDER.get(slice_field.kind) or []
    return {value: i for i, value in reversed(list(enumerate(fixed)))}


def sorted_slices(slice_field: SliceField, values) -> list[str]:
    """The distinct `values` in slice_sort_key's order, without a Python call per value
    (a question field has tens of thousands): fixed ones by rank, the rest by their folded
    spelling, (none) last."""
    rank = _fixed_rank(slice_field)
    values = set(values)
    fixed = sorted((v for v in values if v != NO_VALUE and v in rank), key=rank.__getitem__)
    rest = [v for v in values if v != NO_VALUE and v not in rank]
    folded = [v.casefold() + "\0" + v for v in rest]
    ordered = [rest[i] for i in sorted(range(len(rest)), key=folded.__getitem__)]
    return [*fixed, *ordered, *([NO_VALUE] if NO_VALUE in values else [])]


__all__ = ["slice_field_sort_key", "slice_sort_key", "sorted_slices"]
