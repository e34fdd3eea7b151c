"""Each item's cluster number from its cluster field's raw values, each distinct value looked
at once.

A cluster field (question, response, attr.NAME) can hold tens of thousands of distinct values
over hundreds of thousands of items. Coding the items by first sight (one dict pass over the
raws), then sorting only the distinct values, numbers the clusters exactly as reading the
field as a breakdown column does (encode_field, then RunItems.clustered_by): a value's place
in slice order, and an item without a value a cluster of its own after them.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from workbench.metrics import NO_VALUE
from workbench.scoring.fields import SliceField
from workbench.scoring.slice_order import sorted_slices


class ClusterListError(ValueError):
    """A cluster field holds lists for some claims: no single cluster per claim."""

    def __init__(self, name: str):
        super().__init__(f"{name} holds lists for some claims; a cluster needs one value per claim")


def cluster_numbers_of(slice_field: SliceField, raws: Sequence) -> np.ndarray:
    """Each item's cluster number from its raw value ('' or None: no value); ClusterListError if
    a value is a list of several items."""
    seen: dict = {}
    # Each item's first position among items with the same raw (setdefault keeps the first).
    first = np.fromiter(map(seen.setdefault, raws, itertools.count()), dtype=np.int64, count=len(raws))
    found = [_single(slice_field, raw) for raw in seen]
    values = sorted_slices(slice_field, found)
    index = {value: i for i, value in enumerate(values)}
    number_at = np.zeros(len(raws), dtype=np.int64)
    number_at[np.fromiter(seen.values(), dtype=np.int64, count=len(seen))] = [index[value] for value in found]
    numbers = number_at[first]
    if NO_VALUE in index:  # alone: one cluster per item, numbered after the values
        alone = np.flatnonzero(numbers == index[NO_VALUE])
        numbers[alone] = alone + len(values)
    return numbers


def _single(slice_field: SliceField, raw: object) -> str:
    found = slice_field.values(raw or None)
    if isinstance(found, str):
        return found
    if len(found) != 1:
        raise ClusterListError(slice_field.name)
    return found[0]
