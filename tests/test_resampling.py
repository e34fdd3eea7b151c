"""The bootstrap draws confusion matrices from the multinomial over the observed cells
(issue 15): it must be the item-level bootstrap in distribution, and McNemar's exact p
must be scipy's binomial test to the last digits."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest, ks_2samp

from workbench.metrics import (
    accuracy,
    bootstrap_cis_from_cells,
    macro_f1,
    mcnemar_from_counts,
    paired_bootstrap_from_cells,
    resampled_confusions,
    resampled_confusions_by_items,
)
from workbench.metrics.resampling import _percentiles

SHAPE = (3, 5)  # three classes; columns: the classes, abstain, parse failure


def noisy_cells(n: int, seed: int, right: float = 0.7) -> np.ndarray:
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, 3, size=n)
    predicted = np.where(rng.random(n) < right, gold, rng.integers(0, 5, size=n))
    return gold * SHAPE[1] + predicted


@pytest.mark.parametrize("metric", [accuracy, macro_f1])
def test_the_draw_is_the_item_level_bootstrap_in_distribution(metric):
    cells = noisy_cells(200, seed=4)
    counts = np.bincount(cells, minlength=15).reshape(SHAPE)
    by_cells = metric(resampled_confusions(counts, 20_000, seed=1))
    by_items = metric(resampled_confusions_by_items(cells, SHAPE, 20_000, seed=2))
    assert ks_2samp(by_cells, by_items).pvalue > 0.001
    assert by_cells.mean() == pytest.approx(by_items.mean(), abs=4 * by_items.std() / np.sqrt(20_000) * 1.5)
    assert by_cells.std() == pytest.approx(by_items.std(), rel=0.05)


def test_interval_bounds_over_many_seeds_agree_within_sampling_error():
    cells = noisy_cells(300, seed=9)
    counts = np.bincount(cells, minlength=15).reshape(SHAPE)
    bounds = {"cells": [], "items": []}
    for seed in range(150):
        for kind, stack in (
            ("cells", resampled_confusions(counts, 400, seed)),
            ("items", resampled_confusions_by_items(cells, SHAPE, 400, 10_000 + seed)),
        ):
            bounds[kind].append(_percentiles(macro_f1(stack), 0.95))
    ours, reference = np.array(bounds["cells"]), np.array(bounds["items"])
    spread = np.sqrt((ours.var(axis=0) + reference.var(axis=0)) / len(ours))
    assert np.all(np.abs(ours.mean(axis=0) - reference.mean(axis=0)) < 4 * spread)


def test_intervals_are_reproducible_and_cost_nothing_per_item():
    small, big = noisy_cells(300, seed=1), np.tile(noisy_cells(300, seed=1), 1000)  # same shares
    first = bootstrap_cis_from_cells(small, SHAPE, resamples=500, seed=3)
    assert first == bootstrap_cis_from_cells(small, SHAPE, resamples=500, seed=3)
    assert first != bootstrap_cis_from_cells(small, SHAPE, resamples=500, seed=4)
    wide, narrow = first["macro_f1"], bootstrap_cis_from_cells(big, SHAPE, resamples=500, seed=3)["macro_f1"]
    assert narrow.estimate == pytest.approx(wide.estimate)
    assert (narrow.high - narrow.low) < (wide.high - wide.low) / 20  # 1000x the items: ~1/32 the width


def test_the_paired_draw_keeps_the_pairing():
    a = noisy_cells(400, seed=5)
    b = a.copy()
    b[:40] = (a[:40] // SHAPE[1]) * SHAPE[1] + (a[:40] // SHAPE[1])  # B fixes the first 40 items
    result = paired_bootstrap_from_cells(a, b, SHAPE, accuracy, resamples=2000, seed=0)
    gain = accuracy(np.bincount(b, minlength=15).reshape(SHAPE)) - accuracy(np.bincount(a, minlength=15).reshape(SHAPE))
    assert result.delta == pytest.approx(gain)
    assert result.low > 0 and result.p_value < 0.05  # B only gains: 8 items fixed, none lost
    # Paired, the delta varies with the discordant items only: far less than one run's score.
    alone = bootstrap_cis_from_cells(a, SHAPE, {"accuracy": accuracy}, resamples=2000)["accuracy"]
    assert result.high - result.low < (alone.high - alone.low) / 2
    assert paired_bootstrap_from_cells(a, a, SHAPE, resamples=200).p_value == 1.0


@pytest.mark.parametrize(
    "b,c",
    [
        (10, 0),
        (3, 7),
        (50, 61),
        (1000, 1100),
        (150_000, 150_400),
        (0, 1),
        (1, 2000),
        (300, 200_000),
        (5, 5),
        (16, 17),
        (0, 1074),
        (2_000_000, 2_001_000),
    ],
)
def test_mcnemar_is_scipys_exact_binomial_test(b, c):
    expected = binomtest(b, b + c, 0.5).pvalue if b + c else 1.0
    assert mcnemar_from_counts(b, c).p_value == pytest.approx(expected, rel=1e-9, abs=1e-300)
