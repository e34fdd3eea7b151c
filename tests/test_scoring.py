"""The store -> metrics adapter on real SQLite, with numbers worked out by hand.

The demo dataset `demo` (JSFactCheck labels, no abstain label) has claims 1-24; the ones
used here (id: gold, importance, claim date):
   1 Refuted Main 2024-03-18      5 Refuted Main 2025-01-18      9 Supported Main 2025-05-20
   2 Supported Sub 2024-03-18     6 Supported Sub 2025-01-18    10 Refuted Sub 2025-05-20
   3 NotEnoughInfo Sub 2024-03-18 7 NotEnoughInfo Main 2025-01  11 Unclear Main (excluded)
   4 Supported Irrelevant 2024    8 Refuted Sub 2025-01-18      12 Refuted Irrelevant 2025-05
"""

from __future__ import annotations

import math

import pytest
from sklearn.metrics import accuracy_score, f1_score, matthews_corrcoef

from store import Prediction, Run
from tests.support.scoring import JS, RUN_A, RUN_B, make_run
from workbench.metrics import NO_VALUE, PARSE_FAILURE, corrections, mcnemar, paired_bootstrap
from workbench.scoring.compare import compare_runs, filter_value
from workbench.scoring.live import load_live_run
from workbench.scoring.runs import (
    ScoringError,
    parse_cutoffs,
    parse_fields,
    read_items,
    score_run,
    score_runs,
    summaries,
)


@pytest.fixture
def js_store(demo_store):
    make_run(demo_store, "A", 1, range(1, 13), RUN_A)
    make_run(demo_store, "B", 1, range(1, 13), RUN_B)
    demo_store.annotations.flag([1, 5, 8], "contaminated")
    return demo_store


def test_overall_numbers_with_excluded_error_missing_and_parse_failure(js_store):
    report = score_run(js_store, "A", resamples=200)
    s = report.full.overall.summary
    # Scored: 1,2,3,4,5,7,8,9,12; right: 1,2,5,7,9,12. 6 is an error, 10 missing, 11 Unclear.
    assert (s.scored, s.correct, s.errors, s.missing, s.excluded) == (9, 6, 1, 1, 1)
    assert report.full.excluded_by_label == {"Unclear": 1}
    assert s.accuracy == pytest.approx(6 / 9)
    # Supported P 2/4 R 2/3 F1 4/7; Refuted P 1 R 3/4 F1 6/7; NEI P 1 R 1/2 F1 2/3.
    assert s.macro_f1 == pytest.approx(44 / 63)
    assert s.for_class("Supported").f1 == pytest.approx(4 / 7)
    assert s.parse_failure_rate == pytest.approx(1 / 9) and s.unknown_rate == 0
    assert s.coverage == pytest.approx(9 / 11) and s.error_rate == pytest.approx(1 / 11)
    assert s.confusion.count("Supported", PARSE_FAILURE) == 1
    # The same numbers as scikit-learn on the scored items.
    gold = [
        "Refuted",
        "Supported",
        "NotEnoughInfo",
        "Supported",
        "Refuted",
        "NotEnoughInfo",
        "Refuted",
        "Supported",
        "Refuted",
    ]
    pred = [
        "Refuted",
        "Supported",
        "Supported",
        PARSE_FAILURE,
        "Refuted",
        "NotEnoughInfo",
        "Supported",
        "Supported",
        "Refuted",
    ]
    assert s.macro_f1 == pytest.approx(f1_score(gold, pred, labels=JS, average="macro", zero_division=0))
    assert s.accuracy == pytest.approx(accuracy_score(gold, pred))
    assert s.mcc == pytest.approx(matthews_corrcoef(gold, pred))
    ci = report.full.overall.intervals
    assert ci["accuracy"].low <= s.accuracy <= ci["accuracy"].high


