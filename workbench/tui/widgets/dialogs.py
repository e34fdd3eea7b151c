"""Small modal dialogs: ask for a line of text, confirm, read a long text."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from workbench.render.display import literal, printable
from workbench.tui.widgets.footer import KeyFooter


class TextPrompt(ModalScreen[str | None]):
    """One line of input: Enter gives it back, Escape gives None."""

    HELP = "Type, then Enter to accept or Escape to cancel."
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="dialog.cancel", tooltip="Close without an answer")]

    def __init__(self, title: str, placeholder: str = "", value: str = "", hint: str = ""):
        super().__init__()
        self.title_text = title
        self.placeholder = placeholder
        self.value = printable(value)  # an Input draws its text raw: no control characters in it
        self.hint = hint

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(literal(self.title_text), classes="dialog-title")
            yield Input(value=self.value, placeholder=self.placeholder, id="prompt-input")
            if self.hint:
                yield Label(literal(self.hint), classes="dialog-hint")
        yield KeyFooter()  # the dialog's own keys, over the screen's

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmDialog(ModalScreen[bool]):
    """A yes/no question; y or Enter on Yes confirms, n or Escape declines."""

    HELP = "y confirms, n or Escape declines."
    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes", tooltip="Go ahead"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no", tooltip="Do nothing"),
    ]

    def __init__(self, question: Text | str, yes: str = "Yes", no: str = "No"):
        super().__init__()
        self.question = question if isinstance(question, Text) else literal(question)
        self.yes, self.no = yes, no

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.question, classes="dialog-body")
            with Horizontal(classes="dialog-buttons"):
                yield Button(Text(f"{self.yes} (y)"), variant="warning", id="yes", compact=True)
                yield Button(Text(f"{self.no} (n)"), id="no", compact=True)
        yield KeyFooter()  # the dialog's own keys, over the screen's

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)


class TextViewer(ModalScreen[None]):
    """A long untrusted text shown literally (a model's raw output), scrollable."""

    HELP = "The text exactly as stored, control characters shown as \\x.. escapes. c copies it."
    BINDINGS = [
        Binding("escape,q", "close", "Close", id="viewer.close", tooltip="Back"),
        Binding("c", "copy", "Copy", id="viewer.copy", tooltip="Copy the text to the clipboard"),
    ]

    def __init__(self, title: str, text: str | None):
        super().__init__()
        self.title_text = title
        self.text = text or ""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog dialog-wide"):
            yield Label(literal(self.title_text), classes="dialog-title")
            with VerticalScroll(classes="viewer-body"):
                yield Static(literal(self.text) if self.text else Text("(empty)", style="dim"))
        yield KeyFooter()  # the dialog's own keys, over the screen's

    def action_close(self) -> None:
        self.dismiss(None)

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.text)
        self.app.notify(f"copied {len(self.text):,} characters", markup=False)


def plain_title(*parts: object) -> str:
    """Join untrusted parts into a printable one-line title."""
    return " ".join(printable(part) for part in parts if part not in (None, ""))
