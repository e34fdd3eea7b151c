"""Hand-checked cases: the numbers in the comments were worked out on paper."""

import math

import numpy as np
import pytest

from workbench.metrics import (
    API_ERROR,
    MISSING,
    NO_VALUE,
    PARSE_FAILURE,
    LiveMetrics,
    bootstrap_cis,
    breakdown,
    corrections,
    cutoff_bucket,
    mcnemar,
    paired_bootstrap,
    summarise,
)
from workbench.metrics.confusion import accuracy

JS = ["Supported", "Refuted", "NotEnoughInfo"]
RFB = ["true", "false"]


def test_three_class_run_with_a_parse_failure():
    gold = ["Supported"] * 3 + ["Refuted"] * 2 + ["NotEnoughInfo"]
    pred = ["Supported", "Supported", "Refuted", "Refuted", PARSE_FAILURE, "NotEnoughInfo"]
    s = summarise(gold, pred, JS)
    # 4 of 6 right.
    assert s.accuracy == pytest.approx(4 / 6)
    # Supported: tp 2, predicted 2, gold 3 -> P 1, R 2/3, F1 0.8.
    # Refuted: tp 1, predicted 2 (one was Supported), gold 2 -> P 0.5, R 0.5, F1 0.5.
    # NotEnoughInfo: 1/1 -> 1. The parse failure is a miss for Refuted, a hit for nobody.
    sup, ref, nei = s.per_class
    assert (sup.precision, sup.recall, sup.f1, sup.support) == pytest.approx((1, 2 / 3, 0.8, 3))
    assert (ref.precision, ref.recall, ref.f1, ref.support) == pytest.approx((0.5, 0.5, 0.5, 2))
    assert nei.f1 == 1.0
    assert s.macro_f1 == pytest.approx((0.8 + 0.5 + 1.0) / 3)
    # Rows (gold) [3,2,1]; columns S,R,N,parse [2,2,1,1]; n 6; correct 4.
    # cov(t,p) = 4*6 - (6+4+1) = 13; cov(p,p) = 36-10 = 26; cov(t,t) = 36-14 = 22.
    assert s.mcc == pytest.approx(13 / math.sqrt(26 * 22))
    assert s.parse_failures == 1 and s.parse_failure_rate == pytest.approx(1 / 6)
    assert s.unknown_rate == 0.0
    assert s.confusion.count("Refuted", PARSE_FAILURE) == 1


def test_abstentions_errors_and_missing_items():
    gold = ["true", "true", "false", "false", "true", "false"]
    pred = ["true", "unknown", "unknown", "false", API_ERROR, MISSING]
    s = summarise(gold, pred, RFB, abstain_label="unknown")
    # Scored: 4 items, 2 right, 2 abstained.
    assert (s.scored, s.correct, s.abstentions) == (4, 2, 2)
    assert s.accuracy == 0.5 and s.unknown_rate == 0.5
    # Each class: P 1/1, R 1/2 -> F1 2/3.
    assert s.macro_f1 == pytest.approx(2 / 3)
    # t [2,2]; p (true,false,unknown,parse) [1,1,2,0]; cov 8-4=4, 16-6=10, 16-8=8.
    assert s.mcc == pytest.approx(4 / math.sqrt(80))
    # 1 error and 1 missing out of 6 attempted.
    assert (s.errors, s.missing) == (1, 1)
    assert s.error_rate == pytest.approx(1 / 6)
    assert s.coverage == pytest.approx(4 / 6)


def test_gold_labels_outside_the_classes_are_excluded_not_scored():
    gold = ["Supported", "Unevaluable", "Refuted", "Unclear"]
    pred = ["Supported", "Supported", "Supported", API_ERROR]
    s = summarise(gold, pred, JS)
    assert s.excluded == 2 and s.scored == 2 and s.errors == 0
    assert s.accuracy == 0.5


def test_a_verdict_outside_the_label_space_is_an_error_naming_it():
    with pytest.raises(ValueError, match="Maybe"):
        summarise(["true"], ["Maybe"], RFB)


def test_always_the_same_answer_has_mcc_zero():
    s = summarise(["true", "false", "false"], ["false"] * 3, RFB)
    assert s.mcc == 0.0
    assert s.accuracy == pytest.approx(2 / 3)


def test_nothing_scored_gives_nan_rates_not_a_crash():
    s = summarise([], [], RFB, errors=3)
    assert math.isnan(s.accuracy) and s.coverage == 0.0 and s.error_rate == 1.0
    assert s.mcc == 0.0 and s.macro_f1 == 0.0


