"""One-to-one evidence matching: the Hungarian total is the best any pairing can do."""

from __future__ import annotations

from itertools import permutations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from workbench.contamination.matching import hungarian_match, matched_score


def brute_force_best(scores: np.ndarray) -> float:
    """Best summed score over every one-to-one pairing, by enumeration."""
    if scores.shape[0] > scores.shape[1]:
        scores = scores.T
    n_rows, n_cols = scores.shape
    if n_rows == 0:
        return 0.0
    return max(sum(scores[i, cols[i]] for i in range(n_rows)) for cols in permutations(range(n_cols), n_rows))


matrices = st.tuples(st.integers(0, 5), st.integers(0, 5)).flatmap(
    lambda shape: arrays(np.float64, shape, elements=st.floats(0, 1, allow_nan=False, width=32))
)


@settings(max_examples=300, deadline=None, database=None)
@given(matrices)
def test_hungarian_total_equals_brute_force_best(scores):
    rows, cols, total = hungarian_match(scores)
    assert total == pytest.approx(brute_force_best(scores), abs=1e-9)
    # One-to-one: no row or column used twice, and as many pairs as possible.
    assert len(set(rows.tolist())) == len(rows) == min(scores.shape)
    assert len(set(cols.tolist())) == len(cols)
    assert total == pytest.approx(float(scores[rows, cols].sum()))


def test_random_rectangular_matrices_match_brute_force():
    rng = np.random.default_rng(7)
    for shape in [(1, 4), (4, 1), (2, 5), (5, 3), (4, 4), (6, 2)]:
        scores = rng.random(shape)
        assert hungarian_match(scores)[2] == pytest.approx(brute_force_best(scores))


def test_each_reference_is_used_once():
    # Greedy would give both predictions to reference 0 (0.9 + 0.8); one-to-one
    # forces the second prediction onto reference 1.
    scores = np.array([[0.9, 0.1], [0.8, 0.7]])
    rows, cols, total = hungarian_match(scores)
    assert sorted(zip(rows.tolist(), cols.tolist())) == [(0, 0), (1, 1)]
    assert total == pytest.approx(1.6)


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0, 0)])
def test_empty_matrix_matches_nothing(shape):
    rows, cols, total = hungarian_match(np.zeros(shape))
    assert total == 0.0 and len(rows) == 0 and len(cols) == 0


def test_matched_score_counts_unmatched_references_as_zero():
    # Two predictions, three references: the third reference earns nothing.
    scores = np.array([[1.0, 0.0, 0.0], [0.0, 0.5, 0.0]])
    assert matched_score(scores, 3) == pytest.approx(1.5 / 3)
    assert matched_score(np.zeros((0, 3)), 3) == 0.0


def test_matched_score_rejects_zero_references():
    with pytest.raises(ValueError):
        matched_score(np.zeros((1, 0)), 0)


def test_non_matrix_input_is_rejected():
    with pytest.raises(ValueError):
        hungarian_match(np.zeros(3))
