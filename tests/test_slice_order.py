"""Slices are listed in a reader's order (Main before Sub, (none) last, the rest by their
folded spelling); sorted_slices gives that order without a Python call per value."""

from hypothesis import given
from hypothesis import strategies as st

from workbench.metrics import NO_VALUE
from workbench.scoring.fields import parse_cluster, parse_field
from workbench.scoring.reading import slice_sort_key, sorted_slices

FIELDS = [parse_field("importance"), parse_field("cutoff"), parse_field("domain"), parse_cluster("question")]
FIXED = ["Main", "Sub", "Irrelevant", "before", "after", "unknown", NO_VALUE]


@given(
    st.sampled_from(FIELDS),
    st.lists(st.one_of(st.sampled_from(FIXED), st.text(max_size=6), st.sampled_from(["ß", "SS", "ss", "a\0", "A"]))),
)
def test_sorted_slices_keep_the_readers_order(field, values):
    assert sorted_slices(field, values) == sorted(set(values), key=slice_sort_key(field))


def test_fixed_values_first_and_none_last():
    field = parse_field("importance")
    assert sorted_slices(field, ["zeta", NO_VALUE, "Sub", "Alpha", "Main", "alpha"]) == [
        "Main",
        "Sub",
        "Alpha",
        "alpha",
        "zeta",
        NO_VALUE,
    ]