# ---- baselines --------------------------------------------------------------------


def _skewed_gold(repeat=1):
    # Shares 0.6 / 0.3 / 0.1.
    return (["Supported"] * 6 + ["Refuted"] * 3 + ["NotEnoughInfo"]) * repeat


def test_majority_baseline():
    s = summarise(_skewed_gold(), ["Supported"] * 10, JS)
    b = s.baselines
    assert b.majority_class == "Supported"
    assert b.majority_accuracy == pytest.approx(0.6)
    # Majority F1 = 2*0.6/1.6 = 0.75, the others 0 -> 0.25.
    assert b.majority_macro_f1 == pytest.approx(0.25)
    # An always-majority run scores exactly the majority baseline.
    assert s.accuracy == pytest.approx(b.majority_accuracy)
    assert s.macro_f1 == pytest.approx(b.majority_macro_f1)


def test_uniform_baseline_by_hand_and_by_simulation():
    gold = _skewed_gold(repeat=6000)
    b = summarise(gold, gold, JS).baselines
    assert b.uniform_accuracy == pytest.approx(1 / 3)
    # F1_k = 2 p/3 / (p + 1/3): 3/7, 6/19, 2/13 -> mean 1553/5187.
    assert b.uniform_macro_f1 == pytest.approx(1553 / 5187)
    rng = np.random.default_rng(7)
    guesses = [JS[i] for i in rng.integers(0, 3, size=len(gold))]
    simulated = summarise(gold, guesses, JS)
    assert simulated.accuracy == pytest.approx(b.uniform_accuracy, abs=0.01)
    assert simulated.macro_f1 == pytest.approx(b.uniform_macro_f1, abs=0.01)


# ---- bootstrap and paired tests ---------------------------------------------------


def _noisy_run(n=300, seed=1):
    rng = np.random.default_rng(seed)
    gold = [JS[i] for i in rng.integers(0, 3, size=n)]
    pred = [g if rng.random() < 0.7 else JS[int(rng.integers(0, 3))] for g in gold]
    return gold, pred


def test_bootstrap_is_reproducible_and_holds_the_estimate():
    gold, pred = _noisy_run()
    first = bootstrap_cis(gold, pred, JS, seed=11)
    again = bootstrap_cis(gold, pred, JS, seed=11)
    other = bootstrap_cis(gold, pred, JS, seed=12)
    assert first == again
    assert first != other
    for interval in first.values():
        assert interval.low < interval.estimate < interval.high
        assert interval.high - interval.low < 0.2  # 300 items: a few points either way


def test_bootstrap_takes_any_metric_of_a_confusion_stack():
    gold, pred = _noisy_run()
    errors = {"error share": lambda counts: 1.0 - accuracy(counts)}
    ci = bootstrap_cis(gold, pred, JS, metrics=errors, seed=3)["error share"]
    acc = bootstrap_cis(gold, pred, JS, seed=3)["accuracy"]
    assert ci.estimate == pytest.approx(1 - acc.estimate)
    assert ci.low == pytest.approx(1 - acc.high) and ci.high == pytest.approx(1 - acc.low)


def test_identical_runs_do_not_differ():
    gold, pred = _noisy_run()
    result = paired_bootstrap(gold, pred, pred, JS, seed=5)
    assert result.delta == 0.0 and result.p_value == 1.0
    assert result.low == result.high == 0.0


def test_a_run_that_fixes_every_mistake_differs_significantly():
    gold, pred_a = _noisy_run(n=400)
    result = paired_bootstrap(gold, pred_a, gold, JS, seed=5)
    assert result.delta > 0.1  # A gets about 80% right, so B gains about 0.2 macro-F1
    assert result.low > 0
    assert result.p_value < 0.01


def test_runs_trading_a_few_answers_do_not_differ_significantly():
    gold, pred_a = _noisy_run(n=400)
    pred_b = list(pred_a)
    # B fixes 6 of A's mistakes and makes 5 new ones.
    wrong = [i for i, (g, p) in enumerate(zip(gold, pred_a)) if g != p][:6]
    right = [i for i, (g, p) in enumerate(zip(gold, pred_a)) if g == p][:5]
    for i in wrong:
        pred_b[i] = gold[i]
    for i in right:
        pred_b[i] = PARSE_FAILURE
    result = paired_bootstrap(gold, pred_a, pred_b, JS, seed=5)
    assert result.p_value > 0.05
    assert result.low < 0 < result.high


