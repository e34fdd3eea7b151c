"""Triage as a team in the TUI (issue 23): the annotator in the header, my queue and what is
left, blind review, the agreement panel, adjudication with a decision made meanwhile, the
History tab, and names shown literally."""

from __future__ import annotations

import pytest

from store import Store
from tests.support.tui import HOSTILE, add_run, make_app, rendered, screen_text, settle, until, wrong_label
from workbench.config import load_settings
from workbench.tui.screens.adjudication import AdjudicationScreen
from workbench.tui.screens.detail import ClaimDetailScreen
from workbench.tui.screens.team import AgreementScreen
from workbench.tui.screens.triage import TriageScreen

ME = "tester"  # conftest sets WORKBENCH_ANNOTATOR


@pytest.fixture
def team_run(demo_store):
    """A run with six wrong answers, handed to me and ben (blind), every answer to both."""
    store = demo_store
    ids = store.claims.ids("dataset:demo -label:Unclear -label:Unevaluable")[:6]
    run = add_run(store, "alpha", {i: ("ok", wrong_label(store.claims.get(i).label)) for i in ids})
    plan = [(store.runs.prediction(run.id, i).id, name) for i in ids for name in (ME, "ben")]
    store.assignments.create_round(run.id, "run:alpha wrong", [ME, "ben"], 1.0, 2, 1, True, "lead", plan)
    return store, run, ids


def prediction_id(store, run, claim_id):
    return store.runs.prediction(run.id, claim_id).id


def header(app) -> str:
    return rendered(app.screen.query_one("#triage-header"))


def panel(app) -> str:
    return rendered(app.screen.query_one("#triage-categories"))


async def open_triage(pilot, app, run) -> TriageScreen:
    await settle(pilot, app)
    app.open_triage(run.id)
    await settle(pilot, app)
    assert isinstance(app.screen, TriageScreen)
    return app.screen


