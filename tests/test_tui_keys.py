"""The keys do what the help and the README say, and every choice is visible without colour:
Tab takes the filter bar's suggestion, Enter flags from anywhere in the flag dialog, the
dialog's count finishes from every screen, chosen radio buttons and runs carry a mark, and
metrics columns of runs with the same name prefix stay apart."""

from __future__ import annotations

from tests.support.scoring import RUN_A, RUN_B, make_run
from tests.support.tui import add_run, make_app, screen_text, settle, until
from tests.support.tui_metrics import Host, panel_text, settled
from workbench.render.display import run_names
from workbench.tui.screens.detail import ClaimDetailScreen
from workbench.tui.screens.flag_dialog import FlagDialog
from workbench.tui.screens.metrics.screen import MetricsScreen
from workbench.tui.screens.run_picker import RunPicker
from workbench.tui.widgets.filter_bar import FilterBar


async def test_tab_takes_the_suggested_field_and_enter_then_applies_the_filter(demo_store, db_path):
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("slash", *"impor")
        bar = app.browser.query_one(FilterBar)
        await until(pilot, lambda: getattr(bar.input, "_suggestion", "") == "importance:")
        await pilot.press("tab")
        assert bar.input.value == "importance:" and bar.input.has_focus
        await pilot.press(*"Main", "enter")
        await settle(pilot, app)
        assert app.browser.table.query.filter == "importance:Main"
        assert isinstance(app.screen, type(app.browser))  # no claim was opened


async def test_tab_without_a_suggestion_moves_on(demo_store, db_path):
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("slash", *"label:Refuted ")
        await pilot.press("tab")
        assert not app.browser.query_one(FilterBar).input.has_focus


async def test_the_flag_dialog_from_the_detail_screen_counts_the_filter(demo_store, db_path):
    app = make_app(db_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        app.browser.apply_filter("importance:Main")
        await settle(pilot, app)
        await pilot.press("enter")
        await settle(pilot, app)
        assert isinstance(app.screen, ClaimDetailScreen)
        app.browser.count = None  # as when the browser's count has not come back yet
        await pilot.press("f")
        await settle(pilot, app)
        assert isinstance(app.screen, FlagDialog)
        expected = demo_store.claims.count("importance:Main")
        assert f"every claim matching the filter ({expected:,})" in screen_text(app)
        assert not app.screen.query_one("#scope-filter").disabled


async def test_enter_on_the_scope_list_flags_the_highlighted_choice(demo_store, db_path):
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        target = app.browser.table.current.id
        await pilot.press("f")
        await settle(pilot, app)
        app.screen.query_one("#flag-scope").focus()
        await pilot.press("enter")  # the highlighted choice: this claim
        await settle(pilot, app)
        assert not isinstance(app.screen, FlagDialog)
        assert demo_store.annotations.flagged_claim_ids("contaminated") == {target}


async def test_chosen_radio_buttons_and_runs_carry_a_mark(demo_store, db_path):
    ids = demo_store.claims.ids("dataset:demo")[:3]
    add_run(demo_store, "first-run", {i: ("ok", "Refuted") for i in ids})
    add_run(demo_store, "second-run", {i: ("ok", "Supported") for i in ids})
    app = make_app(db_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        await pilot.press("f")
        await settle(pilot, app)
        lines = screen_text(app).splitlines()
        chosen = next(line for line in lines if "this claim (" in line)
        other = next(line for line in lines if "every claim matching" in line)
        assert "●" in chosen and "●" not in other
        await pilot.press("escape", "v")
        await settle(pilot, app)
        assert isinstance(app.screen, RunPicker)
        picker = app.screen.query_one("#run-list")
        picker.deselect_all()
        picker.select(picker.get_option_at_index(0).value)
        await settle(pilot, app)
        lines = screen_text(app).splitlines()
        ticked = [line for line in lines if "first-run" in line or "second-run" in line]
        assert sum("✓" in line for line in ticked) == 1


def test_run_names_that_would_read_alike_are_led_by_their_ids():
    class Named:
        def __init__(self, id, name):
            self.id, self.name = id, name

    runs = [Named(3, "smollm2-jsfactcheck-claim"), Named(4, "smollm2-jsfactcheck-claim-2"), Named(5, "other")]
    names = run_names(runs, 24)
    assert names[2] == "other"
    assert names[0].startswith("#3 ") and names[1].startswith("#4 ")
    assert len(set(names)) == 3 and all(len(name) <= 24 for name in names)


async def test_metrics_columns_of_runs_named_alike_stay_apart(demo_store, db_path):
    a = make_run(demo_store, "smollm2-jsfactcheck-claim", 1, range(1, 13), RUN_A)
    b = make_run(demo_store, "smollm2-jsfactcheck-claim-2", 1, range(1, 13), RUN_B)
    app = Host(db_path, [a.id, b.id])
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MetricsScreen) and settled(app.screen))
        text = panel_text(app.screen)
        assert f"#{a.id} smollm2" in text and f"#{b.id} smollm2" in text
