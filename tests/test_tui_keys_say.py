"""Item 1 of issue 20: every key does what the screen says. Tab in the filter bar completes
the token under the cursor and leaves the rest as typed (names are case-sensitive); the
claim detail's hints name keys that work there; space marks and moves; triage reaches its
evidence tabs without touching the category keys; a keymap typo is said at start."""

from __future__ import annotations

import pytest

from store import Dataset
from tests.support.tui import generated_claims, make_app, settle
from workbench.labels import JSFACTCHECK
from workbench.tui.filter_completion import Names, complete, extension
from workbench.tui.widgets.filter_bar import FilterBar

NAMES = Names(
    runs=["smollm2-jsfactcheck-claim+time", "my run"],
    datasets=["FactBench", "factbench", "demo"],
    flag_kinds=["contaminated", "ambiguous"],
    labels=["Refuted", "Not Enough Evidence", "Supported"],
)


@pytest.mark.parametrize(
    "typed, expected",
    [
        ('"vitamin D" Calder has', '"vitamin D" Calder has:'),
        ("dataset:FactBench lab", "dataset:FactBench label:"),
        ("Dataset:FactBench Lab", "Dataset:FactBench Label:"),
        ("-flagged:any impor", "-flagged:any importance:"),
        ("label:Refuted -flag", "label:Refuted -flagged:"),
        ("dataset:Fact", "dataset:FactBench"),
        ("dataset:fact", "dataset:factbench"),
        ("dataset:FACT", "dataset:FactBench"),  # typed in another case: the stored name
        ("run:smo", "run:smollm2-jsfactcheck-claim+time"),
        ("run:my", 'run:"my run"'),
        ('run:"my', 'run:"my run"'),
        ("has:pa", "has:pages"),
        ("flagged:amb", "flagged:ambiguous"),
        ("label:Ref", "label:Refuted"),
        ("-label:not", '-label:"Not Enough Evidence"'),
        ("run:smollm2-jsfactcheck-claim+time wro", "run:smollm2-jsfactcheck-claim+time wrong"),
    ],
)
def test_tab_completes_the_token_at_the_cursor_and_nothing_else(typed, expected):
    found = complete(typed, len(typed), NAMES)
    assert found is not None and found.value == expected and found.cursor == len(expected)


def test_a_token_in_the_middle_completes_and_what_follows_it_stays():
    typed = "dataset:FactBench lab Calder"
    found = complete(typed, len("dataset:FactBench lab"), NAMES)
    assert found.value == "dataset:FactBench label: Calder" and found.cursor == len("dataset:FactBench label:")
    assert complete(typed, len("dataset:Fact"), NAMES) is None  # inside a word: nothing to complete
    assert complete('"vitamin D', len('"vitamin D'), NAMES) is None  # a quoted phrase is searched as typed


def test_the_dimmed_suggestion_only_ever_adds_to_what_was_typed():
    assert extension("dataset:FactBench lab", NAMES) == "dataset:FactBench label:"
    assert extension("dataset:FACT", NAMES) is None  # that one replaces letters: Tab does it, not the dim text
    assert extension("label:Refuted ", NAMES) is None


async def test_tab_in_the_filter_bar_keeps_the_datasets_case(store, db_path):
    for name in ("FactBench", "factbench"):
        store.datasets.import_claims(
            Dataset(name=name, source_format="jsonl", label_space=JSFACTCHECK),
            generated_claims(3 if name == "FactBench" else 5, text=name + " claim {n}"),
        )
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("slash", *"dataset:FactBench lab")
        bar = app.browser.query_one(FilterBar)
        await pilot.press("tab")
        assert bar.input.value == "dataset:FactBench label:" and bar.input.has_focus
        await pilot.press(*"Refuted", "enter")
        await settle(pilot, app)
        assert app.browser.table.query.filter == "dataset:FactBench label:Refuted"
        shown = [row.id for row in app.browser.table.window.rows]
        assert shown == store.claims.ids("dataset:FactBench label:Refuted") and shown


async def test_a_keymap_typo_is_one_line_at_start_with_the_id_meant(demo_store, db_path, tmp_path, monkeypatch):
    from workbench.config import load_settings

    config = tmp_path / "config.toml"
    config.write_text('[keymap]\n"claims.flg" = "ctrl+f"\n"table.down" = "down,j,ctrl+n"\n"nothing.like.it" = "x"\n')
    monkeypatch.setenv("WORKBENCH_CONFIG", str(config))
    app = make_app(db_path, settings=load_settings())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        warnings = [str(n.message) for n in app._notifications if n.severity == "warning"]
    assert warnings == [
        "keymap: no key binding 'claims.flg'; did you mean 'claims.flag'? (it binds nothing)",
        "keymap: no key binding 'nothing.like.it'; ? lists the binding ids (it binds nothing)",
    ]
