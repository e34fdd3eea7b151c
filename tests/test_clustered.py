"""Cluster bootstrap and resolution: today's figures when claims stand alone, nominal coverage
when they cluster, and the closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.metrics.clustered import (
    _cluster_vectors,
    accuracy_delta_standard_error,
    cluster_numbers,
    clustered_bootstrap_cis,
    clustered_paired_bootstrap,
    detectable_difference,
    resolution_words,
)
from workbench.metrics.confusion import accuracy
from workbench.metrics.resampling import bootstrap_cis_from_cells, paired_bootstrap_from_cells

SHAPE = (3, 4)


def _cells(rng, n):
    return rng.integers(0, SHAPE[0] * SHAPE[1], size=n)


def test_one_claim_per_cluster_gives_exactly_todays_intervals():
    rng = np.random.default_rng(3)
    cells = _cells(rng, 500)
    today = bootstrap_cis_from_cells(cells, SHAPE, resamples=400, seed=7)
    assert clustered_bootstrap_cis(cells, np.arange(500), SHAPE, resamples=400, seed=7) == today
    assert clustered_bootstrap_cis(cells, None, SHAPE, resamples=400, seed=7) == today


def test_one_claim_per_cluster_gives_exactly_todays_paired_test():
    rng = np.random.default_rng(4)
    a, b = _cells(rng, 300), _cells(rng, 300)
    today = paired_bootstrap_from_cells(a, b, SHAPE, resamples=300, seed=1)
    found, spread = clustered_paired_bootstrap(a, b, None, SHAPE, resamples=300, seed=1)
    assert found == today
    assert spread > 0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 7), st.integers(0, 11), st.integers(0, 11)), min_size=1, max_size=60))
def test_cluster_types_hold_every_clusters_counts(rows):
    clusters = np.array([r[0] for r in rows])
    a, b = np.array([r[1] for r in rows]), np.array([r[2] for r in rows])
    types, multiplicity = _cluster_vectors(clusters, [a, b], [12, 12])
    # each cluster's own vector, by definition
    vectors = {}
    for c in np.unique(clusters):
        mine = clusters == c
        vectors[c] = tuple(np.bincount(a[mine], minlength=12)) + tuple(np.bincount(b[mine], minlength=12))
    expected = {}
    for v in vectors.values():
        expected[v] = expected.get(v, 0) + 1
    assert {tuple(t): int(m) for t, m in zip(types, multiplicity)} == expected


def _clustered_world(rng, clusters, size, rho):
    """Claims whose correctness shares a per-cluster effect: within-cluster correlation rho."""
    effect = rng.normal(0, 1, clusters)
    noise = rng.normal(0, 1, (clusters, size))
    latent = math.sqrt(rho) * effect[:, None] + math.sqrt(1 - rho) * noise
    right = (latent > 0).ravel()  # true accuracy 0.5
    cells = np.where(right, 0, 1)  # gold class 0; right -> cell (0, 0), wrong -> cell (0, 1)
    return cells, np.repeat(np.arange(clusters), size)


@pytest.mark.slow
def test_cluster_intervals_cover_at_nominal_rate_and_claim_intervals_do_not():
    rng = np.random.default_rng(11)
    covered_clusters = covered_claims = 0
    worlds = 1000
    metrics = {"accuracy": accuracy}
    for world in range(worlds):
        cells, clusters = _clustered_world(rng, 60, 12, 0.3)
        by_cluster = clustered_bootstrap_cis(cells, clusters, (2, 2), metrics, resamples=400, seed=world)
        by_claim = clustered_bootstrap_cis(cells, None, (2, 2), metrics, resamples=400, seed=world)
        covered_clusters += by_cluster["accuracy"].low <= 0.5 <= by_cluster["accuracy"].high
        covered_claims += by_claim["accuracy"].low <= 0.5 <= by_claim["accuracy"].high
    # 1,000 worlds: the standard error of a coverage near 0.95 is 0.7 points (seen: 95.4%, claims 72.9%)
    assert abs(covered_clusters / worlds - 0.95) <= 0.02
    assert covered_claims / worlds < 0.80  # claims are not independent: far too narrow


def test_accuracy_standard_error_is_the_closed_form_of_discordant_pairs():
    # n = 100 items: b = 10 (A right, B wrong), c = 20 (B right, A wrong)
    right_a = [True] * 10 + [False] * 20 + [True] * 40 + [False] * 30
    right_b = [False] * 10 + [True] * 20 + [True] * 40 + [False] * 30
    n, b, c = 100, 10, 20
    closed = math.sqrt(((b + c) / n - ((c - b) / n) ** 2) / n)
    assert accuracy_delta_standard_error(right_a, right_b) == pytest.approx(closed, abs=1e-15)
    # one claim per cluster: the sandwich form is the closed form times sqrt(n / (n - 1))
    assert accuracy_delta_standard_error(right_a, right_b, list(range(n))) == pytest.approx(
        closed * math.sqrt(n / (n - 1)), abs=1e-15
    )


def test_detectable_difference_at_alpha_005_and_power_08():
    assert detectable_difference(0.01) == pytest.approx((1.959963984540054 + 0.8416212335729143) * 0.01, abs=1e-15)
    assert detectable_difference(0.01, alpha=0.01, power=0.9) == pytest.approx(
        (2.5758293035489004 + 1.2815515655446004) * 0.01, abs=1e-15
    )


def test_bootstrap_spread_of_accuracy_delta_matches_the_closed_form():
    rng = np.random.default_rng(5)
    right_a, right_b = rng.random(2000) < 0.6, rng.random(2000) < 0.65
    cells_a, cells_b = np.where(right_a, 0, 1), np.where(right_b, 0, 1)
    _, spread = clustered_paired_bootstrap(cells_a, cells_b, None, (2, 2), accuracy, resamples=4000, seed=2)
    assert spread == pytest.approx(accuracy_delta_standard_error(right_a, right_b), rel=0.05)


def test_clustered_standard_error_grows_with_correlated_clusters():
    rng = np.random.default_rng(9)
    cells, clusters = _clustered_world(rng, 80, 10, 0.4)
    other, _ = _clustered_world(rng, 80, 10, 0.4)
    right_a, right_b = cells == 0, other == 0
    assert accuracy_delta_standard_error(right_a, right_b, clusters) > 1.3 * accuracy_delta_standard_error(
        right_a, right_b
    )


def test_words_when_the_interval_spans_zero():
    from workbench.metrics.resampling import PairedComparison

    assert resolution_words(PairedComparison(0.02, -0.01, 0.05, 0.2)) == "these runs cannot be told apart at this size"
    assert resolution_words(PairedComparison(0.08, 0.02, 0.14, 0.01)) is None


def test_cluster_numbers_group_equal_keys():
    numbers = cluster_numbers(["q2", "q1", "q2", 3, "3"])
    assert numbers[0] == numbers[2] and numbers[3] == numbers[4] and len(set(numbers)) == 3
