"""Adding one's own failure category in triage (+): the key first, checked the moment it is
pressed (a key the screen uses, or another category's, is refused before any name is typed),
then the name, which a refusal never throws away."""

from __future__ import annotations

from collections.abc import Callable, Collection

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from workbench.render.display import printable
from workbench.tui.widgets.dialogs import TextPrompt
from workbench.tui.widgets.footer import KeyFooter


def key_refusal(key: str, reserved: Collection[str], taken: dict[str, str]) -> str | None:
    """Why `key` cannot be a category's key (None when it can); `taken`: key -> category name."""
    if key in reserved:
        return f"{key} is one of triage's own keys; not {' '.join(sorted(reserved))}"
    if key in taken:
        return f"{key} is already taken by {printable(taken[key])}"
    return None


class CategoryKeyPrompt(ModalScreen[str | None]):
    """One character: the key. A refused key is said at once and cleared; Enter with none
    gives "" (no key), Escape None."""

    HELP = "Press the new category's key (one character), then Enter; Enter alone gives it no key."
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="category_key.cancel", tooltip="Add no category")]

    def __init__(self, reserved: Collection[str], taken: dict[str, str]):
        super().__init__()
        self.reserved, self.taken = reserved, taken

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("New failure category: its key (one character, optional)", classes="dialog-title")
            yield Input(placeholder="e.g. 7", max_length=1, id="category-key")
            yield Label(Text("Enter alone: no key", style="dim"), id="category-key-said", classes="dialog-hint")
        yield KeyFooter()  # the dialog's own keys, over the screen's

    @on(Input.Changed, "#category-key")
    def _pressed(self, event: Input.Changed) -> None:
        if not event.value:
            return  # cleared (by us, after a refusal: its reason stays shown)
        why = key_refusal(event.value, self.reserved, self.taken)
        said = self.query_one("#category-key-said", Label)
        if why is None:
            said.update(Text("Enter: on to the name", style="dim"))
            return
        said.update(Text(why, style="bold red"))
        event.input.value = ""  # refused before any name is typed: press another

    @on(Input.Submitted, "#category-key")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


def ask_new_category(
    app, reserved: Collection[str], taken: dict[str, str], add: Callable[[str, str | None], None]
) -> None:
    """Ask the key, then the name; `add(name, key)` adds it (it may call ask_name again)."""

    def keyed(key: str | None) -> None:
        if key is not None:
            ask_name(app, key or None, add)

    app.push_screen(CategoryKeyPrompt(reserved, taken), keyed)


def ask_name(app, key: str | None, add: Callable[[str, str | None], None], name: str = "", why: str = "") -> None:
    """The name prompt; after a refusal (`why`) it opens again holding the name typed."""

    def named(text: str | None) -> None:
        if text and text.strip():
            add(text.strip(), key)

    title = "New failure category" + (f" (key {key})" if key else "")
    app.push_screen(TextPrompt(title, "e.g. Date confusion", name, hint=why), named)
