"""Item 3: verdicts side by side, outcome looks, raw output, error views and next/previous error."""

from __future__ import annotations

import pytest

from tests.support.tui import add_run, make_app, screen_text, settle, wrong_label
from workbench.tui.screens.detail import ClaimDetailScreen
from workbench.tui.widgets.claim_table import ClaimTable
from workbench.tui.widgets.dialogs import TextViewer
from workbench.tui.widgets.filter_bar import FilterBar
from workbench.tui.widgets.verdicts import VerdictList


@pytest.fixture
def runs(demo_store):
    """Two runs on five scored demo claims: every kind of outcome."""
    store = demo_store
    ids = store.claims.ids("dataset:demo -label:Unclear -label:Unevaluable")[:5]
    golds = {i: store.claims.get(i).label for i in ids}
    beta = add_run(store, "beta", {ids[0]: ("ok", wrong_label(golds[ids[0]]))})
    alpha = add_run(
        store,
        "alpha",
        {
            ids[0]: ("ok", golds[ids[0]]),
            ids[1]: ("ok", wrong_label(golds[ids[1]])),
            ids[2]: ("abstain", None),
            ids[3]: ("parse_failure", None),
            ids[4]: ("error", None),
        },
        raw='{"verdict": "[bold]maybe[/", "note": "\x1b[31m"}',
    )
    return {"ids": ids, "golds": golds, "alpha": alpha, "beta": beta}


def marker(table: ClaimTable, claim_id: int, column: int = 0) -> str:
    """The outcome symbol the table shows for a claim and a run column."""
    from workbench.tui.widgets.columns import row_text

    row = next(r for r in table.window.rows if r.id == claim_id)
    line = row_text(row, table._columns, table.query.run_ids, False, table.scored).plain
    run_columns = [c for c in table._columns if c.key.startswith("run")]
    offset = sum(c.width + 1 for c in table._columns[: table._columns.index(run_columns[column])])
    return line[offset : offset + 3].strip()


async def test_table_marks_each_outcome_for_the_chosen_runs(runs, db_path):
    ids = runs["ids"]
    app = make_app(db_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        table = app.browser.table
        assert table.query.run_ids == (runs["alpha"].id, runs["beta"].id)  # newest first
        assert [marker(table, i) for i in ids] == ["✓", "✗", "∅", "?", "!"]
        assert marker(table, ids[0], column=1) == "✗"
        assert "alp" in screen_text(app) and "bet" in screen_text(app)


async def test_verdicts_side_by_side_with_three_distinct_failure_looks(runs, db_path):
    ids, golds = runs["ids"], runs["golds"]
    app = make_app(db_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        looks = {}
        for claim_id in ids:
            app.browser.table.jump_to(claim_id)
            await settle(pilot, app)
            await pilot.press("enter", "v")
            await settle(pilot, app)
            verdicts = app.screen.query_one(VerdictList)
            prompts = [o.prompt for o in verdicts.options]
            assert prompts[0].plain.startswith(f"gold label {golds[claim_id]}")
            alpha = next(p for p in prompts if p.plain.startswith("alpha"))
            looks[claim_id] = alpha
            await pilot.press("escape")
            await settle(pilot, app)
        right, wrong, abstain, unparsed, error = (looks[i] for i in ids)
        assert "✓ " + golds[ids[0]] in right.plain
        assert f"✗ {wrong_label(golds[ids[1]])}  (gold {golds[ids[1]]})" in wrong.plain
        assert "∅ abstained" in abstain.plain
        assert "? parse failure" in unparsed.plain
        assert "! API error: HTTP 500 from the server" in error.plain
        styles = {
            str(next(s.style for s in t.spans if t.plain[s.start : s.start + 1] in list("✓✗∅?!")))
            for t in (right, wrong, abstain, unparsed, error)
        }
        assert len(styles) == 5  # five looks, not just five words


async def test_both_runs_side_by_side_and_raw_output_one_key_away(runs, db_path):
    ids = runs["ids"]
    app = make_app(db_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        app.browser.table.jump_to(ids[3])
        await settle(pilot, app)
        await pilot.press("enter", "v")
        await settle(pilot, app)
        assert isinstance(app.screen, ClaimDetailScreen)
        await pilot.press("o")
        await settle(pilot, app)
        assert isinstance(app.screen, TextViewer)
        assert '{"verdict": "[bold]maybe[/", "note": "\\x1b[31m"}' in screen_text(app)
        await pilot.press("escape")
        app.browser.table.jump_to(ids[0])
        await settle(pilot, app)
        app.screen.show_claim(ids[0])
        await settle(pilot, app)
        text = "\n".join(o.prompt.plain for o in app.screen.query_one(VerdictList).options)
        assert "alpha" in text and "beta" in text


@pytest.mark.parametrize(
    "key, terms, expected",
    [
        ("E", "wrong", [1, 2, 3]),  # abstentions and parse failures count as wrong answers
        ("A", "status:abstain", [2]),
        ("P", "status:parse_failure", [3]),
    ],
)
async def test_error_views_are_filters_on_the_focus_run(runs, db_path, key, terms, expected):
    ids = runs["ids"]
    app = make_app(db_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        await pilot.press(key)
        await settle(pilot, app)
        assert app.browser.query_one(FilterBar).text == f"run:alpha {terms}"
        assert [row.id for row in app.browser.table.window.rows] == [ids[i] for i in expected]


async def test_next_and_previous_error_keys(runs, db_path):
    ids = runs["ids"]
    app = make_app(db_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        table = app.browser.table
        table.jump_to(ids[0])
        await settle(pilot, app)
        await pilot.press("n")
        await settle(pilot, app)
        assert table.current.id == ids[1]
        await pilot.press("n")
        await settle(pilot, app)
        assert table.current.id == ids[2]
        await pilot.press("N")
        await settle(pilot, app)
        assert table.current.id == ids[1]
        # And from the detail screen, which follows along.
        await pilot.press("enter", "n")
        await settle(pilot, app)
        assert app.screen.claim_id == ids[2]
