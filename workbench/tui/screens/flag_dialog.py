"""Flag (or unflag) one claim, the marked rows, or every claim matching the filter."""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.suggester import SuggestFromList
from textual.widgets import Button, Input, Label, RadioButton, RadioSet

from store import CHECKED_CLEAN
from workbench.render.display import one_line, printable
from workbench.tui.widgets.choosers import MarkedRadioButton
from workbench.tui.widgets.footer import KeyFooter

DEFAULT_KIND = "contaminated"


@dataclass
class FlagRequest:
    """What the user asked for in the flag dialog."""

    action: str  # "flag" or "unflag"
    kind: str
    note: str | None
    scope: str  # "claim", "marked" or "filter"
    claim_ids: list[int] = field(default_factory=list)
    filter_text: str = ""
    count: int | None = None

    def describe(self) -> str:
        verb = "flagged" if self.action == "flag" else "unflagged"
        if self.scope == "filter":
            where = f"{self.count:,} claims matching {one_line(self.filter_text, 40) or 'everything'}"
        elif len(self.claim_ids) == 1:
            where = f"claim {self.claim_ids[0]}"
        else:
            where = f"{len(self.claim_ids):,} marked claims"
        return f"{verb} {where} {one_line(self.kind, 30)}"


SCOPES = ("claim", "marked", "filter")


class ScopeSet(RadioSet):
    """The flag's scope. Enter flags the highlighted choice (space only chooses it)."""

    BINDINGS = [
        Binding(
            "enter",
            "flag_highlighted",
            "Flag",
            show=False,
            id="flag.scope_enter",
            tooltip="Flag the claims of the highlighted choice",
        )
    ]

    class Chosen(Message):
        """Enter on a scope: flag these claims."""

        def __init__(self, scope: str | None):
            super().__init__()
            self.scope = scope

    def action_flag_highlighted(self) -> None:
        index = self._selected
        enabled = index is not None and not self._nodes[index].disabled
        self.post_message(self.Chosen(SCOPES[index] if enabled else None))


class FlagDialog(ModalScreen[FlagRequest | None]):
    """Kind, note and scope of a flag; Enter flags (from any field), ctrl+r unflags,
    Escape cancels."""

    HELP = """\
Flag claims: a kind (contaminated by default; any word works, e.g. ambiguous), an
optional note, and which claims: the highlighted one, the marked rows (space marks
rows in the table) or every claim matching the filter (you confirm the count).
Flags show in the table's flag column and filter with flagged:KIND. u undoes."""
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="flag.cancel", tooltip="Close without flagging"),
        Binding("ctrl+r", "finish('unflag')", "Unflag", id="flag.unflag", tooltip="Remove this kind of flag instead"),
    ]

    def __init__(self, claim_id: int | None, marked: list[int], filter_text: str, count: int | None, kinds: list[str]):
        super().__init__()
        self.claim_id = claim_id
        self.marked = marked
        self.filter_text = filter_text
        self.count = count
        # An Input draws its suggestion raw: a kind with control characters is not offered.
        self.kinds = sorted({DEFAULT_KIND, CHECKED_CLEAN, *(k for k in kinds if printable(k) == k)})

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Flag claims", classes="dialog-title")
            with Horizontal(classes="form-row"):
                yield Label("kind", classes="form-label")
                yield Input(
                    value=DEFAULT_KIND,
                    placeholder="kind",
                    id="flag-kind",
                    compact=True,
                    suggester=SuggestFromList(self.kinds, case_sensitive=False),
                )
            with Horizontal(classes="form-row"):
                yield Label("note", classes="form-label")
                yield Input(placeholder="(optional)", id="flag-note", compact=True)
            with ScopeSet(id="flag-scope", compact=True):
                yield MarkedRadioButton(
                    self._scope_label("claim"),
                    value=self.claim_id is not None,
                    disabled=self.claim_id is None,
                    id="scope-claim",
                )
                yield MarkedRadioButton(
                    self._scope_label("marked"),
                    value=bool(self.marked) and self.claim_id is None,
                    disabled=not self.marked,
                    id="scope-marked",
                )
                yield MarkedRadioButton(self._scope_label("filter"), disabled=not self.count, id="scope-filter")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Flag ⏎", variant="primary", id="flag", compact=True)
                yield Button("Unflag ^r", variant="warning", id="unflag", compact=True)
                yield Button("Cancel", id="cancel", compact=True)
        yield KeyFooter()  # the dialog's own keys, over the screen's

    def _scope_label(self, scope: str) -> Text:
        if scope == "claim":
            return Text(f"this claim ({self.claim_id})" if self.claim_id is not None else "this claim")
        if scope == "marked":
            return Text(f"marked rows ({len(self.marked):,})")
        count = "counting…" if self.count is None else f"{self.count:,}"
        return Text(f"every claim matching the filter ({count})")

    def on_mount(self) -> None:
        if self.marked:
            self.query_one("#scope-marked", RadioButton).value = True
        self.query_one("#flag-kind", Input).focus()
        if self.count is None:
            self._count()

    @work(thread=True, exclusive=True, group="flag-count", exit_on_error=False)
    def _count(self) -> None:
        """Count the filter's claims (the dialog may open before, or without, a count)."""
        count = self.app.stores.get().claims.count(self.filter_text)
        self.app.call_from_thread(self._counted, count)

    def _counted(self, count: int) -> None:
        if not self.is_attached:  # closed before the count came back
            return
        self.count = count
        button = self.query_one("#scope-filter", RadioButton)
        button.label = self._scope_label("filter")
        button.disabled = not count

    @on(ScopeSet.Chosen)
    def _scope_chosen(self, event: ScopeSet.Chosen) -> None:
        event.stop()
        if event.scope is not None:
            self.action_finish("flag", event.scope)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_finish("flag")

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "cancel":
            self.dismiss(None)
        else:
            self.action_finish(event.button.id)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_finish(self, action: str, scope: str | None = None) -> None:
        """Flag (or unflag) the chosen scope's claims, or `scope`'s when given."""
        kind = self.query_one("#flag-kind", Input).value.strip()
        if not kind:
            self.notify("a flag needs a kind, e.g. contaminated", severity="warning")
            return
        note = self.query_one("#flag-note", Input).value.strip() or None
        if scope is None:
            pressed = self.query_one("#flag-scope", RadioSet).pressed_button
            scope = (pressed.id or "scope-claim").removeprefix("scope-") if pressed else "claim"
        ids = {"claim": [self.claim_id] if self.claim_id is not None else [], "marked": list(self.marked)}
        request = FlagRequest(action, kind, note, scope, ids.get(scope, []), self.filter_text, self.count)
        if scope != "filter" and not request.claim_ids:
            self.notify("no claim to flag", severity="warning")
            return
        self.dismiss(request)