def test_mcnemar_on_known_tables():
    # 10 items A gets right and B wrong, none the other way: p = 2 * 0.5**10.
    gold = ["true"] * 10 + ["false"] * 5
    a = ["true"] * 10 + ["false"] * 5
    b = ["false"] * 10 + ["false"] * 5
    result = mcnemar(gold, a, b)
    assert (result.b, result.c) == (10, 0)
    assert result.p_value == pytest.approx(2 * 0.5**10)
    # Swapped runs: same p, b and c swapped. Same run twice: no evidence at all.
    assert mcnemar(gold, b, a).c == 10
    assert mcnemar(gold, a, a).p_value == 1.0


def test_correction_rate():
    ids = ["c1", "c2", "c3", "c4", "c5", "c6"]
    gold = ["true", "true", "false", "false", "true", "Unclear"]
    a = ["false", "unknown", "true", PARSE_FAILURE, "true", "true"]
    b = ["true", "true", "true", PARSE_FAILURE, "false", "false"]
    # A wrong on c1-c4; B fixes c1 and c2 -> CoR 2/4. B breaks c5. c6 is not scored.
    result = corrections(ids, gold, a, b, classes=RFB)
    assert result.a_wrong == 4
    assert result.correction_rate == 0.5
    assert result.a_wrong_b_right == ["c1", "c2"]
    assert result.a_right_b_wrong == ["c5"]
    assert corrections(ids[:1], ["true"], ["true"], ["false"]).correction_rate is None


# ---- breakdowns -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("claim_date", "bucket"),
    [
        ("2023-10-01", "after"),  # on the cutoff day counts as after
        ("2023-09-30", "before"),
        ("2023-10-01T08:00:00", "after"),
        ("2023-11", "after"),
        ("2023-10", "after"),  # the whole month is on or after the cutoff
        ("2022", "before"),
        ("2023", "unknown"),  # the year straddles the cutoff
        (None, "unknown"),
        ("", "unknown"),
        ("last spring", "unknown"),
    ],
)
def test_cutoff_bucket(claim_date, bucket):
    assert cutoff_bucket(claim_date, "2023-10-01") == bucket


def test_a_cutoff_that_is_not_a_date_is_an_error():
    with pytest.raises(ValueError, match="ISO date"):
        cutoff_bucket("2023-01-01", "October 2023")


def test_breakdown_by_importance():
    gold = ["true", "true", "false", "false"]
    pred = ["true", "false", "false", API_ERROR]
    keys = ["Main", "Main", "Sub", None]
    parts = breakdown(gold, pred, keys, RFB)
    assert list(parts) == [NO_VALUE, "Main", "Sub"]
    assert parts["Main"].accuracy == 0.5 and parts["Main"].scored == 2
    assert parts["Sub"].accuracy == 1.0
    assert parts[NO_VALUE].scored == 0 and parts[NO_VALUE].errors == 1


# ---- live counters ----------------------------------------------------------------


def test_a_retried_item_goes_from_error_to_verdict():
    live = LiveMetrics(RFB, "unknown", ["domain"])
    live.record("c1", "true", API_ERROR, {"domain": "health"})
    assert live.summary().errors == 1 and live.summary().coverage == 0.0
    live.record("c1", "true", "true", {"domain": "health"})
    overall = live.summary()
    assert (overall.errors, overall.scored, overall.accuracy) == (0, 1, 1.0)
    assert live.summary("domain", "health").scored == 1


def test_re_recording_moves_an_item_between_slices_and_remove_forgets_it():
    live = LiveMetrics(RFB, None, ["domain", "cutoff"])
    live.record("c1", "true", "false", {"domain": "health", "cutoff": "after"})
    live.record("c1", "true", "false", {"domain": "politics", "cutoff": "after"})
    assert live.slice_values("domain") == ["politics"]
    live.record("c2", "false", "false", {"domain": "health"})  # no cutoff value
    assert live.slice_values("cutoff") == [NO_VALUE, "after"]
    assert live.remove("c1") is True and live.remove("c1") is False
    assert live.slice_values("domain") == ["health"]
    assert live.summary().accuracy == 1.0


def test_live_refuses_an_unreadable_outcome_without_changing_counts():
    live = LiveMetrics(RFB, "unknown", ["domain"])
    live.record("c1", "true", "true", {"domain": "health"})
    with pytest.raises(ValueError, match="Yes"):
        live.record("c1", "true", "Yes", {"domain": "health"})
    assert live.summary().correct == 1
    with pytest.raises(KeyError, match="topic"):
        live.summary("topic", "x")
