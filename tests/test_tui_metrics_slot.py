"""Item 8: the slot for the metrics view — `m` and the palette push it when installed, and the
browser opens on a filter for it (a confusion-matrix cell's claims)."""

from __future__ import annotations

import sys
import types

from textual.screen import Screen
from textual.widgets import Label

from tests.test_tui_support import make_app, settle
from workbench.tui.screens.detail import ClaimDetailScreen
from workbench.tui.widgets.filter_bar import FilterBar


class FakeMetricsScreen(Screen):
    def compose(self):
        yield Label("fake metrics")


async def test_m_says_the_metrics_view_is_not_installed_yet(demo_store, db_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "workbench.tui.metrics_screen", None)  # import fails
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("m")
        await pilot.pause()
        assert any(n.message == "metrics view not installed yet" for n in app._notifications)


async def test_m_and_the_palette_open_an_installed_metrics_screen(demo_store, db_path, monkeypatch):
    module = types.ModuleType("workbench.tui.metrics_screen")
    module.MetricsScreen = FakeMetricsScreen
    monkeypatch.setitem(sys.modules, "workbench.tui.metrics_screen", module)
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("m")
        await settle(pilot, app)
        assert isinstance(app.screen, FakeMetricsScreen)
        app.pop_screen()
        await pilot.press("ctrl+p", *"Metrics")
        await settle(pilot, app)
        await pilot.press("enter")
        await settle(pilot, app)
        assert isinstance(app.screen, FakeMetricsScreen)


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


async def test_the_contamination_view_has_a_slot_too(demo_store, db_path, monkeypatch):
    opened = []

    class FakeContamination(FakeMetricsScreen):
        def __init__(self, path, claim_id=None):
            super().__init__()
            opened.append((path, claim_id))

    module = types.ModuleType("workbench.tui.contamination_screen")
    module.ContaminationScreen = FakeContamination
    monkeypatch.setitem(sys.modules, "workbench.tui.contamination_screen", module)
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("C")
        await settle(pilot, app)
        assert isinstance(app.screen, FakeContamination)
        assert opened == [(db_path, app.browser.table.current.id)]
    monkeypatch.setitem(sys.modules, "workbench.tui.contamination_screen", None)
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("C")
        await pilot.pause()
        assert any(n.message == "contamination view not installed yet" for n in app._notifications)
