"""Item 7: footer keys, help (F1 and ?), the command palette, the user's keymap, themes, NO_COLOR,
and the module entry point that `workbench serve` runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from textual.binding import Binding

from store import FILTER_HELP
from tests.support.tui import REPO_ROOT, add_run, make_app, rendered, screen_text, settle
from workbench.config import load_settings
from workbench.tui.app import WorkbenchApp
from workbench.tui.key_catalogue import binding_owners
from workbench.tui.screens.flag_dialog import FlagDialog
from workbench.tui.screens.help import HelpScreen, help_text
from workbench.tui.screens.run_picker import RunPicker
from workbench.tui.widgets.dialogs import ConfirmDialog, TextPrompt, TextViewer


def all_binding_owners() -> list[type]:
    owners = [owner for _, owner in binding_owners(WorkbenchApp)] + [
        TextPrompt,
        ConfirmDialog,
        TextViewer,
        RunPicker,
        HelpScreen,
    ]
    return list(dict.fromkeys(owners))


def test_every_binding_has_an_id_and_a_tooltip():
    missing = [
        f"{owner.__name__}: {binding.key}"
        for owner in all_binding_owners()
        for binding in owner.BINDINGS
        if isinstance(binding, Binding) and not (binding.id and binding.tooltip)
    ]
    assert missing == []


def test_binding_ids_are_unique_across_the_app():
    ids = [b.id for owner in all_binding_owners() for b in owner.BINDINGS if isinstance(b, Binding)]
    assert len(ids) == len(set(ids))


async def test_footer_shows_the_keys_that_apply_now(demo_store, db_path):
    app = make_app(db_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, app)
        footer = screen_text(app).splitlines()[-1]
        assert "Flag" in footer and "Run" in footer and "Open" in footer
        await pilot.press("enter")
        await settle(pilot, app)
        footer = screen_text(app).splitlines()[-1]
        assert "Back" in footer and "Verdicts" in footer and "Flag" in footer


async def test_help_lists_every_key_and_the_filter_language(demo_store, db_path):
    app = make_app(db_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        await pilot.press("question_mark")
        await settle(pilot, app)
        assert isinstance(app.screen, HelpScreen)
        text = rendered(app.screen.query_one("#help-body Static"))
        assert FILTER_HELP.splitlines()[1] in text
        for binding_id in ("claims.flag", "table.end", "detail.tab_verdicts", "triage.reviewed", "app.undo"):
            assert f"[{binding_id}]" in text
        assert text.startswith("ClaimTable")  # help for the focused widget comes first
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_f1_in_the_filter_bar_explains_the_filter_bar(demo_store, db_path):
    app = make_app(db_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        await pilot.press("slash", "f1")
        await settle(pilot, app)
        assert isinstance(app.screen, HelpScreen)
        assert rendered(app.screen.query_one("#help-body Static")).startswith("FilterBar\nThe filter bar.")


async def test_the_command_palette_offers_run_views_and_presets(demo_store, db_path):
    ids = demo_store.claims.ids("dataset:demo -label:Unclear -label:Unevaluable")[:3]
    add_run(demo_store, "alpha", {i: ("abstain", None) for i in ids})
    app = make_app(db_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+p")
        await pilot.press(*"Abstentions of run alpha")
        await settle(pilot, app)
        await pilot.press("enter")
        await settle(pilot, app)
        assert app.browser.table.query.filter == "run:alpha status:abstain"
        assert [r.id for r in app.browser.table.window.rows] == ids
        await pilot.press("ctrl+p", *"contaminated claims")
        await settle(pilot, app)
        await pilot.press("enter")
        await settle(pilot, app)
        assert app.browser.table.query.filter == "flagged:contaminated"


async def test_the_users_keymap_theme_and_annotator_apply(demo_store, db_path, tmp_path, monkeypatch):
    config = tmp_path / "config.toml"
    config.write_text('annotator = "ana"\ntheme = "textual-light"\n[keymap]\n"claims.flag" = "ctrl+f"\n')
    monkeypatch.setenv("WORKBENCH_CONFIG", str(config))
    monkeypatch.delenv("WORKBENCH_ANNOTATOR")
    app = make_app(db_path, settings=load_settings())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        assert app.theme == "textual-light"
        await pilot.press("f")
        await settle(pilot, app)
        assert not isinstance(app.screen, FlagDialog)
        await pilot.press("ctrl+f")
        await settle(pilot, app)
        assert isinstance(app.screen, FlagDialog)
        await pilot.press("enter")
        await settle(pilot, app)
        first = app.browser.table.window.rows[0].id
        assert demo_store.annotations.flags_for(first)[0].who == "ana"
        assert app.screen.active_bindings["ctrl+f"].binding.description == "Flag"
        await pilot.press("question_mark")
        await settle(pilot, app)
        help_text = rendered(app.screen.query_one("#help-body Static"))
        assert any(line.strip().startswith("^f") and "[claims.flag]" in line for line in help_text.splitlines())


async def test_an_unknown_theme_is_a_warning_not_a_crash(demo_store, db_path, tmp_path, monkeypatch):
    config = tmp_path / "config.toml"
    config.write_text('theme = "no-such-theme"\n')
    monkeypatch.setenv("WORKBENCH_CONFIG", str(config))
    app = make_app(db_path, settings=load_settings())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        assert any("unknown theme" in n.message for n in app._notifications)


async def test_no_color_is_respected(demo_store, db_path, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        # Textual strips colour on output; the workbench never forces it back (no styles by
        # escape codes, outcome symbols instead of colour alone).
        assert app.no_color
        assert any(type(f).__name__ == "LegibleMonochrome" for f in app._filters)


@pytest.mark.parametrize("colour", ["red", "magenta", "bold red", "blue", "#303030"])
@pytest.mark.parametrize("behind", ["#000000", "#1e1e1e", "#262626", "#ffffff"])
def test_no_color_greys_stay_readable_on_their_background(colour, behind):
    """Under NO_COLOR a red error or a red ✗ must not turn into dark grey on dark grey."""
    from rich.style import Style
    from textual.color import Color

    from workbench.tui.no_color import MIN_CONTRAST, legible_style

    style = legible_style(Style.parse(f"{colour} on {behind}"), Color.parse(behind))
    text, background = Color.from_rich_color(style.color), Color.from_rich_color(style.bgcolor)
    assert text.r == text.g == text.b and background.r == background.g == background.b  # greys only
    assert abs(text.brightness - background.brightness) >= MIN_CONTRAST


def test_the_module_entry_point_textual_serve_runs():
    result = subprocess.run(
        [sys.executable, "-m", "workbench.tui", "--help"], capture_output=True, text=True, cwd=REPO_ROOT, timeout=60
    )
    assert result.returncode == 0
    assert "--db" in result.stdout


@pytest.mark.parametrize("width, height", [(80, 24), (120, 40)])
async def test_every_screen_opens_at_small_and_large_sizes(demo_store, db_path, width, height):
    ids = demo_store.claims.ids("dataset:demo -label:Unclear -label:Unevaluable")[:2]
    add_run(demo_store, "alpha", {ids[0]: ("ok", "Refuted"), ids[1]: ("ok", "Supported")})
    app = make_app(db_path)
    async with app.run_test(size=(width, height)) as pilot:
        await settle(pilot, app)
        for keys in (
            ["enter"],
            ["escape", "r"],
            ["escape", "f"],
            ["escape", "t"],
            ["escape", "v"],
            ["escape", "question_mark"],
            ["escape", "g"],
        ):
            await pilot.press(*keys)
            await settle(pilot, app)
            assert screen_text(app).strip()


def test_workbench_tui_opens_the_app_on_the_database(demo_store, db_path, monkeypatch):
    from click.testing import CliRunner

    import workbench.tui
    from workbench.cli import main

    opened = []
    monkeypatch.setattr(
        workbench.tui,
        "run_workbench",
        lambda path, annotator, compare=None, cluster=None: opened.append((path, annotator)),
    )
    result = CliRunner().invoke(main, ["--db", str(db_path), "tui"])
    assert result.exit_code == 0 and opened == [(db_path, "tester")]
    as_ana = CliRunner().invoke(main, ["--db", str(db_path), "tui", "--annotator", "ana"])
    assert as_ana.exit_code == 0 and opened[-1] == (db_path, "ana")
    missing = CliRunner().invoke(main, ["--db", str(db_path.parent / "nope.db"), "tui"])
    assert missing.exit_code == 1 and "no database at" in missing.output


async def test_help_lists_every_key_of_every_screen(demo_store, db_path):
    """The help is made from the bindings found in the code: the metrics and contamination
    views' keys are there, and a screen added later cannot be forgotten."""
    from workbench.tui.key_catalogue import own_bindings

    app = make_app(db_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("question_mark")
        await settle(pilot, app)
        assert isinstance(app.screen, HelpScreen)
        text = help_text(app, None, []).plain  # what the help screen draws
    owners = binding_owners(WorkbenchApp)
    assert {"Metrics (m)", "Contamination (C)"} <= {title for title, _ in owners}
    missing = [binding.id for _, owner in owners for binding in own_bindings(owner) if f"[{binding.id}]" not in text]
    assert missing == []


def test_the_module_entry_point_refuses_a_missing_database_as_workbench_tui_does(tmp_path):
    """`python -m workbench.tui --db missing.db` ("the same, without the CLI") says what
    `workbench --db missing.db tui` says, exits 1, and creates no file (nor -wal/-shm)."""
    missing = tmp_path / "missing.db"
    module = subprocess.run(
        [sys.executable, "-m", "workbench.tui", "--db", str(missing)],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=60,
    )
    workbench = Path(sys.executable).with_name("workbench")
    cli = subprocess.run(
        [str(workbench), "--db", str(missing), "tui"], capture_output=True, text=True, cwd=REPO_ROOT, timeout=60
    )
    assert module.returncode == cli.returncode == 1
    assert module.stderr == cli.stderr and module.stderr.startswith(f"Error: no database at {missing};")
    assert list(tmp_path.iterdir()) == []
