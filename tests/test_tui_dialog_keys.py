"""Issue 33, item 15: a dialog's footer shows the dialog's own keys, not the keys of the
screen under it (which do nothing while the dialog is open)."""

from __future__ import annotations

from tests.support.tui import make_app, screen_text, settle
from workbench.tui.screens.flag_dialog import FlagDialog
from workbench.tui.widgets.dialogs import ConfirmDialog, TextPrompt, TextViewer


def footer(app) -> str:
    return screen_text(app).splitlines()[-1]


async def test_each_dialog_shows_its_own_keys(demo_store, db_path):
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        assert "f Flag" in footer(app) and "t Triage" in footer(app)  # the browser's keys
        await pilot.press("f")
        await settle(pilot, app)
        assert isinstance(app.screen, FlagDialog)
        shown = footer(app)
        assert "esc Cancel" in shown and "^r Unflag" in shown and "f Flag" not in shown, shown
        await pilot.press("escape")
        for dialog, keys in (
            (ConfirmDialog("Go?"), ["y Yes", "No"]),
            (TextViewer("raw", "text"), ["Close", "c Copy"]),
            (TextPrompt("Name"), ["esc Cancel"]),
        ):
            app.push_screen(dialog)
            await settle(pilot, app)
            shown = footer(app)
            assert all(key in shown for key in keys) and "t Triage" not in shown, shown
            app.pop_screen()
            await settle(pilot, app)
