"""How the cluster bootstrap counts its clusters, whichever way it takes: small cluster
numbers counted with bincount, large or negative ones sorted; the draws made a few
resamples at a time, the same indices as all at once."""

from __future__ import annotations

from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.metrics.clustered import _cluster_vectors, _draw_clusters, cluster_count, cluster_numbers


def vectors_by_hand(clusters: np.ndarray, cells: np.ndarray, width: int) -> Counter:
    """Each cluster's count vector, and how many clusters have it."""
    vectors = {}
    for cluster, cell in zip(clusters.tolist(), cells.tolist()):
        vectors.setdefault(cluster, [0] * width)[cell] += 1
    return Counter(tuple(vector) for vector in vectors.values())


@settings(max_examples=60, deadline=None)
@given(data=st.data(), items=st.integers(1, 400), width=st.integers(1, 9), spread=st.sampled_from([1, 5, 50, 10**6]))
def test_types_are_the_clusters_count_vectors_however_numbered(data, items, width, spread):
    clusters = np.array(data.draw(st.lists(st.integers(0, spread), min_size=items, max_size=items)))
    cells = np.array(data.draw(st.lists(st.integers(0, width - 1), min_size=items, max_size=items)))
    types, multiplicity = _cluster_vectors(clusters, [cells], [width])
    found = Counter({tuple(row): int(m) for row, m in zip(types.tolist(), multiplicity)})
    assert found == vectors_by_hand(clusters, cells, width)
    relabelled = clusters * 7_919_000_000 - 3  # large and negative: sorted, not counted
    same_types, same_multiplicity = _cluster_vectors(relabelled, [cells], [width])
    assert np.array_equal(types, same_types) and np.array_equal(multiplicity, same_multiplicity)
    assert cluster_count(clusters) == cluster_count(relabelled) == len(set(clusters.tolist()))
    assert np.array_equal(cluster_numbers(clusters), cluster_numbers(relabelled))


def test_draws_made_in_steps_are_the_indices_drawn_at_once():
    """100,000 clusters take several steps for 9 resamples; the indices are those of one draw."""
    types = np.array([[1, 0], [0, 2], [3, 1]])
    multiplicity = np.array([50_000, 30_000, 20_000])
    found = _draw_clusters(types, multiplicity, 9, 11)
    picks = np.random.default_rng(11).integers(0, 100_000, size=(9, 100_000), dtype=np.int32)
    kind_of = np.repeat(np.arange(3), multiplicity)
    expected = np.array([np.bincount(kind_of[row], minlength=3) @ types for row in picks])
    assert np.array_equal(found, expected)