def test_breakdowns_by_importance_cutoff_and_flag(js_store):
    report = score_run(js_store, "A", by=["importance", "flag:contaminated"], cutoff="2025-01-01", resamples=0)
    importance = report.full.breakdowns["importance"]
    assert list(importance) == ["Main", "Sub", "Irrelevant"]
    main, sub, irrelevant = importance.values()
    assert (main.summary.scored, main.summary.accuracy, main.summary.excluded) == (4, 1.0, 1)
    assert (sub.summary.scored, sub.summary.correct, sub.summary.errors, sub.summary.missing) == (3, 1, 1, 1)
    assert (irrelevant.summary.scored, irrelevant.summary.correct) == (2, 1)
    cutoff = report.full.breakdowns["cutoff"]
    assert cutoff["before"].summary.accuracy == pytest.approx(2 / 4)
    assert cutoff["after"].summary.accuracy == pytest.approx(4 / 5)
    flag = report.full.breakdowns["flag:contaminated"]
    assert flag["yes"].summary.accuracy == pytest.approx(2 / 3)
    assert flag["no"].summary.accuracy == pytest.approx(4 / 6)


def test_exclude_flagged_recomputes_every_number(js_store):
    report = score_run(js_store, "A", by=["importance"], exclude_flag="contaminated", resamples=100)
    assert report.flagged == 3
    full, filtered = report.full.overall.summary, report.filtered.overall.summary
    assert full.scored == 9 and filtered.scored == 6
    assert filtered.accuracy == pytest.approx(4 / 6)
    # Supported F1 2/3, Refuted 1, NEI 2/3 once claims 1, 5 and 8 are gone.
    assert filtered.macro_f1 == pytest.approx(7 / 9)
    assert (filtered.errors, filtered.missing, filtered.excluded) == (1, 1, 1)
    assert report.filtered.breakdowns["importance"]["Main"].summary.scored == 2
    assert report.filtered.overall.intervals["macro_f1"].estimate == pytest.approx(7 / 9)


def test_claim_types_count_an_item_in_each_of_its_types(demo_store):
    # demo-averitec claims 43-47: types [Num, Causal], [Event], [Num], [Quote], [Num, Event].
    answers = {
        43: ("ok", "Refuted"),
        44: ("ok", "Refuted"),
        45: ("ok", "Supported"),
        46: ("ok", "Supported"),
        47: ("ok", "Not Enough Evidence"),
    }
    make_run(demo_store, "av", 3, range(43, 48), answers)
    report = score_run(demo_store, "av", by=["claim-type"], resamples=0)
    types = {k: (v.summary.scored, v.summary.correct) for k, v in report.full.breakdowns["claim-type"].items()}
    assert types == {
        "Causal Claim": (1, 0),
        "Event/Property Claim": (2, 2),
        "Numerical Claim": (3, 2),
        "Quote Verification": (1, 0),
    }
    assert report.full.overall.summary.scored == 5


def test_abstentions_have_their_own_rate(demo_store):
    answers = {
        25: ("ok", "true"),
        26: ("abstain", "unknown"),
        27: ("ok", "false"),
        28: ("ok", "false"),
        29: ("abstain", "unknown"),
        30: ("parse_failure", None),
    }
    make_run(demo_store, "rfb", 2, range(25, 31), answers)
    s = score_run(demo_store, "rfb", resamples=0).full.overall.summary
    assert (s.scored, s.correct, s.abstentions) == (6, 2, 2)
    assert s.unknown_rate == pytest.approx(1 / 3) and s.parse_failure_rate == pytest.approx(1 / 6)
    gold = ["true", "false", "true", "false", "true", "false"]
    pred = ["true", "unknown", "false", "false", "unknown", PARSE_FAILURE]
    assert s.mcc == pytest.approx(matthews_corrcoef(gold, pred))
    assert s.macro_f1 == pytest.approx(f1_score(gold, pred, labels=["true", "false"], average="macro", zero_division=0))


