"""The agreement panel: how far a run's annotators agree, per category and overall, per
pair, the confusion of two annotators' categories, and everyone's progress."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Label, Static
from textual.worker import get_current_worker

from workbench.render.display import literal
from workbench.tui.errors import ReportsWorkerErrors
from workbench.tui.messages import DataChanged
from workbench.tui.widgets.footer import KeyFooter

PANEL_RESAMPLES = 1000


class AgreementScreen(ReportsWorkerErrors, Screen):
    """Agreement figures of one run's labels, read again when labels change."""

    HELP = """\
How far the run's annotators agree on failure categories, on the answers two or more of
them labelled. Per category (a yes/no decision per answer): the share of agreeing pairs,
Cohen's kappa (two annotators) or Fleiss' kappa (more), Krippendorff's alpha. Over whole
sets: exact agreement, kappa with each set one value, and Krippendorff's alpha with the
MASI distance (partial credit for overlapping sets). [lo, hi] is a 95% bootstrap interval
over answers. A dash says the figure cannot be computed, and the note under the tables
says why. The figures follow new labels as they are written, from any terminal."""
    BINDINGS = [
        Binding("escape", "back", "Back", id="agreement.back", tooltip="Back to triage"),
        Binding(
            "d",
            "adjudicate",
            "Adjudicate",
            id="agreement.adjudicate",
            tooltip="The answers annotators labelled differently",
        ),
    ]

    class Computed(Message):
        def __init__(self, view: RenderableType):
            super().__init__()
            self.view = view

    def __init__(self, run_id: int, run_name: str):
        super().__init__()
        self.run_id, self.run_name = run_id, run_name

    def compose(self) -> ComposeResult:
        header = Text("agreement ", style="bold")
        header.append_text(literal(self.run_name, "bold"))
        header.append(" · as ")
        header.append_text(literal(self.app.settings.annotator, "bold reverse"))
        yield Label(header, id="agreement-header")
        with VerticalScroll(id="agreement-body"):
            yield Static(Text("computing…", style="dim"), id="agreement-figures")
        yield KeyFooter()  # fitted to the width: whole keys only

    def on_mount(self) -> None:
        self._compute()

    @on(DataChanged)
    def _data_changed(self) -> None:
        self._compute()

    @work(thread=True, exclusive=True, group="agreement", exit_on_error=False)
    def _compute(self) -> None:
        from workbench.render.triage import agreement_view
        from workbench.triage.agreement import run_agreement

        found = run_agreement(self.app.stores.get(), self.run_id, PANEL_RESAMPLES)
        if not get_current_worker().is_cancelled:
            self.post_message(self.Computed(agreement_view(found)))

    @on(Computed)
    def _computed(self, message: Computed) -> None:
        self.query_one("#agreement-figures", Static).update(message.view)

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_adjudicate(self) -> None:
        from workbench.tui.screens.adjudication import AdjudicationScreen

        self.app.push_screen(AdjudicationScreen(self.run_id, self.run_name))
