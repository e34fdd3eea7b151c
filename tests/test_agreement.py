"""Agreement coefficients: hand-worked examples, the maintained libraries (krippendorff,
scikit-learn) on random label sets, and what is said when there is nothing
to agree on."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from workbench.metrics.agreement import (
    MISSING,
    Patterns,
    cohen_kappa,
    fleiss_kappa,
    interval_distance,
    krippendorff_alpha,
    masi,
    masi_distance,
    nominal_distance,
    observed_agreement,
    pair_table,
    value_patterns,
)
from workbench.metrics.triage_agreement import LabelMatrix, triage_agreement

NAN = np.nan
# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", 4 coders x 12 units,
# worked by hand there: nominal 0.743, interval 0.849.
KRIPPENDORFF_2011 = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
        [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
    ]
)
# Fleiss (1971) as worked in most textbooks: 10 items, 14 raters, 5 categories, kappa 0.210.
FLEISS_TABLE = np.array(
    [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
)


def codes_of(reliability: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """coders x units with NaN -> items x coders value indices with MISSING, and the values."""
    values = np.unique(reliability[~np.isnan(reliability)])
    codes = np.where(np.isnan(reliability), MISSING, np.searchsorted(values, np.nan_to_num(reliability)))
    return codes.T, values


def test_cohen_kappa_of_a_hand_worked_table():
    # p_o = 35/50 = 0.7, p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5, kappa = 0.2 / 0.5
    found = cohen_kappa(np.array([[20, 5], [10, 15]]), resamples=500)
    assert found.value == pytest.approx(0.4)
    assert found.low < 0.4 < found.high


def fleiss_by_krippendorff(counts: np.ndarray) -> float:
    """Fleiss' kappa from krippendorff's nominal alpha: with every item rated by the same
    number of raters (n pairable values in all), kappa = 1 - n / (n - 1) * (1 - alpha)."""
    n = counts.sum()
    alpha = krippendorff.alpha(value_counts=counts, level_of_measurement="nominal")
    return 1 - n / (n - 1) * (1 - alpha)


def test_fleiss_kappa_of_the_textbook_table_and_krippendorff():
    found = fleiss_kappa(Patterns(FLEISS_TABLE, np.ones(len(FLEISS_TABLE), np.int64)), resamples=0)
    assert found.value == pytest.approx(0.2099, abs=1e-4)
    assert found.value == pytest.approx(fleiss_by_krippendorff(FLEISS_TABLE))


def test_krippendorffs_hand_worked_alphas():
    codes, values = codes_of(KRIPPENDORFF_2011)
    patterns = value_patterns(codes, len(values))
    assert krippendorff_alpha(patterns, nominal_distance(len(values)), 0).value == pytest.approx(0.743, abs=5e-4)
    assert krippendorff_alpha(patterns, interval_distance(values), 0).value == pytest.approx(0.849, abs=5e-4)


def test_masi_distance_and_a_hand_worked_set_alpha():
    a, ab, b, c = frozenset("a"), frozenset("ab"), frozenset("b"), frozenset("c")
    assert masi(ab, a) == pytest.approx(1 - 1 / 2 * 2 / 3)
    assert masi(ab, frozenset("bc")) == pytest.approx(1 - 1 / 3 * 1 / 3)
    assert masi(a, b) == 1.0 and masi(frozenset(), frozenset()) == 0.0
    # Items: {a}|{a}, {a,b}|{a}, {b}|{c}. D_o = (2 * 2/3 + 2) / 6; D_e = 21 1/3 / 30; alpha = 0.21875.
    sets = [a, ab, b, c]
    codes = np.array([[0, 0], [1, 0], [2, 3]])
    found = krippendorff_alpha(value_patterns(codes, 4), masi_distance(sets), resamples=0)
    assert found.value == pytest.approx(0.21875)
    library = krippendorff.alpha(
        value_counts=[[2, 0, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1]],
        level_of_measurement=lambda v1, v2, i1, i2, n_v, dtype=float: masi_distance(sets)[i1, i2],
    )
    assert found.value == pytest.approx(library)


@pytest.mark.parametrize("seed", range(6))
def test_the_coefficients_match_the_libraries_on_random_labels(seed):
    rng = np.random.default_rng(seed)
    items, coders, values = 300, 3, 4
    codes = rng.integers(0, values, size=(items, coders))
    codes[rng.random((items, coders)) < 0.3] = MISSING
    copied = rng.random(items) < 0.5  # some agreement
    codes[copied, 1] = codes[copied, 0]
    patterns = value_patterns(codes, values)
    reliability = np.where(codes == MISSING, np.nan, codes).T.astype(float)
    for level, distance in (("nominal", nominal_distance(values)), ("interval", interval_distance(np.arange(4)))):
        found = krippendorff_alpha(patterns, distance, resamples=0).value
        assert found == pytest.approx(
            krippendorff.alpha(reliability, level_of_measurement=level, value_domain=np.arange(values))
        )
    full = rng.integers(0, values, size=(items, 2))
    copied = rng.random(items) < 0.6
    full[copied, 1] = full[copied, 0]
    table = pair_table(full[:, 0], full[:, 1], values)
    assert cohen_kappa(table, resamples=0).value == pytest.approx(cohen_kappa_score(full[:, 0], full[:, 1]))
    weighted = cohen_kappa(table, np.arange(values), resamples=0).value
    assert weighted == pytest.approx(cohen_kappa_score(full[:, 0], full[:, 1], weights="quadratic"))
    constant = rng.integers(0, values, size=(items, 4))
    counts = np.stack([(constant == v).sum(axis=1) for v in range(values)], axis=1)
    assert fleiss_kappa(value_patterns(constant, values), resamples=0).value == pytest.approx(
        fleiss_by_krippendorff(counts)
    )


def test_bootstrap_intervals_are_reproducible_and_narrow_with_more_items():
    rng = np.random.default_rng(3)
    small = rng.integers(0, 3, size=(60, 2))
    small[:40, 1] = small[:40, 0]
    large = np.tile(small, (20, 1))
    few = cohen_kappa(pair_table(small[:, 0], small[:, 1], 3), seed=5)
    many = cohen_kappa(pair_table(large[:, 0], large[:, 1], 3), seed=5)
    assert few == cohen_kappa(pair_table(small[:, 0], small[:, 1], 3), seed=5)
    assert few.value == pytest.approx(many.value)
    assert few.low <= few.value <= few.high and (many.high - many.low) < (few.high - few.low) / 3


def test_what_cannot_be_computed_is_said_not_zero_or_nan():
    same = cohen_kappa(np.array([[9, 0], [0, 0]]))
    assert same.value is None and "chance agreement is total" in same.undefined
    nothing = observed_agreement(value_patterns(np.array([[0, MISSING], [MISSING, 1]]), 2))
    assert nothing.value is None and "two coders" in nothing.undefined
    one_value = krippendorff_alpha(value_patterns(np.zeros((5, 2), np.int64), 1), nominal_distance(1))
    assert one_value.value is None and one_value.undefined


def matrix(
    rows: list[tuple],
    annotators=("ana", "ben"),
    categories=("Knowledge Error", "Flawed Reasoning", "Lost in Complex Text"),
) -> LabelMatrix:
    masks = np.array([[MISSING if cell is None else sum(1 << c for c in cell) for cell in row] for row in rows])
    return LabelMatrix(list(annotators), list(categories), masks, np.arange(len(rows)))


def test_triage_agreement_per_category_overall_and_confusion():
    found = triage_agreement(
        matrix([({0}, {0}), ({0, 1}, {1}), ({1}, {1}), (set(), set()), ({2}, {0}), ({0}, None)]), resamples=200
    )
    assert (found.labelled, found.compared, found.single) == (6, 5, 1)
    assert found.unavailable is None and found.kappa_name == "Cohen's kappa"
    assert found.exact.value == pytest.approx(3 / 5)
    by_name = {c.category: c for c in found.categories}
    # Knowledge Error, yes/no per item (ana, ben): (1,1) (1,0) (0,0) (0,0) (0,1): 3 of 5 agree.
    assert by_name["Knowledge Error"].observed.value == pytest.approx(3 / 5)
    assert by_name["Knowledge Error"].kappa.value == pytest.approx(cohen_kappa_score([1, 1, 0, 0, 0], [1, 0, 0, 0, 1]))
    assert by_name["Flawed Reasoning"].given == 4  # ana twice, ben twice
    confusion = found.confusion
    assert (confusion.first, confusion.second) == ("ana", "ben") and confusion.labels[-1] == "(none)"
    assert confusion.counts[0, 0] == 1 and confusion.counts[0, 1] == 1 and confusion.counts[1, 1] == 2
    assert confusion.counts[2, 0] == 1 and confusion.counts[3, 3] == 1
    assert [(c.annotator, c.labelled, c.compared) for c in found.annotators] == [("ana", 6, 5), ("ben", 5, 5)]
    assert found.pairs[0].shared == 5 and found.pairs[0].masi_alpha.value is not None


def test_three_annotators_use_fleiss_and_every_pair_is_listed():
    found = triage_agreement(
        matrix([({0}, {0}, {0}), ({1}, {1}, None), (None, {2}, {2}), ({0}, {1}, {0})], annotators=("ana", "ben", "cy")),
        resamples=0,
    )
    assert found.kappa_name == "Fleiss' kappa" and found.kappa.value is not None
    assert [(p.first, p.second, p.shared) for p in found.pairs] == [
        ("ana", "ben", 3),
        ("ana", "cy", 2),
        ("ben", "cy", 3),
    ]


def test_one_annotator_or_no_shared_item_is_said_in_words():
    alone = triage_agreement(matrix([({0}, None), ({1}, None)]))
    assert alone.unavailable.startswith("only one annotator (ana)") and alone.exact is None
    apart = triage_agreement(matrix([({0}, None), (None, {1})]))
    assert "no item was labelled by two" in apart.unavailable and apart.single == 2
    empty = triage_agreement(matrix([]))
    assert empty.unavailable == "nobody has labelled any item yet"


def test_a_category_nobody_used_has_no_kappa_and_says_why():
    found = triage_agreement(matrix([({0}, {0}), ({1}, {0}), ({0}, {1})]), resamples=0)
    unused = next(c for c in found.categories if c.category == "Lost in Complex Text")
    assert unused.given == 0 and unused.kappa.value is None and unused.kappa.undefined
    assert unused.observed.value == 1.0
