"""Property tests: the workbench's scores agree with scikit-learn on random runs, and
the live counters agree with scoring the same items from scratch."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import accuracy_score, f1_score, matthews_corrcoef, precision_recall_fscore_support

from workbench.metrics import (
    API_ERROR,
    MISSING,
    PARSE_FAILURE,
    LiveMetrics,
    accuracy,
    bootstrap_cis,
    macro_f1,
    mcc,
    panel_from_rows,
    summarise,
)

TOL = 1e-12
EXCLUDED_GOLD = "Unclear"  # a gold label kept in the dataset but never scored


@st.composite
def runs(draw, min_size=1):
    """A label space and a run on it: (classes, abstain label, gold, predictions)."""
    k = draw(st.integers(2, 5))
    classes = [f"class{i}" for i in range(k)]
    abstain = draw(st.sampled_from([None, "unknown"]))
    outcomes = classes + [PARSE_FAILURE] + ([abstain] if abstain else [])
    n = draw(st.integers(min_size, 60))
    gold = draw(st.lists(st.sampled_from(classes), min_size=n, max_size=n))
    predicted = draw(st.lists(st.sampled_from(outcomes), min_size=n, max_size=n))
    return classes, abstain, gold, predicted


# scikit-learn warns when a run has one label only; its answer is still the reference.
@pytest.mark.filterwarnings("ignore:A single label was found")
@settings(max_examples=300, deadline=None)
@given(runs())
def test_scores_agree_with_sklearn(run):
    classes, abstain, gold, predicted = run
    summary = summarise(gold, predicted, classes, abstain)

    precision, recall, f1, support = precision_recall_fscore_support(gold, predicted, labels=classes, zero_division=0)
    assert abs(summary.accuracy - accuracy_score(gold, predicted)) < TOL
    expected_macro = f1_score(gold, predicted, labels=classes, average="macro", zero_division=0)
    assert abs(summary.macro_f1 - expected_macro) < TOL
    assert abs(summary.mcc - matthews_corrcoef(gold, predicted)) < TOL
    for i, scores in enumerate(summary.per_class):
        assert abs(scores.precision - precision[i]) < TOL
        assert abs(scores.recall - recall[i]) < TOL
        assert abs(scores.f1 - f1[i]) < TOL
        assert scores.support == support[i]


@settings(max_examples=100, deadline=None)
@given(runs(), st.data())
def test_unscored_items_change_counts_not_scores(run, data):
    classes, abstain, gold, predicted = run
    extra = data.draw(st.lists(st.sampled_from([API_ERROR, MISSING, EXCLUDED_GOLD]), max_size=10))
    gold_all = gold + [EXCLUDED_GOLD if e == EXCLUDED_GOLD else classes[0] for e in extra]
    pred_all = predicted + [classes[0] if e == EXCLUDED_GOLD else e for e in extra]

    clean = summarise(gold, predicted, classes, abstain)
    mixed = summarise(gold_all, pred_all, classes, abstain)

    assert mixed.confusion == clean.confusion
    assert mixed.macro_f1 == clean.macro_f1 and mixed.mcc == clean.mcc
    assert mixed.errors == extra.count(API_ERROR)
    assert mixed.missing == extra.count(MISSING)
    assert mixed.excluded == extra.count(EXCLUDED_GOLD)
    attempted = len(gold) + mixed.errors + mixed.missing
    assert math.isclose(mixed.coverage, len(gold) / attempted)


@settings(max_examples=30, deadline=None)
@given(runs(min_size=5), st.integers(0, 2**32 - 1))
def test_bootstrap_interval_holds_the_estimate(run, seed):
    classes, abstain, gold, predicted = run
    cis = bootstrap_cis(gold, predicted, classes, abstain, resamples=200, seed=seed)
    summary = summarise(gold, predicted, classes, abstain)
    assert cis["accuracy"].estimate == summary.accuracy
    assert cis["macro_f1"].estimate == summary.macro_f1
    for interval in cis.values():
        assert 0.0 <= interval.low <= interval.high <= 1.0


# ---- live counters vs batch -------------------------------------------------------

FIELDS = ("importance", "domain")


@st.composite
def streams(draw):
    """A label space and a stream of record/remove operations over a few item ids."""
    classes, abstain, _, _ = draw(runs())
    outcomes = classes + [PARSE_FAILURE, API_ERROR, MISSING] + ([abstain] if abstain else [])
    record = st.tuples(
        st.just("record"),
        st.integers(0, 15),
        st.sampled_from(classes + [EXCLUDED_GOLD]),
        st.sampled_from(outcomes),
        st.fixed_dictionaries(
            {},
            optional={
                "importance": st.sampled_from(["Main", "Sub"]),
                "domain": st.sampled_from(["health", "politics", "sport"]),
            },
        ),
    )
    remove = st.tuples(st.just("remove"), st.integers(0, 15))
    ops = draw(st.lists(st.one_of(record, record, remove), max_size=80))
    return classes, abstain, ops


def _same(a, b):
    """Two summaries show the same numbers (NaN where nothing was scored)."""
    assert a.confusion == b.confusion
    for name in ("errors", "missing", "excluded", "scored", "abstentions", "parse_failures"):
        assert getattr(a, name) == getattr(b, name), name
    for name in ("accuracy", "macro_f1", "mcc", "unknown_rate", "coverage", "error_rate"):
        x, y = getattr(a, name), getattr(b, name)
        assert (math.isnan(x) and math.isnan(y)) or x == y, name


@settings(max_examples=200, deadline=None)
@given(streams())
def test_live_counts_equal_batch_scores(stream):
    classes, abstain, ops = stream
    live = LiveMetrics(classes, abstain, FIELDS)
    final = {}  # item id -> (gold, outcome, slices): what a batch recompute would read
    for op in ops:
        if op[0] == "record":
            _, item, gold, outcome, slices = op
            live.record(item, gold, outcome, slices)
            final[item] = (gold, outcome, slices)
        else:
            live.remove(op[1])
            final.pop(op[1], None)

    rows = list(final.values())
    gold = [g for g, _, _ in rows]
    outcomes = [o for _, o, _ in rows]
    _same(live.summary(), summarise(gold, outcomes, classes, abstain))
    assert len(live) == len(final)

    panel = panel_from_rows(rows, classes, abstain, FIELDS)
    _same(live.summary(), panel.overall)
    for field in FIELDS:
        assert live.slice_values(field) == list(panel.breakdowns[field])  # the same order (importance by meaning)
        for value, batch in panel.breakdowns[field].items():
            _same(live.summary(field, value), batch)


@settings(max_examples=50, deadline=None)
@given(runs())
def test_scores_of_a_stack_equal_scores_one_by_one(run):
    """The formulas give the same numbers on a stack as on each matrix alone."""
    classes, abstain, gold, predicted = run
    one = summarise(gold, predicted, classes, abstain).confusion.counts
    other = summarise(gold, predicted[::-1], classes, abstain).confusion.counts
    stack = np.stack([one, other, np.zeros_like(one)])
    for metric in (accuracy, macro_f1, mcc):
        together = metric(stack)
        for i, counts in enumerate(stack):
            alone = metric(counts)
            assert (np.isnan(alone) and np.isnan(together[i])) or together[i] == alone
