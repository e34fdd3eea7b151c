"""Item 8: `m` and the palette open the metrics view on the runs shown as columns, `C` the
contamination view on the highlighted claim, and the browser opens on a filter for them
(a confusion-matrix cell's claims)."""

from __future__ import annotations

from tests.support.tui import add_run, gold, make_app, settle
from workbench.tui.screens.contamination.screen import ContaminationScreen
from workbench.tui.screens.detail import ClaimDetailScreen
from workbench.tui.screens.metrics.screen import MetricsScreen
from workbench.tui.widgets.filter_bar import FilterBar


async def test_m_and_the_palette_open_metrics_on_the_chosen_runs(demo_store, db_path):
    claims = demo_store.claims.ids("dataset:demo")[:4]
    first = add_run(demo_store, "first", {c: ("ok", gold(demo_store, c)) for c in claims})
    second = add_run(demo_store, "second", {c: ("abstain", "unknown") for c in claims})
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        app.browser.choose_runs([first.id, second.id])  # what the v picker does
        app.browser.refresh_run_columns()
        await settle(pilot, app)
        await pilot.press("m")
        await settle(pilot, app)
        assert isinstance(app.screen, MetricsScreen)
        assert app.screen.run_ids == [first.id, second.id]
        app.pop_screen()
        await pilot.press("ctrl+p", *"Metrics")
        await settle(pilot, app)
        await pilot.press("enter")
        await settle(pilot, app)
        assert isinstance(app.screen, MetricsScreen)


async def test_show_claims_opens_the_browser_on_a_filter_from_any_screen(demo_store, db_path):
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("enter")
        await settle(pilot, app)
        assert isinstance(app.screen, ClaimDetailScreen)
        app.show_claims("label:Refuted importance:Main")
        await settle(pilot, app)
        assert app.screen is app.browser
        assert app.browser.query_one(FilterBar).text == "label:Refuted importance:Main"
        expected = demo_store.claims.ids("label:Refuted importance:Main")
        assert [row.id for row in app.browser.table.window.rows] == expected


async def test_c_opens_the_contamination_view_on_the_highlighted_claim(demo_store, db_path):
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "C")
        await settle(pilot, app)
        assert isinstance(app.screen, ContaminationScreen)
        assert app.screen.claim_id == app.browser.table.current.id