async def test_my_queue_starts_at_what_is_left_and_r_moves_on(team_run, db_path):
    store, run, ids = team_run
    store.triage.set_done(prediction_id(store, run, ids[0]), ME)  # done in an earlier session
    app = make_app(db_path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_triage(pilot, app, run)
        assert f"as {ME}" in header(app) and "my queue 2 of 6 · 1 done, 5 left" in header(app)
        assert screen.queue[screen.index] == ids[1]
        await pilot.press("1", "r")
        await settle(pilot, app)
        assert "my queue 3 of 6 · 2 done, 4 left" in header(app)
        label = store.triage.label(prediction_id(store, run, ids[1]), ME)
        assert label.done and label.category_ids == {1}
        assert store.triage.label(prediction_id(store, run, ids[1]), "ben").category_ids == set()
        footer = screen_text(app).splitlines()[-1]
        assert "Agreement" in footer and "Adjudicate" in footer


async def test_blind_review_hides_the_others_until_i_have_reviewed(team_run, db_path):
    store, run, ids = team_run
    store.triage.set_categories(prediction_id(store, run, ids[0]), "ben", [2])
    store.triage.set_note(prediction_id(store, run, ids[0]), "ben", "the date is the catch")
    app = make_app(db_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await open_triage(pilot, app, run)
        assert "1 other label hidden until you mark it reviewed" in panel(app)
        assert "Flawed Reasoning" not in panel(app).split("My categories")[1].split("reviewed")[-1]
        assert "the date is the catch" not in panel(app)
        await pilot.press("3", "r", "N")
        await settle(pilot, app)
        assert "ben: Flawed Reasoning — the date is the catch" in panel(app)


async def test_my_name_and_others_names_are_shown_literally(team_run, db_path, monkeypatch):
    store, run, ids = team_run
    store.triage.set_done(prediction_id(store, run, ids[0]), ME)
    store.triage.set_categories(prediction_id(store, run, ids[0]), HOSTILE, [1])
    monkeypatch.setenv("WORKBENCH_ANNOTATOR", HOSTILE)
    app = make_app(db_path, settings=load_settings())
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, app)
        app.open_triage(run.id)
        await settle(pilot, app)
        assert "as [bold]x[/ \\x1b[2J [link=http://x]y[/link] [/] \\x1b[31mred" in header(app)
    monkeypatch.setenv("WORKBENCH_ANNOTATOR", ME)
    app = make_app(db_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await open_triage(pilot, app, run)
        await pilot.press("N")
        await settle(pilot, app)
        assert "[bold]x[/ \\x1b[2J [link=http://x]y[/link] [/] \\x1b[31mred: Knowledge Error" in panel(app)


async def test_the_agreement_panel_shows_the_demo_annotators_numbers(demo_store, db_path):
    from workbench.cli.demo import load_demo_team

    load_demo_team(demo_store)
    run = demo_store.runs.get("demo-checker")
    app = make_app(db_path)
    async with app.run_test(size=(110, 40)) as pilot:
        await open_triage(pilot, app, run)
        await pilot.press("a")
        await settle(pilot, app)
        assert isinstance(app.screen, AgreementScreen)
        figures = rendered_text(app.screen.query_one("#agreement-figures"))
        assert "13 answers labelled, 13 by two or more people" in figures
        assert "Cohen's kappa (each set one value)" in figures and "0.38" in figures
        assert "Knowledge Error" in figures and "ana · ben" in figures


def rendered_text(static) -> str:
    """What a Static holding Rich tables shows, as plain text."""
    import io

    from rich.console import Console

    console = Console(width=110, record=True, file=io.StringIO())
    console.print(static.content)
    return console.export_text()


async def test_the_agreement_panel_says_so_with_one_annotator(team_run, db_path):
    store, run, ids = team_run
    store.triage.set_categories(prediction_id(store, run, ids[0]), ME, [1])
    app = make_app(db_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await open_triage(pilot, app, run)
        await pilot.press("a")
        await settle(pilot, app)
        figures = rendered_text(app.screen.query_one("#agreement-figures"))
        assert "no agreement figure: only one annotator (tester)" in " ".join(figures.split())
        assert "nan" not in figures.lower()


async def test_adjudication_shows_every_label_and_a_decision_made_meanwhile_wins_first(team_run, db_path):
    store, run, ids = team_run
    first = prediction_id(store, run, ids[0])
    store.triage.set_categories(first, ME, [1])
    store.triage.set_categories(first, "ben", [2])
    store.triage.set_note(first, "ben", "misread the chart")
    app = make_app(db_path)
    async with app.run_test(size=(120, 34)) as pilot:
        await open_triage(pilot, app, run)
        await pilot.press("d")
        await settle(pilot, app)
        assert isinstance(app.screen, AdjudicationScreen)
        side = rendered_text(app.screen.query_one("#adjudication-labels"))
        assert "tester" in side and "ben" in side and "yours" in side and "ben: misread the chart" in side
        assert "not decided yet" in side
        answer = rendered(app.screen.query_one("#adjudication-answer Static"))
        assert store.claims.get(ids[0]).text in answer and "Explanation" in answer
        other = Store.open(db_path)
        try:  # someone else decides while this screen shows the item
            other.triage.adjudicate(first, [2], "ben is right", "cy", None)
        finally:
            other.close()
        await pilot.press("1", "s")
        await settle(pilot, app)
        await pilot.press(*"both", "enter")
        await settle(pilot, app)
        assert any("decided this answer meanwhile" in n.message for n in app._notifications)
        decision = store.triage.adjudication(first)
        assert (decision.adjudicator, decision.category_ids, decision.version) == ("cy", {2}, 1)
        assert "decision 1 by cy" in rendered_text(app.screen.query_one("#adjudication-labels"))
        await pilot.press("s")
        await settle(pilot, app)
        await pilot.press("enter")
        await settle(pilot, app)
        decision = store.triage.adjudication(first)
        assert (decision.adjudicator, decision.category_ids, decision.version) == (ME, {1}, 2)  # my draft, kept


async def test_the_history_tab_shows_changes_and_keeps_blind_labels_hidden(team_run, db_path):
    store, run, ids = team_run
    mine, theirs = prediction_id(store, run, ids[0]), prediction_id(store, run, ids[0])
    store.triage.set_categories(mine, ME, [1])
    store.triage.set_categories(mine, ME, [1, 3])
    store.triage.set_categories(theirs, "ben", [2])
    store.judging.set_person_score(mine, ME, 4.0)
    app = make_app(db_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        app.push_screen(ClaimDetailScreen(ids[0]))
        await settle(pilot, app)
        await pilot.press("9")
        await settle(pilot, app)
        text = rendered(app.screen.query_one("#text-history Static"))
        assert "Knowledge Error → Knowledge Error; Lost in Complex Text" in text
        assert "EQ score" in text and "— → 4" in text
        assert "ben" not in text and "1 change(s) to others' labels hidden" in text
        store.triage.set_done(mine, ME)
        app.data_changed()
        await until(pilot, lambda: "ben" in rendered(app.screen.query_one("#text-history Static")))
        assert "(none) → Flawed Reasoning" in rendered(app.screen.query_one("#text-history Static"))


async def test_a_long_queue_opens_at_what_is_left_past_its_first_page(store, db_path):
    from tests.support.tui import add_claims

    ids = add_claims(store, 260)
    run = add_run(store, "long", {i: ("ok", wrong_label(store.claims.get(i).label)) for i in ids})
    plan = [(prediction_id(store, run, i), ME) for i in ids]
    store.assignments.create_round(run.id, "run:long wrong", [ME], 0.0, 2, 1, True, "lead", plan)
    for i in ids[:230]:
        store.triage.set_done(prediction_id(store, run, i), ME)
    app = make_app(db_path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_triage(pilot, app, run)
        await until(pilot, lambda: screen.item is not None)
        assert screen.queue[screen.index] == ids[230]
        assert "my queue 231 of 260 · 230 done, 30 left" in header(app)
