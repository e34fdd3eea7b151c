"""Live counting: a bulk first load counts exactly what one-by-one records count, list
slices included, and the live poller reads only what changed."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from store import Prediction, Run
from tests.test_scoring import RUN_A, make_run
from tests.test_tui_support import add_run
from workbench.metrics import API_ERROR, MISSING, PARSE_FAILURE, LiveMetrics
from workbench.scoring.runs import parse_fields, score_run
from workbench.scoring.live import load_live_run

CLASSES = ["true", "false"]
OUTCOMES = CLASSES + ["unknown", PARSE_FAILURE, API_ERROR, MISSING]
TYPES = ["Numerical", "Causal", "Quote"]


@st.composite
def batches(draw):
    n = draw(st.integers(0, 30))
    ids = draw(st.lists(st.integers(0, 12), min_size=n, max_size=n))
    gold = draw(st.lists(st.sampled_from(CLASSES + ["Unclear"]), min_size=n, max_size=n))
    outcomes = draw(st.lists(st.sampled_from(OUTCOMES), min_size=n, max_size=n))
    domains = draw(st.lists(st.sampled_from(["health", "sport", None]), min_size=n, max_size=n))
    types = draw(st.lists(st.lists(st.sampled_from(TYPES), max_size=3), min_size=n, max_size=n))
    return ids, gold, outcomes, {"domain": domains, "claim-type": types}


@settings(max_examples=150, deadline=None)
@given(st.lists(batches(), min_size=1, max_size=3))
def test_record_many_counts_what_record_counts(steps):
    bulk = LiveMetrics(CLASSES, "unknown", ("domain", "claim-type"))
    single = LiveMetrics(CLASSES, "unknown", ("domain", "claim-type"))
    for ids, gold, outcomes, slices in steps:
        bulk.record_many(ids, gold, outcomes, slices)
        for n, item in enumerate(ids):
            single.record(item, gold[n], outcomes[n], {f: values[n] for f, values in slices.items()})
    assert len(bulk) == len(single)
    assert bulk.summary().confusion == single.summary().confusion
    for field in ("domain", "claim-type"):
        assert bulk.slice_values(field) == single.slice_values(field)
        for value in single.slice_values(field):
            a, b = bulk.summary(field, value), single.summary(field, value)
            assert (a.confusion, a.errors, a.missing, a.excluded) == (b.confusion, b.errors, b.missing, b.excluded)


def test_a_poll_reads_only_the_new_answers(demo_store, db_path):
    run = make_run(demo_store, "A", 1, range(1, 13), RUN_A)
    live = load_live_run(demo_store, "A", parse_fields(["importance"]))
    assert live.poll(demo_store) == 0  # nothing new: the answers already counted are skipped
    demo_store.runs.record(Prediction(run_id=run.id, claim_id=10, status="abstain", verdict=None))
    assert live.poll(demo_store) == 1
    # JSFactCheck has no abstain label: an abstention there counts as unreadable.
    assert live.summary().parse_failures == 2
    assert live.summary().confusion == score_run(demo_store, "A", resamples=0).full.overall.summary.confusion


def test_a_run_over_datasets_without_a_dataset_id_is_scored(demo_store):
    # The runner leaves dataset_id empty when a run's claims come from several datasets.
    ids = demo_store.claims.ids("dataset:demo")[:4]
    add_run(demo_store, "loose", {i: ("ok", "Refuted") for i in ids})
    report = score_run(demo_store, "loose", resamples=0)
    assert report.full.dataset == "demo"
    assert report.full.overall.summary.scored + report.full.overall.summary.excluded == 4


def test_a_run_mixing_label_spaces_is_refused(demo_store):
    import pytest

    from workbench.scoring.runs import ScoringError

    ids = demo_store.claims.ids("dataset:demo")[:2] + demo_store.claims.ids("dataset:demo-realfact")[:2]
    demo_store.runs.create(Run(name="mixed", model="m"), ids)
    with pytest.raises(ScoringError, match="different label spaces"):
        score_run(demo_store, "mixed")
