"""Live counting: a bulk first load counts exactly what one-by-one records count, list
slices included, and the live poller reads only what changed."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from store import Prediction, Run
from tests.support.scoring import RUN_A, make_run
from tests.support.tui import add_run
from workbench.metrics import API_ERROR, MISSING, PARSE_FAILURE, LiveMetrics, Memberships, OutcomeCoder
from workbench.scoring.live import load_live_run
from workbench.scoring.runs import parse_fields, score_run

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


def same_counts(a: LiveMetrics, b: LiveMetrics) -> None:
    assert len(a) == len(b)
    assert a.summary().confusion == b.summary().confusion
    for field in a.slice_fields:
        assert a.slice_values(field) == b.slice_values(field)
        for value in b.slice_values(field):
            x, y = a.summary(field, value), b.summary(field, value)
            assert (x.confusion, x.errors, x.missing, x.excluded) == (y.confusion, y.errors, y.missing, y.excluded)


@settings(max_examples=150, deadline=None)
@given(batches(), batches())
def test_a_loaded_first_count_then_answers_counts_what_records_count(first, later):
    """`load` (numpy, what a live panel's first read uses), then records, updates and
    removals, counts what recording every item one at a time counts."""
    ids, gold, outcomes, slices = first
    keep = sorted({item: n for n, item in enumerate(ids)}.values())  # load takes each item once
    ids, gold, outcomes = [ids[n] for n in keep], [gold[n] for n in keep], [outcomes[n] for n in keep]
    slices = {f: [values[n] for n in keep] for f, values in slices.items()}
    loaded = LiveMetrics(CLASSES, "unknown", ("domain", "claim-type"))
    single = LiveMetrics(CLASSES, "unknown", ("domain", "claim-type"))
    coder = OutcomeCoder(CLASSES, "unknown")
    memberships = {}
    for field, values in slices.items():
        names = sorted(
            {
                v
                for value in values
                for v in ([value] if isinstance(value, str) or value is None else value)
                if v is not None
            }
        )
        pairs = [
            (n, names.index(v))
            for n, value in enumerate(values)
            for v in dict.fromkeys([value] if isinstance(value, str) or value is None else value)
            if v is not None
        ]
        memberships[field] = Memberships(
            tuple(names),
            np.array([m for m, _ in pairs], dtype=np.int64),
            np.array([c for _, c in pairs], dtype=np.int64),
        )
    loaded.load(np.array(ids, dtype=np.int64), coder.slots(gold, outcomes), memberships)
    for n, item in enumerate(ids):
        single.record(item, gold[n], outcomes[n], {f: values[n] for f, values in slices.items()})
    same_counts(loaded, single)
    later_ids, later_gold, later_outcomes, later_slices = later
    for n, item in enumerate(later_ids):
        if item in single and n % 3 == 0:  # a known item answered again: its slices stay
            loaded.update(item, later_gold[n], later_outcomes[n])
            single.update(item, later_gold[n], later_outcomes[n])
        elif n % 3 == 1:
            assert loaded.remove(item) == single.remove(item)
        else:
            values = {f: v[n] for f, v in later_slices.items()}
            loaded.record(item, later_gold[n], later_outcomes[n], values)
            single.record(item, later_gold[n], later_outcomes[n], values)
        same_counts(loaded, single)


def test_load_is_for_the_first_count_and_takes_each_item_once():
    live = LiveMetrics(CLASSES)
    with pytest.raises(ValueError, match="each item once"):
        live.load(np.array([3, 1, 3]), np.zeros(3, dtype=np.int64))
    live.load(np.array([1, 2]), np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="first items"):
        live.load(np.array([5]), np.zeros(1, dtype=np.int64))
    with pytest.raises(KeyError):
        live.update(9, "true", "true")


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
