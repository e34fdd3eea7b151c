"""Painting the metrics view's panels from what the watcher read (a mixin of MetricsScreen)."""

from __future__ import annotations

from rich.text import Text
from textual.containers import Vertical
from textual.widgets import DataTable, Label, Static
from textual_plotext import PlotextPlot

from workbench.render.display import literal, run_names
from workbench.tui.screens.metrics.header import header_line
from workbench.tui.screens.metrics.panels import (
    class_panel,
    compare_panel,
    drawn,
    overall_panel,
    plot_breakdown,
    report_panel,
    search_panel,
)
from workbench.tui.screens.metrics.tables import (
    ConfusionTable,
    fill_breakdown,
    fill_confusion,
    fill_flips,
    keeping_cursor,
)
from workbench.tui.screens.metrics.watch import IntervalSet, PanelUpdate


class DrawnPanel(Static):
    """A panel showing a Rich renderable drawn once at the panel's width (panels.drawn), and
    drawn again when the width changes (a resized terminal, a scrollbar that appears)."""

    _shown = None

    def show(self, renderable) -> None:
        self._shown = renderable
        self.update(drawn(renderable, self.content_size.width))

    def on_resize(self) -> None:
        if self._shown is not None:
            self.update(drawn(self._shown, self.content_size.width))


class PaintsPanels:
    """`_paint` draws every panel from `self.update` and `self.intervals`.

    Needs from the screen: update, intervals, error, field, flag_kind, cutoff, wanted().
    """

    def _paint(self) -> None:
        update, intervals = self.update, self.intervals
        self._paint_header()
        if update is None:
            self._show("#overall-panel", Text("reading…" if not self.error else "", style="dim"))
            return
        self._show("#overall-panel", overall_panel(update, intervals))
        self._show("#class-panel", class_panel(update))
        self._paint_confusions(update)
        self._paint_breakdown(update, intervals)
        self._show("#compare-panel", compare_panel(update, intervals))
        self._flip_filters = keeping_cursor(
            self.query_one("#flips", DataTable), lambda table: fill_flips(table, update)
        )
        self._paint_search(update)
        self._paint_report(update)

    def _show(self, selector: str, renderable) -> None:
        self.query_one(selector, DrawnPanel).show(renderable)

    def _paint_search(self, update: PanelUpdate) -> None:
        found = search_panel(update)
        title, panel = self.query_one("#search-title", Static), self.query_one("#search-panel", Static)
        title.display = panel.display = found is not None
        if found is not None:
            kind = update.config.flag_kind
            title.update(
                literal(
                    f"search · query reformulations per claim, flagged {kind} or not"
                    if kind
                    else "search · query reformulations per claim"
                )
            )
            panel.update(found)

    def _paint_report(self, update: PanelUpdate) -> None:
        found = report_panel(update)
        title, panel = self.query_one("#report-title", Static), self.query_one("#report-panel", DrawnPanel)
        title.display = panel.display = found is not None
        if found is not None:
            panel.show(found)

    def _reading(self) -> bool:
        return self.update is None or self.update.config.read_key != self.wanted().read_key

    def _paint_confusions(self, update: PanelUpdate) -> None:
        holder = self.query_one("#confusions", Vertical)
        tables = list(holder.query(ConfusionTable))
        if len(tables) != len(update.runs):
            holder.remove_children()
            tables = [ConfusionTable(i, id=f"confusion-{i}") for i in range(len(update.runs))]
            names = run_names([numbers.run for numbers in update.runs], 200)
            for name, table in zip(names, tables):
                title = literal(name, "bold")
                holder.mount(Label(title, classes="confusion-title"))
                holder.mount(table)
        for numbers, table in zip(update.runs, tables):
            filtered = numbers.filtered if update.config.exclude_flag else None
            keeping_cursor(table, lambda t, n=numbers, f=filtered: fill_confusion(t, n, f))

    def _paint_breakdown(self, update: PanelUpdate, intervals: IntervalSet | None) -> None:
        self._show_field()
        table = self.query_one("#breakdown", DataTable)
        self._breakdown_keys = keeping_cursor(table, lambda t: fill_breakdown(t, update, intervals))
        plot = self.query_one("#breakdown-chart", PlotextPlot)
        plot_breakdown(plot.plt, update)
        plot.refresh()

    def _show_field(self) -> None:
        field = self.field.replace("{kind}", self.flag_kind)
        label = Text("by ", style="bold")
        label.append_text(literal(field, "bold"))
        label.append(" (b)  ")
        self.query_one("#field-label", Label).update(label)
        title = Text("by ")
        title.append_text(literal(field))
        if self.field == "cutoff" and self.cutoff is None:
            title.append(" · type a cutoff date (c) to split claims before / after it")
        elif self.field == "cutoff":
            title.append(f" {self.cutoff}")
        title.append(" · Enter opens a slice's claims")
        self.query_one("#breakdown-title", Static).update(title)

    def _paint_header(self) -> None:
        header = self.query_one("#metrics-header", Static)
        width = (header.size.width or self.app.size.width) - 2  # less its padding
        header.update(header_line(self.update, self._reading(), self.error, width))
