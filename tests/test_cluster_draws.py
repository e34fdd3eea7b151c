"""The cluster bootstrap's draws: whichever way they are counted (per kind of cluster, or per
cluster when nearly every cluster is a kind of its own; in single or double precision), each
resample is the sum of the count vectors of the clusters its indices name."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.metrics.clustered import _draw_clusters


def drawn_by_hand(types: np.ndarray, multiplicity: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """The same random indices, added up one resample at a time in exact integers."""
    clusters = int(multiplicity.sum())
    kind_of = np.repeat(np.arange(len(multiplicity)), multiplicity)
    rng = np.random.default_rng(seed)
    step = max(1, 4_000_000 // clusters)
    rows = []
    for start in range(0, resamples, step):
        picks = rng.integers(0, clusters, size=(min(step, resamples - start), clusters), dtype=np.int32)
        rows += [types[kind_of[row]].sum(axis=0) for row in picks]
    return np.array(rows, dtype=np.int64)


@settings(max_examples=40, deadline=None)
@given(
    kinds=st.integers(1, 30),
    width=st.integers(1, 12),
    most=st.integers(1, 6),
    largest=st.sampled_from([3, 40, 5000]),
    resamples=st.integers(1, 60),
    seed=st.integers(0, 2**32 - 1),
    data=st.data(),
)
def test_each_resample_adds_up_the_clusters_it_draws(kinds, width, most, largest, resamples, seed, data):
    rng = np.random.default_rng(seed)
    types = rng.integers(0, largest + 1, size=(kinds, width))
    multiplicity = np.array(data.draw(st.lists(st.integers(1, most), min_size=kinds, max_size=kinds)))
    found = _draw_clusters(types, multiplicity, resamples, seed)
    assert np.array_equal(found, drawn_by_hand(types, multiplicity, resamples, seed))


def test_sums_beyond_single_precision_stay_exact():
    """Counts whose sums pass 2**24 (single precision's last exact integer) are summed in double."""
    types = np.array([[2**22 + 1, 1], [3, 2**21 + 7], [0, 5]], dtype=np.int64)
    multiplicity = np.array([3, 2, 1])
    found = _draw_clusters(types, multiplicity, 25, 7)
    assert found.max() > 2**24
    assert np.array_equal(found, drawn_by_hand(types, multiplicity, 25, 7))
