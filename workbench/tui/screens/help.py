"""Help: the focused widget's help, the keys that apply here, every key, the filter language."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from store import FILTER_HELP
from workbench.render.verdicts import LOOKS, flag_legend
from workbench.tui.key_catalogue import binding_owners, own_bindings
from workbench.tui.widgets.footer import KeyFooter


def reflow(help_text: str) -> str:
    """Help paragraphs as flowing text (the terminal wraps them at its own width)."""
    paragraphs = [" ".join(block.split()) for block in help_text.strip().split("\n\n")]
    return "\n\n".join(paragraphs)


def merge_keys(bindings: list[Binding]) -> list[Binding]:
    """One entry per binding id with all its keys (Textual lists each key separately)."""
    merged: dict[str, Binding] = {}
    for binding in bindings:
        known = merged.get(binding.id)
        if known is None:
            merged[binding.id] = binding
        elif binding.key not in known.key.split(","):
            merged[binding.id] = dataclasses.replace(known, key=f"{known.key},{binding.key}")
    return list(merged.values())


def key_lines(app, bindings: Iterable[Binding]) -> Text:
    """'  key          description — tooltip   [binding id]' per binding, with the user's keymap."""
    text = Text()
    keymap = getattr(app, "_keymap", {}) or {}
    for binding in bindings:
        if binding.id and binding.id in keymap:
            binding = dataclasses.replace(binding, key=keymap[binding.id])
        keys = ", ".join(
            app.get_key_display(dataclasses.replace(binding, key=k.strip())) for k in binding.key.split(",")
        )
        text.append(f"  {keys:<14}", style="bold")
        text.append(binding.description or binding.action)
        if binding.tooltip:
            text.append(f" — {binding.tooltip}", style="dim")
        if binding.id:
            text.append(f"  [{binding.id}]", style="italic dim")
        text.append("\n")
    return text


def help_text(app, target: Widget | None, here: list[Binding]) -> Text:
    """The whole help page."""
    text = Text()
    if target is not None and getattr(target, "HELP", None):
        text.append(f"{type(target).__name__}\n", style="bold underline")
        text.append(reflow(target.HELP) + "\n\n")
    here = merge_keys([binding for binding in here if binding.id])
    if here:
        text.append("Keys here\n", style="bold underline")
        text.append_text(key_lines(app, here))
        text.append("\n")
    text.append("Every key (binding ids in brackets: remap them in config [keymap])\n", style="bold underline")
    for title, owner in binding_owners(type(app)):  # found in the code: every screen, none forgotten
        bindings = own_bindings(owner)
        if bindings:
            text.append(f"{title}\n", style="bold")
            text.append_text(key_lines(app, bindings))
    text.append("  ctrl+p        Command palette — filter presets, runs, triage, flag, jump, metrics, themes\n")
    text.append("\nMarks\n", style="bold underline")
    text.append("  A run's column (one per chosen run):\n")
    for look in LOOKS.values():
        text.append(f"  {look.symbol}", style=look.style)
        text.append(f"  {look.word}\n")
    text.append("  The flag column (⚑ and a letter per flag kind):\n")
    text.append_text(flag_legend())
    text.append("\nFilter language\n", style="bold underline")
    text.append(FILTER_HELP + "\n")
    return text


class HelpScreen(Screen):
    """Scrollable help; Escape, q or ? closes it."""

    HELP = "The help page. ↑/↓ and PageUp/PageDown scroll; Escape closes."
    BINDINGS = [Binding("escape,q,question_mark,f1", "close", "Close", id="help.close", tooltip="Close the help")]

    def __init__(self, target: Widget | None = None, here: list[Binding] | None = None):
        super().__init__()
        self.target = target
        self.here = list(dict.fromkeys(here or []))

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body"):
            yield Static(help_text(self.app, self.target, self.here))
        yield KeyFooter()  # fitted to the width: whole keys only

    def on_mount(self) -> None:
        self.query_one("#help-body").focus()

    def action_close(self) -> None:
        self.app.pop_screen()
