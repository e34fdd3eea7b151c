"""Issue 33, item 6: the adjudication view shows every annotator's label of the answer being
decided at 80x24 (stacked, names whole) as at 140 columns (a column each)."""

from __future__ import annotations

import pytest

from store import ImportedLabel
from tests.support.tui import make_app, screen_text, settle
from workbench.cli.demo import load_demo_team
from workbench.tui.screens.adjudication import AdjudicationScreen

THIRD = "dr-chidimma-okonkwo-adeyemi"  # a long name: never cut to nothing


@pytest.fixture
def team_app(demo_store, db_path):
    """The demo team's labels, and a third annotator on the first disagreement."""
    load_demo_team(demo_store)
    run = demo_store.runs.get("demo-checker")
    first = demo_store.runs.prediction(run.id, 1)
    ids = {c.slug: c.id for c in demo_store.annotations.categories()}
    label = ImportedLabel(first.id, THIRD, frozenset({ids["knowledge-error"]}), None, True)
    demo_store.triage.import_labels([label], by="lead", source="test")
    return make_app(db_path), run


def adjudicate(run):
    async def run_before(pilot) -> None:
        app = pilot.app
        await settle(pilot, app)
        app.push_screen(AdjudicationScreen(run.id, run.name))
        await settle(pilot, app)
        await settle(pilot, app)

    return run_before


@pytest.mark.parametrize("size", [(80, 24), (140, 30)], ids=["80x24", "140x30"])
def test_adjudication_shows_every_label(snap_compare, team_app, size):
    app, run = team_app
    assert snap_compare(app, terminal_size=size, run_before=adjudicate(run))


@pytest.mark.parametrize("size", [(80, 24), (140, 30)])
async def test_each_annotators_categories_are_on_screen(team_app, size):
    app, run = team_app
    async with app.run_test(size=size) as pilot:
        await adjudicate(run)(pilot)
        shown = screen_text(app)
        side = "\n".join(line.split("▏", 1)[-1].rstrip() for line in shown.splitlines())
        if size[0] == 80:  # stacked: each name whole with what they gave, a long name above
            assert " ana  4 Misleading Information\n" in side, shown
            assert " ben  4 Misleading Information\n      6 Evidence ignored\n" in side, shown
            assert f" {THIRD}\n   1 Knowledge Error\n" in side, shown
            assert "1 Knowledge Error      1/3" in side and "6 Evidence ignored     1/3" in side, shown
        else:  # a column each, headed by the name (cut at 14 cells)
            header = next(line for line in side.splitlines() if "category" in line)
            assert header.split() == ["category", "ana", "ben", THIRD[:13] + "…", "yours"], header