def test_a_list_attribute_and_a_missing_one(demo_store):
    make_run(demo_store, "av", 3, [43, 44], {43: ("ok", "Refuted")})
    report = score_run(demo_store, "av", by=["attr.reporting_source", "attr.nothing"], resamples=0)
    assert set(report.full.breakdowns["attr.reporting_source"]) == {"Twitter", "Facebook"}
    assert list(report.full.breakdowns["attr.nothing"]) == [NO_VALUE]


def test_comparison_on_shared_items(js_store):
    result = compare_runs(js_store, "A", "B", resamples=300).full
    # Shared (scored in both): 1,2,3,4,5,7,8. A right 1,2,5,7; B right 2,3,4,5,7.
    assert result.shared == 7
    assert result.deltas["accuracy"].a == pytest.approx(4 / 7)
    assert result.deltas["accuracy"].delta == pytest.approx(1 / 7)
    assert (result.mcnemar.b, result.mcnemar.c) == (1, 2)
    assert result.mcnemar.p_value == pytest.approx(1.0)
    assert result.right_to_wrong == [1] and result.wrong_to_right == [3, 4]
    assert result.correction_rate == pytest.approx(2 / 3) and result.a_wrong == 3
    assert result.right_to_wrong_filter == "run:A right run:B wrong"
    # The pure functions agree on the same shared items.
    gold = ["Refuted", "Supported", "NotEnoughInfo", "Supported", "Refuted", "NotEnoughInfo", "Refuted"]
    a = ["Refuted", "Supported", "Supported", PARSE_FAILURE, "Refuted", "NotEnoughInfo", "Supported"]
    b = ["Supported", "Supported", "NotEnoughInfo", "Supported", "Refuted", "NotEnoughInfo", "Supported"]
    assert mcnemar(gold, a, b) == result.mcnemar
    assert corrections([1, 2, 3, 4, 5, 7, 8], gold, a, b).correction_rate == result.correction_rate
    assert paired_bootstrap(gold, a, b, JS, resamples=300) == result.paired["macro_f1"]


def test_flipped_items_match_the_browser_filter(js_store):
    result = compare_runs(js_store, "A", "B", resamples=0).full
    assert js_store.claims.ids(result.right_to_wrong_filter) == result.right_to_wrong
    assert js_store.claims.ids(result.wrong_to_right_filter) == result.wrong_to_right


def test_flips_without_flagged_claims_leave_them_out_of_the_filter_too(js_store):
    flipped = compare_runs(js_store, "A", "B", resamples=0).full
    flagged = (flipped.right_to_wrong + flipped.wrong_to_right)[:1]
    js_store.annotations.flag(flagged, "contaminated")
    result = compare_runs(js_store, "A", "B", exclude_flag="contaminated", resamples=0).filtered
    assert flagged[0] not in result.right_to_wrong + result.wrong_to_right
    assert js_store.claims.ids(result.right_to_wrong_filter) == result.right_to_wrong
    assert js_store.claims.ids(result.wrong_to_right_filter) == result.wrong_to_right


def test_comparison_per_slice(js_store):
    result = compare_runs(js_store, "A", "B", by="importance", resamples=0).full
    slices = {s.value: s for s in result.slices}
    # Main shared: 1, 5, 7 (A right all; B wrong on 1). Sub: 2, 3, 8. Irrelevant: 4.
    assert slices["Main"].shared == 3
    assert slices["Main"].deltas["accuracy"].delta == pytest.approx(-1 / 3)
    assert (slices["Sub"].mcnemar.b, slices["Sub"].mcnemar.c) == (0, 1)
    assert slices["Irrelevant"].deltas["accuracy"].delta == pytest.approx(1.0)


def test_user_errors_name_the_problem(js_store):
    with pytest.raises(ScoringError, match="no run 'nope'"):
        score_run(js_store, "nope")
    with pytest.raises(ScoringError, match="unknown field 'importanse'.*importance"):
        score_run(js_store, "A", by=["importanse"])
    with pytest.raises(ScoringError, match="2024-13-01"):
        parse_cutoffs(["2024-13-01"])
    with pytest.raises(ScoringError, match="cutoff date for run 'A'"):
        score_runs(js_store, ["A"], by=["cutoff"])
    make_run(js_store, "rfb", 2, [25], {})
    with pytest.raises(ScoringError, match="different label spaces"):
        compare_runs(js_store, "A", "rfb")


