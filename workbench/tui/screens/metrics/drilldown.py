"""Enter on a metrics table opens the claims behind the number in the claims browser."""

from __future__ import annotations

from textual import on
from textual.screen import Screen
from textual.widgets import DataTable

from workbench.render.display import printable
from workbench.scoring.compare import filter_value
from workbench.tui.screens.metrics.tables import ConfusionTable, confusion_filter, slice_filter


class OpensClaimsFromTables(Screen):
    """A screen whose confusion, breakdown and flip tables open their claims on Enter.

    The subclass keeps `update` (the latest PanelUpdate), `_breakdown_keys` (run index,
    slice value per breakdown row) and `_flip_filters` (a filter per flip row).
    """

    @on(DataTable.CellSelected)
    def _cell_selected(self, event: DataTable.CellSelected) -> None:
        table = event.data_table
        if not isinstance(table, ConfusionTable) or self.update is None:
            return
        numbers = self.update.runs[table.run_index]
        text = confusion_filter(numbers.run.name, numbers.overall, event.coordinate.row, event.coordinate.column - 1)
        if text:
            self._open_claims(text)

    @on(DataTable.RowSelected, "#breakdown")
    def _slice_selected(self, event: DataTable.RowSelected) -> None:
        if self.update is None or event.cursor_row >= len(self._breakdown_keys):
            return
        index, value = self._breakdown_keys[event.cursor_row]
        run = self.update.runs[index].run
        text = slice_filter(run.name, self.update.field_name or "", value, self.update.config.cutoff)
        if text is None:
            self.notify("the filter language cannot pick out this slice", severity="warning")
            return
        self._open_claims(text)

    @on(DataTable.RowSelected, "#flips")
    def _flip_selected(self, event: DataTable.RowSelected) -> None:
        if event.cursor_row < len(self._flip_filters):
            self._open_claims(self._flip_filters[event.cursor_row])

    def _open_claims(self, filter_text: str) -> None:
        if self.update is not None and self.update.config.exclude_flag:
            filter_text += f" -flagged:{filter_value(self.update.config.exclude_flag)}"
        show_claims = getattr(self.app, "show_claims", None)
        if show_claims is None:
            self.notify(f"no claims browser here; the filter is: {printable(filter_text)}", markup=False)
            return
        show_claims(filter_text)
