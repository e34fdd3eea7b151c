"""Choose which runs the claims table marks (and which one is the focus run)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, SelectionList
from textual.widgets.selection_list import Selection

from store import Run
from workbench.render.display import printable
from workbench.tui.widgets.choosers import MarkedSelectionList
from workbench.tui.widgets.footer import KeyFooter


def run_label(run: Run) -> Text:
    """'#id name  model · setting · status' with every part literal (the id heads the table's
    column when two runs' names start alike, and works in filters as run:ID)."""
    label = Text(f"#{run.id} ", style="dim")
    label.append(printable(run.name), style="bold")
    details = " · ".join(printable(part) for part in (run.model, run.setting, run.status) if part)
    label.append(f"  {details}", style="dim")
    return label


class RunPicker(ModalScreen[list[int] | None]):
    """Tick runs; the first ticked is the focus run. Enter accepts, Escape cancels."""

    HELP = """\
Pick the runs whose verdicts the claims table shows (one marker column each, at most
four). The first ticked run is the focus run: n/N step through its errors, E/A/P show
its errors, abstentions and parse failures, t triages it."""
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="runs.cancel", tooltip="Keep the current runs"),
        Binding("enter", "accept", "Accept", id="runs.accept", tooltip="Show the ticked runs", priority=True),
    ]

    def __init__(self, runs: list[Run], chosen: list[int]):
        super().__init__()
        self.runs = runs
        self.chosen = chosen

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog dialog-wide"):
            yield Label("Runs shown in the table (space ticks, enter accepts)", classes="dialog-title")
            if not self.runs:
                yield Label("no runs yet: press r in the browser to start one", markup=False)
            yield MarkedSelectionList(
                *[Selection(run_label(run), run.id, run.id in self.chosen) for run in self.runs], id="run-list"
            )
        yield KeyFooter()  # the dialog's own keys, over the screen's

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_accept(self) -> None:
        selected = self.query_one(SelectionList).selected
        ordered = [i for i in self.chosen if i in selected] + [i for i in selected if i not in self.chosen]
        self.dismiss(ordered)
