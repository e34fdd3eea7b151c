"""The datasets: each one's claims and what curation kept, and the highlighted dataset's
curation funnel (how many claims each step removed) and fetched articles.

Enter browses the claims curation kept, a every claim of the dataset. Reads run on a worker
thread with its own database connection; names and notes are shown as typed.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from rich.console import Group
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Static

from workbench.render.curation import articles_table, curated_filter, dataset_filter, funnel_table
from workbench.render.display import one_line
from workbench.tui.errors import ReportsWorkerErrors
from workbench.tui.messages import DataChanged
from workbench.tui.widgets.footer import KeyFooter


@dataclass
class DatasetRow:
    name: str
    claims: int
    kept: int
    space: str


class DatasetsScreen(ReportsWorkerErrors, Screen):
    """Every dataset, and the curation funnel of the highlighted one."""

    HELP = """\
The datasets in the database. For the highlighted one: its curation funnel (each step of
`workbench curate`, what it was asked, how many claims it took out and how many were left;
a claim counts under the first step that removed it) and its fetched articles. Enter
shows the claims curation kept in the browser (-flagged:curated-out), a every claim of the
dataset. Details: docs/claimreview.md."""

    BINDINGS = [
        Binding("escape", "back", "Back", id="datasets.back", tooltip="Back to the claims browser"),
        Binding(
            "enter",
            "browse(True)",
            "Kept claims",
            id="datasets.kept",
            priority=True,
            tooltip="Browse the claims curation kept",
        ),
        Binding("a", "browse(False)", "All claims", id="datasets.all", tooltip="Browse every claim of the dataset"),
        Binding("R", "reload", "Reload", show=False, id="datasets.reload", tooltip="Read the datasets again"),
    ]
    AUTO_FOCUS = "#datasets"
    DEFAULT_CSS = """
    DatasetsScreen #datasets-header { height: 1; padding: 0 1; background: $panel; }
    DatasetsScreen #datasets { height: auto; max-height: 8; }
    DatasetsScreen #funnel-scroll { height: 1fr; padding: 0 1; }
    DatasetsScreen #funnel-scroll > Static { height: auto; }
    """

    class DatasetsRead(Message):
        def __init__(self, rows: list[DatasetRow]):
            super().__init__()
            self.rows = rows

    class FunnelRead(Message):
        def __init__(self, name: str, shown):
            super().__init__()
            self.name, self.shown = name, shown

    def __init__(self):
        super().__init__()
        self.rows: list[DatasetRow] = []
        self.highlighted: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text("reading the datasets…", style="dim"), id="datasets-header")
        yield DataTable(id="datasets", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="funnel-scroll"):
            yield Static(id="funnel")
        yield KeyFooter()  # fitted to the width: whole keys only

    def on_mount(self) -> None:
        table = self.query_one("#datasets", DataTable)
        table.add_column("dataset", key="name", width=30)
        table.add_column("claims", key="claims", width=8)
        table.add_column("kept", key="kept", width=8)
        table.add_column("label space", key="space", width=20)
        self._read_datasets()

    @work(thread=True, exclusive=True, group="datasets-list", exit_on_error=False)
    def _read_datasets(self) -> None:
        store = self.app.stores.get()
        rows = [
            DatasetRow(d.name, d.claim_count, store.curation.kept_count(d.id), d.label_space.name)
            for d in store.datasets.list()
        ]
        self.post_message(self.DatasetsRead(rows))

    @work(thread=True, exclusive=True, group="datasets-funnel", exit_on_error=False)
    def _read_funnel(self, name: str) -> None:
        from workbench.curation.funnel import dataset_funnel

        store = self.app.stores.get()
        dataset = store.datasets.get(name)
        if dataset is None:
            return
        funnel = dataset_funnel(store, dataset)
        counts = store.articles.dataset_counts(dataset.id)
        parts = (
            [funnel_table(funnel)]
            if funnel.curated
            else [
                Text(
                    f"{dataset.claim_count:,} claims, not curated yet ({curate_command(self.app.db_path, name)} ...)",
                    style="dim",
                )
            ]
        )
        if counts.with_url:
            parts += [Text(""), Text("oracle articles", style="bold"), articles_table(counts, [])]
        self.post_message(self.FunnelRead(name, Group(*parts)))

    @on(DatasetsRead)
    def _datasets_read(self, message: DatasetsRead) -> None:
        self.rows = message.rows
        table = self.query_one("#datasets", DataTable)
        keep = self.highlighted
        table.clear()
        for row in message.rows:
            table.add_row(
                Text(one_line(row.name, 30)),
                Text(f"{row.claims:,}", justify="right"),
                Text(f"{row.kept:,}", justify="right"),
                Text(one_line(row.space, 20)),
                key=row.name,
            )
        header = Text(f"{len(message.rows):,} dataset{'s' if len(message.rows) != 1 else ''}", style="bold")
        header.append("  · enter: the claims curation kept · a: every claim", style="dim")
        self.query_one("#datasets-header", Static).update(header)
        names = [row.name for row in message.rows]
        if keep in names:
            table.move_cursor(row=names.index(keep))
        elif not names:
            self.query_one("#funnel", Static).update(Text("no datasets yet: workbench import FILE", style="dim"))

    @on(DataTable.RowHighlighted, "#datasets")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key is None or event.row_key.value is None:
            return
        self.highlighted = event.row_key.value
        self._read_funnel(self.highlighted)

    @on(FunnelRead)
    def _funnel_read(self, message: FunnelRead) -> None:
        if message.name == self.highlighted:
            self.query_one("#funnel", Static).update(message.shown)

    @on(DataChanged)
    def _data_changed(self, message: DataChanged) -> None:
        self.action_reload()

    def action_reload(self) -> None:
        self._read_datasets()
        if self.highlighted:
            self._read_funnel(self.highlighted)

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_browse(self, kept_only: bool) -> None:
        if self.highlighted is None:
            return
        name = self.highlighted
        self.app.show_claims(curated_filter(name) if kept_only else dataset_filter(name))


__all__ = ["DatasetsScreen"]


def curate_command(db_path: Path, name: str) -> str:
    """The `workbench curate` line for a dataset, with this database, as it can be typed."""
    return one_line(shlex.join(["workbench", "--db", str(db_path), "curate", name]))