def test_cutoffs_per_run():
    cutoff_for = parse_cutoffs(["2024-01-01", "B=2025-06-01"])
    assert cutoff_for(Run(name="A", model="m")) == "2024-01-01"
    assert cutoff_for(Run(name="B", model="m")) == "2025-06-01"
    assert [f.name for f in parse_fields(["claim-type", "flag:contaminated", "attr.x", "task"])] == [
        "claim-type",
        "flag:contaminated",
        "attr.x",
        "task",
    ]


def test_a_value_holding_the_separator_takes_the_slow_path(js_store):
    js_store.db.execute("UPDATE claims SET domain = 'a\x1fb' WHERE id = 2")
    js_store.db.conn.commit()
    report = score_run(js_store, "A", by=["domain"], resamples=0)
    assert report.full.breakdowns["domain"]["a\x1fb"].summary.scored == 1
    assert sum(s.summary.scored for s in report.full.breakdowns["domain"].values()) == 9


def test_live_run_follows_another_connection(js_store, db_path):
    from store import Store

    fields = parse_fields(["importance", "flag:contaminated"])
    live = load_live_run(js_store, "A", fields, exclude_flag="contaminated")
    assert live.summary().scored == 9
    other = Store.open(db_path)
    try:
        other.runs.record(Prediction(run_id=live.run.id, claim_id=10, status="ok", verdict="Refuted"))
        other.runs.record(Prediction(run_id=live.run.id, claim_id=6, status="ok", verdict="Refuted"))
        other.runs.record(Prediction(run_id=live.run.id, claim_id=8, status="ok", verdict="Refuted"))
    finally:
        other.close()
    assert live.poll(js_store) == 3
    fresh = score_run(js_store, "A", by=["importance", "flag:contaminated"], exclude_flag="contaminated", resamples=0)
    assert live.summary().confusion == fresh.full.overall.summary.confusion
    assert live.summary(filtered=True).confusion == fresh.filtered.overall.summary.confusion
    for value, summary in live.breakdown("importance").items():
        assert summary.confusion == fresh.full.breakdowns["importance"][value].summary.confusion
    assert live.summary().missing == 0 and live.summary().errors == 0
    assert live.poll(js_store) == 0  # read again, nothing new


def test_live_counts_equal_a_batch_read_with_claim_types(demo_store):
    answers = {43: ("ok", "Refuted"), 44: ("ok", "Refuted"), 47: ("error", None)}
    make_run(demo_store, "av", 3, range(43, 50), answers)
    fields = parse_fields(["claim-type"])
    live = load_live_run(demo_store, "av", fields)
    batch = summaries(read_items(demo_store, "av", fields))[1]["claim-type"]
    assert {k: v.confusion for k, v in live.breakdown("claim-type").items()} == {
        k: v.confusion for k, v in batch.items()
    }
    assert {k: v.missing for k, v in live.breakdown("claim-type").items()} == {k: v.missing for k, v in batch.items()}


def test_filter_values_are_quoted_for_the_filter_language():
    assert filter_value("gpt4") == "gpt4"
    assert filter_value("Not Enough Evidence") == '"Not Enough Evidence"'
    assert filter_value('a "b"') == '"a \\"b\\""'


def test_items_without_any_answer_score_nothing(demo_store):
    make_run(demo_store, "empty", 1, range(1, 5), {})
    report = score_run(demo_store, "empty", by=["importance"], resamples=100)
    s = report.full.overall.summary
    assert s.scored == 0 and s.missing == 4 and math.isnan(s.accuracy)
    assert report.full.overall.intervals == {}
    assert s.coverage == 0.0
