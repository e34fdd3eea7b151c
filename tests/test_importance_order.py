"""Issue 33, item 15: importance sorts by its meaning, Main < Sub < Irrelevant, not
alphabetically: the browser's sort (keyset pages, both ways, on an index) and the
breakdowns of metrics."""

from __future__ import annotations

from typing import get_args

from hypothesis import given, settings
from hypothesis import strategies as st

from store import Dataset, PageRequest
from store.claims import SORT_COLUMNS
from store.records import Importance
from tests.support.tui import generated_claims
from workbench.labels import JSFACTCHECK
from workbench.metrics.breakdown import IMPORTANCE_LEVELS, NO_VALUE, breakdown, in_meaning_order

RANK = {None: 0, "Main": 1, "Sub": 2, "Irrelevant": 3}


def test_the_metrics_levels_are_the_stores():
    assert IMPORTANCE_LEVELS == get_args(Importance)


def walk(store, descending: bool, limit: int) -> list:
    """Every claim, page by page (keyset), as the browser reads them."""
    rows, after = [], None
    while True:
        page = store.claims.page(PageRequest(sort="importance", descending=descending, after=after, limit=limit))
        if not page:
            return rows
        rows += page
        after = (page[-1].sort_value, page[-1].id)


def test_pages_by_importance_follow_its_meaning_both_ways_and_use_the_index(store):
    claims = generated_claims(40)
    for n, claim in enumerate(claims):
        claim.importance = [None, "Irrelevant", "Main", "Sub"][n % 4]
    store.datasets.import_claims(Dataset(name="g", source_format="jsonl", label_space=JSFACTCHECK), claims)
    up = walk(store, False, 7)
    assert [(RANK[r.importance], r.id) for r in up] == sorted((RANK[r.importance], r.id) for r in up)
    assert len(up) == 40 and [r.importance for r in up][10:12] == ["Main", "Main"]
    down = walk(store, True, 6)
    assert [r.id for r in down] == [r.id for r in reversed(up)]
    back = store.claims.page(PageRequest(sort="importance", before=(up[20].sort_value, up[20].id), limit=5))
    assert [r.id for r in back] == [r.id for r in up[15:20]]
    plan = store.conn.execute(
        f"EXPLAIN QUERY PLAN SELECT c.id FROM claims c ORDER BY {SORT_COLUMNS['importance']}, c.id LIMIT 5"
    ).fetchall()
    assert "claims_importance_rank" in str(plan)


@given(st.lists(st.sampled_from([*IMPORTANCE_LEVELS, None]), min_size=1, max_size=30))
@settings(max_examples=50)
def test_a_breakdown_by_importance_lists_it_in_meaning(levels):
    gold = ["Supported"] * len(levels)
    found = list(breakdown(gold, gold, levels, ["Supported", "Refuted"]))
    order = [NO_VALUE, *IMPORTANCE_LEVELS]
    assert found == sorted({NO_VALUE if v is None else v for v in levels}, key=order.index)


@given(st.lists(st.text(max_size=5), min_size=1, max_size=10))
def test_other_values_still_sort_by_their_text(values):
    if not set(values) <= {*IMPORTANCE_LEVELS, NO_VALUE}:
        assert in_meaning_order(values) == sorted(set(values), key=str)
