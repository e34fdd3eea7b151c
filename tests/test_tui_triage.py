"""Item 6: triage walks a run's wrong answers; one key per category, notes, reviewed, own categories."""

from __future__ import annotations

import pytest

from tests.support.tui import add_run, make_app, open_with_key, rendered, screen_text, settle, wrong_label
from workbench.tui.screens.triage import TriageScreen


@pytest.fixture
def run(demo_store):
    store = demo_store
    ids = store.claims.ids("dataset:demo -label:Unclear -label:Unevaluable")[:4]
    golds = {i: store.claims.get(i).label for i in ids}
    answers = {ids[0]: ("ok", golds[ids[0]])}
    answers |= {i: ("ok", wrong_label(golds[i])) for i in ids[1:]}
    return add_run(store, "alpha", answers), ids


def assigned(store, run_id: int, claim_id: int) -> list[str]:
    prediction = store.runs.prediction(run_id, claim_id)
    return [c.slug for c in store.annotations.categories_for(prediction.id)]


def panel(app) -> str:
    return rendered(app.screen.query_one("#triage-categories"))


async def open_triage(pilot, app) -> TriageScreen:
    return await open_with_key(pilot, app, "t", TriageScreen)


async def test_category_keys_toggle_and_counts_follow(demo_store, db_path, run):
    store = demo_store
    alpha, ids = run
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_triage(pilot, app)
        assert "1 of 3 wrong" in rendered(screen.query_one("#triage-header"))
        assert screen.queue == ids[1:]
        await pilot.press("1", "2")
        await settle(pilot, app)
        assert assigned(store, alpha.id, ids[1]) == ["knowledge-error", "flawed-reasoning"]
        assert "[x] 1 Knowledge Error 1" in panel(app) and "[x] 2 Flawed Reasoning 1" in panel(app)
        await pilot.press("1")  # again: off
        await settle(pilot, app)
        assert assigned(store, alpha.id, ids[1]) == ["flawed-reasoning"]
        assert "[ ] 1 Knowledge Error 0" in panel(app)
        assert store.annotations.category_counts(alpha.id)["Flawed Reasoning"] == 1


async def test_reviewed_moves_on_and_notes_are_kept(demo_store, db_path, run):
    store = demo_store
    alpha, ids = run
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_triage(pilot, app)
        await pilot.press("e")
        await settle(pilot, app)
        await pilot.press(*"misread the year", "enter")
        await settle(pilot, app)
        prediction = store.runs.prediction(alpha.id, ids[1])
        assert store.annotations.review_of(prediction.id) == (False, "misread the year")
        assert "note: misread the year" in panel(app)
        await pilot.press("r")
        await settle(pilot, app)
        assert store.annotations.review_of(prediction.id) == (True, "misread the year")
        assert screen.index == 1 and "2 of 3 wrong" in rendered(screen.query_one("#triage-header"))
        assert store.claims.count(f"run:{alpha.id} reviewed") == 1
        await pilot.press("N")
        await settle(pilot, app)
        assert "reviewed ✓" in rendered(screen.query_one("#triage-header"))


async def test_own_category_with_its_own_key_and_the_triage_filter(demo_store, db_path, run):
    store = demo_store
    alpha, ids = run
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_triage(pilot, app)
        await pilot.press("plus")  # the key first (issue 33 item 15), then the name
        await settle(pilot, app)
        await pilot.press("7", "enter")
        await settle(pilot, app)
        await pilot.press(*"Date confusion", "enter")
        await settle(pilot, app)
        assert "7 Date confusion 0" in panel(app)
        await pilot.press("n", "7")
        await settle(pilot, app)
        assert assigned(store, alpha.id, ids[2]) == ["date-confusion"]
        assert "[x] 7 Date confusion 1" in panel(app)
        await pilot.press("escape")
        app.show_claims("triage:date-confusion")
        await settle(pilot, app)
        assert [row.id for row in app.browser.table.window.rows] == [ids[2]]


async def test_a_taken_key_is_refused_as_it_is_pressed(demo_store, db_path, run):
    """Issue 33 item 15: the key is asked first and refused at once, before any name is typed."""
    from workbench.tui.screens.new_category import CategoryKeyPrompt

    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_triage(pilot, app)
        await pilot.press("plus")
        await settle(pilot, app)
        await pilot.press("2")
        await settle(pilot, app)
        assert isinstance(app.screen, CategoryKeyPrompt)
        assert "2 is already taken by Flawed Reasoning" in rendered(app.screen.query_one("#category-key-said"))
        assert app.screen.query_one("#category-key").value == ""
        await pilot.press("8", "enter")
        await settle(pilot, app)
        await pilot.press(*"Another", "enter")
        await settle(pilot, app)
        added = [c for c in demo_store.annotations.categories() if c.name == "Another"]
        assert [c.key for c in added] == ["8"]


async def test_a_name_refused_comes_back_as_typed(demo_store, db_path, run):
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_triage(pilot, app)
        await pilot.press("plus", "enter")  # no key
        await settle(pilot, app)
        await pilot.press(*"Knowledge Error", "enter")  # a built-in category's name
        await settle(pilot, app)
        field = app.screen.query_one("#prompt-input")
        assert field.value == "Knowledge Error" and "already exists" in screen_text(app)


async def test_triage_without_wrong_answers_says_so(demo_store, db_path):
    ids = demo_store.claims.ids("dataset:demo -label:Unclear -label:Unevaluable")[:2]
    add_run(demo_store, "perfect", {i: ("ok", demo_store.claims.get(i).label) for i in ids})
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_triage(pilot, app)
        assert "no wrong answers" in rendered(screen.query_one("#triage-header"))


async def test_a_key_the_screen_uses_cannot_name_a_category(demo_store, db_path, run):
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_triage(pilot, app)
        await pilot.press("plus")
        await settle(pilot, app)
        await pilot.press("r")
        await settle(pilot, app)
        assert "r is one of triage's own keys" in rendered(app.screen.query_one("#category-key-said"))
        await pilot.press("escape")
        await settle(pilot, app)
        assert len(demo_store.annotations.categories()) == 6
