"""The metrics view's keys that change what it shows: the breakdown field (b / B), with or
without flagged claims (x), the flag kind (k) and the cutoff date (c) typed in, the flips
between two runs (f), a fresh read (R)."""

from __future__ import annotations

from textual import on
from textual.screen import Screen
from textual.widgets import Input

from store import FlagSpec, FlagSpecError
from workbench.render.display import printable
from workbench.scoring.fields import FieldError, check_cutoff


class ChangesTheView(Screen):
    """The metrics screen's actions and inputs that change the view, then read again.

    The subclass keeps the view's settings (fields, field_index, flag_kind, exclude,
    cutoff, update) and gives _show_field, _paint_header and _step.
    """

    def action_cycle_field(self, step: int) -> None:
        self.field_index = (self.field_index + step) % len(self.fields)
        self._show_field()
        self._paint_header()
        self._step()
        if self.field == "cutoff" and self.cutoff is None:
            self.action_edit("cutoff")

    def action_toggle_exclude(self) -> None:
        self.exclude = not self.exclude
        state = "without" if self.exclude else "including"
        self.notify(f"every number {state} claims flagged {printable(self.flag_kind)}", markup=False)
        self._step()

    def action_edit(self, input_id: str) -> None:
        self.query_one(f"#{input_id}", Input).focus()

    def action_flips(self) -> None:
        if self.update is None or len(self.update.runs) < 2:
            self.notify("flips need two runs: mark a second run in the claims browser first", severity="warning")
            return
        from workbench.tui.screens.flips import FlipsScreen

        base, other = (numbers.run.name for numbers in self.update.runs[:2])
        self.app.push_screen(FlipsScreen(base, other))

    def action_reload(self) -> None:
        self._step(force=True)

    @on(Input.Submitted, "#flag-kind")
    def _flag_kind_set(self, event: Input.Submitted) -> None:
        try:
            self.flag_kind = str(FlagSpec.parse(event.value))
        except FlagSpecError as error:
            self.notify(printable(error), severity="warning", markup=False)
            return
        self.query_one("#metrics-body").focus()
        self._show_field()
        self._step()

    @on(Input.Submitted, "#cutoff")
    def _cutoff_set(self, event: Input.Submitted) -> None:
        try:
            self.cutoff = check_cutoff(event.value) if event.value.strip() else None
        except FieldError as error:
            self.notify(printable(error), severity="error", markup=False)
            return
        self.query_one("#metrics-body").focus()
        self._show_field()
        self._step()
