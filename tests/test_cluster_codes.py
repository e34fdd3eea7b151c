"""A cluster field read only as cluster numbers (each distinct value coded once) numbers the
clusters exactly as reading it as a breakdown column does, whatever the values' scripts, case,
accents or emptiness: the same numbers give the same resamples, so the same figures."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from store import Prediction, Run
from workbench.metrics import NO_VALUE
from workbench.scoring.cluster_codes import ClusterListError, cluster_numbers_of
from workbench.scoring.fields import parse_cluster
from workbench.scoring.items import RunItems
from workbench.scoring.reading import encode_field
from workbench.scoring.runs import ScoringError, read_clustered, read_items

SPELLINGS = ["日本語の質問", "日本語の質問 ", "中文问题", "中文問題", "Straße", "STRASSE", "strasse", "ß", "ẞ"]
SPELLINGS += ["Café", "cafe\u0301", "CAFÉ", "café", "İstanbul", "istanbul", "a", "A", NO_VALUE, "", "\0", "a\0"]
ABSENT = object()
"""A claim without the attribute at all (the store sends '' for a NULL raw)."""
TEXTS = st.one_of(st.sampled_from(SPELLINGS), st.text(max_size=4), st.none())
JSON_VALUES = st.one_of(
    TEXTS.filter(lambda text: text is not None),
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([3.0, 2.5, -0.0]),
    st.lists(st.sampled_from(["x", "X", "日本", None]), max_size=3),
    st.just(ABSENT),
)


def by_texts(field, raws) -> np.ndarray:
    """Cluster numbers the way a breakdown column gives them: encode_field, then clustered_by."""
    column = encode_field(field, list(raws), None)
    n = len(raws)
    zeros = np.zeros(n, dtype=np.int64)
    items = RunItems(None, "", None, np.arange(n), zeros, zeros, {field.name: column})
    return items.clustered_by(field.name).clusters


@settings(max_examples=300, deadline=None)
@given(st.lists(TEXTS, max_size=40))
def test_codes_number_text_clusters_as_the_texts_path(raws):
    field = parse_cluster("question")
    assert cluster_numbers_of(field, raws).tolist() == by_texts(field, raws).tolist()


@settings(max_examples=300, deadline=None)
@given(st.lists(JSON_VALUES, max_size=40))
def test_codes_number_attribute_clusters_as_the_texts_path(values):
    field = parse_cluster("attr.topic")
    # As the store sends an attribute: json_array(attributes -> path), NULL when absent.
    raws = ["" if value is ABSENT else json.dumps([value], ensure_ascii=False) for value in values]
    try:
        expected = by_texts(field, raws).tolist()
    except ValueError:
        with pytest.raises(ClusterListError):
            cluster_numbers_of(field, raws)
        return
    assert cluster_numbers_of(field, raws).tolist() == expected


def _answer_all(store, name):
    claims = list(range(1, 25))
    run = store.runs.create(Run(name=name, dataset_id=1, model="m"), claims)
    for claim_id in claims:
        store.runs.record(Prediction(run_id=run.id, claim_id=claim_id, status="ok", verdict="Supported"))


QUESTIONS = ["日本語の質問", "Café", "café", None, "", "CAFÉ", "中文问题", "a\x1fb"]


@pytest.mark.parametrize("with_separator", [False, True])
def test_a_run_read_for_clusters_gets_the_breakdowns_numbers(demo_store, with_separator):
    _answer_all(demo_store, "A")
    shown = QUESTIONS if with_separator else QUESTIONS[:-1]  # a separator sends it row by row
    for claim_id in range(1, 25):
        question = shown[claim_id * 7 % len(shown)]
        demo_store.db.execute("UPDATE claims SET question = ? WHERE id = ?", [question, claim_id])
    field = parse_cluster("question")
    clustered = read_clustered(demo_store, "A", [], None, [], "question")
    assert clustered.cluster == "question" and "question" not in clustered.fields
    expected = read_items(demo_store, "A", [field]).clustered_by("question")
    assert clustered.clusters.tolist() == expected.clusters.tolist()
    assert clustered.cluster_count() == len(set(clustered.clusters.tolist()))


def test_a_cluster_attribute_holding_lists_is_refused_by_name(demo_store):
    _answer_all(demo_store, "A")
    demo_store.db.execute("""UPDATE claims SET attributes = '{"topic": ["x", "y"]}' WHERE id = 3""")
    with pytest.raises(ScoringError, match="attr.topic holds lists for some claims"):
        read_clustered(demo_store, "A", [], None, [], "attr.topic")


def _types_by_unique(clusters, columns, widths):
    """The cluster types as np.unique over their key pairs lists them (the draws' order)."""
    from workbench.metrics.clustered import _HASH_SALTS, _counted, _mix, _renumbered, _sum_uint64

    total, offsets = sum(widths), np.cumsum([0, *widths[:-1]])
    numbers, count = _renumbered(clusters)
    pairs = np.concatenate([numbers * total + offset + column for column, offset in zip(columns, offsets)])
    entries, counts = _counted(pairs, count * total)
    owner, cell = entries // total, entries % total
    entry = cell.astype(np.uint64) * np.uint64(1 << 40) + counts.astype(np.uint64)
    keys = np.stack([_sum_uint64(owner, _mix(entry + np.uint64(salt)), count) for salt in _HASH_SALTS], axis=1)
    _, first, multiplicity = np.unique(keys, axis=0, return_index=True, return_counts=True)
    vectors = np.zeros((count, total), dtype=np.int64)
    vectors[owner, cell] = counts
    return vectors[first], multiplicity


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 5), st.integers(0, 5)), max_size=80))
def test_cluster_types_come_in_the_order_the_draws_have_always_used(rows):
    from workbench.metrics.clustered import _cluster_vectors

    clusters = np.array([r[0] for r in rows], dtype=np.int64)
    a, b = np.array([r[1] for r in rows], dtype=np.int64), np.array([r[2] for r in rows], dtype=np.int64)
    types, multiplicity = _cluster_vectors(clusters, [a, b], [6, 6])
    expected_types, expected_multiplicity = _types_by_unique(clusters, [a, b], [6, 6])
    assert types.tolist() == expected_types.tolist()
    assert multiplicity.tolist() == expected_multiplicity.tolist()
