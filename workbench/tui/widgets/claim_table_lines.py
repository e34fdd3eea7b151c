"""Drawing the claims table (ClaimTable's part): the header, each row's line from a cache,
and the line after the last row ("reading…", "no claims match this filter")."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.strip import Strip

from store import ClaimRow
from store.text_matches import text_matcher
from workbench.tui.widgets.columns import header_text, layout, row_text


class ClaimTableLines:
    """ClaimTable's drawing, mixed in before ScrollView: it reads the table's window,
    columns, query and marks, and keeps the line cache (_lines)."""

    def show_images(self, shown: bool) -> None:
        """Show (or hide) the image column."""
        if shown != self.images:
            self.images = shown
            self._update_size()
            self.refresh()

    def on_resize(self) -> None:
        self._update_size()
        self._scroll_cursor_visible()

    def _update_size(self) -> None:
        width = self.size.width
        columns = layout(width, self.run_titles, self.query.sort, self.images)
        if columns != self._columns:
            self._lines.clear()
        self._columns = columns
        self.virtual_size = Size(width, len(self.window.rows) + 2)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        if y == 0:
            text = header_text(self._columns, self.query.sort, self.query.descending)
            return self._strip(text, width).apply_style(base + self.get_component_rich_style("claim-table--header"))
        index = int(self.scroll_y) + y - 1
        rows = self.window.rows
        if index >= len(rows):
            return self._edge_line(index == len(rows), width, base)
        row = rows[index]
        style = base
        if row.id in self.marked:
            style += self.get_component_rich_style("claim-table--marked")
        if index == self.cursor:
            style += self.get_component_rich_style("claim-table--cursor")
        return self._row_strip(row, width).apply_style(style)

    def _row_strip(self, row: ClaimRow, width: int) -> Strip:
        """A row's line, unstyled, from a cache (like Toolong's): scrolling redraws cost little."""
        key = (row.id, row.id in self.marked, width, self.good_query.filter)
        strip = self._lines.get(key)
        if strip is None:
            if len(self._lines) > 2000:
                self._lines.clear()
            text = row_text(
                row,
                self._columns,
                self.query.run_ids,
                row.id in self.marked,
                self.scored,
                text_matcher(self.good_query.filter),
            )
            strip = self._lines[key] = self._strip(text, width)
        return strip

    def _edge_line(self, first_after: bool, width: int, base: Style) -> Strip:
        if not first_after:
            return Strip.blank(width, base)
        if self._loading:
            message = "reading…"
        elif not self.window.rows:
            message = "no claims match this filter"
        elif not self.window.at_end:
            message = "… reading the next page"
        else:
            message = ""
        return self._strip(Text(message), width).apply_style(base + self.get_component_rich_style("claim-table--more"))

    def _strip(self, text: Text, width: int) -> Strip:
        segments = [s for s in text.render(self.app.console) if s.text != "\n"]
        return Strip(segments).crop_extend(0, width, None)
