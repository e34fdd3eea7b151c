"""Issue 33, item 15: Tab after `label:` offers the current dataset's gold labels first, in
that dataset's own order (the dataset the filter names, else the claim under the cursor)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.support.tui import make_app, settle
from workbench.tui.filter_completion import labels_first
from workbench.tui.widgets.filter_bar import FilterBar

names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zs")), min_size=1, max_size=8)
gold_maps = st.dictionaries(names, st.lists(names, min_size=1, max_size=5, unique=True), min_size=1, max_size=4)


@given(gold_maps, st.data())
def test_the_named_datasets_labels_come_first_in_its_order_and_none_is_lost(gold, data):
    dataset = data.draw(st.sampled_from(sorted(gold)))
    quoted = '"' + dataset.replace("\\", "\\\\").replace('"', '\\"') + '"'
    found = labels_first(f"dataset:{quoted} label:", gold)
    assert found[: len(gold[dataset])] == gold[dataset]
    assert sorted(found) == sorted({label for labels in gold.values() for label in labels})
    assert len(found) == len(set(found))


@given(gold_maps, st.data())
def test_without_a_dataset_term_the_cursors_dataset_leads(gold, data):
    current = data.draw(st.sampled_from(sorted(gold)))
    assert labels_first("label:", gold, current)[: len(gold[current])] == gold[current]
    assert labels_first("-dataset:x label:", gold, current)[: len(gold[current])] == gold[current]


async def test_tab_after_label_offers_the_filtered_datasets_label(demo_store, db_path):
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        bar = app.browser.query_one(FilterBar)
        await pilot.press("slash", *"dataset:demo-realfact label:", "tab")
        assert bar.input.value == "dataset:demo-realfact label:true"
        bar.input.value = ""
        await pilot.press(*"label:", "tab")  # the claim under the cursor is demo's
        assert bar.input.value == "label:Supported"
