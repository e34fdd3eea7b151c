"""Item 5: flag one claim, the marked rows or the whole filter (confirmed), see it, filter it, undo."""

from __future__ import annotations

from tests.support.tui import make_app, rendered, screen_text, settle
from workbench.tui.screens.flag_dialog import FlagDialog
from workbench.tui.widgets.dialogs import ConfirmDialog
from workbench.tui.widgets.filter_bar import FilterBar


def flagged(store, kind: str = "contaminated") -> set[int]:
    return store.annotations.flagged_claim_ids(kind)


async def test_flag_one_claim_with_a_note_see_it_filter_it_and_undo(demo_store, db_path):
    store = demo_store
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        table = app.browser.table
        await pilot.press("down", "down")
        target = table.current.id
        await pilot.press("f")
        await settle(pilot, app)
        assert isinstance(app.screen, FlagDialog)
        await pilot.press("tab", *"seen verbatim", "enter")
        await settle(pilot, app)
        assert flagged(store) == {target}
        flag = store.annotations.flags_for(target)[0]
        assert (flag.note, flag.who, flag.source) == ("seen verbatim", "tester", "manual")
        assert "⚑C" in screen_text(app)
        assert any("flagged claim" in n.message for n in app._notifications)
        # Filterable.
        bar = app.browser.query_one(FilterBar)
        bar.input.value = "flagged:contaminated"
        bar.input.focus()
        await pilot.press("enter")
        await settle(pilot, app)
        assert [row.id for row in table.window.rows] == [target]
        # u undoes.
        await pilot.press("u")
        await settle(pilot, app)
        assert flagged(store) == set()
        assert table.window.rows == []


async def test_marked_rows_are_flagged_together_and_ctrl_z_undoes(demo_store, db_path):
    store = demo_store
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        table = app.browser.table
        ids = [row.id for row in table.window.rows[:3]]
        await pilot.press("space", "space", "space")
        assert table.marked == set(ids)
        assert "3 marked" in rendered(app.browser.query_one("#status"))
        await pilot.press("f")
        await settle(pilot, app)
        app.screen.query_one("#flag-kind").value = "ambiguous"
        await pilot.press("enter")
        await settle(pilot, app)
        assert flagged(store, "ambiguous") == set(ids)
        assert "⚑A" in screen_text(app)
        await pilot.press("ctrl+z")
        await settle(pilot, app)
        assert flagged(store, "ambiguous") == set()


async def test_flagging_the_whole_filter_asks_with_the_count(demo_store, db_path):
    store = demo_store
    expected = set(store.claims.ids("label:Refuted"))
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        app.show_claims("label:Refuted")
        await settle(pilot, app)
        await pilot.press("f")
        await settle(pilot, app)
        app.screen.query_one("#scope-filter").value = True
        await pilot.click("#flag")
        await settle(pilot, app)
        assert isinstance(app.screen, ConfirmDialog)
        question = rendered(app.screen.query_one(".dialog-body"))
        assert f"Flag all {len(expected):,} claims matching" in question and "label:Refuted" in question
        await pilot.press("n")  # declining writes nothing
        await settle(pilot, app)
        assert flagged(store) == set()
        await pilot.press("f")
        await settle(pilot, app)
        app.screen.query_one("#scope-filter").value = True
        await pilot.click("#flag")
        await settle(pilot, app)
        await pilot.press("y")
        await settle(pilot, app)
        assert flagged(store) == expected
        await pilot.press("u")
        await settle(pilot, app)
        assert flagged(store) == set()


async def test_unflag_removes_and_undo_restores(demo_store, db_path):
    store = demo_store
    claim_id = store.claims.ids("")[0]
    store.annotations.flag([claim_id], "contaminated", note="from the pipeline run")
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("f")
        await settle(pilot, app)
        await pilot.press("ctrl+r")
        await settle(pilot, app)
        assert flagged(store) == set()
        await pilot.press("u")
        await settle(pilot, app)
        assert flagged(store) == {claim_id}
        assert store.annotations.flags_for(claim_id)[0].note == "from the pipeline run"
