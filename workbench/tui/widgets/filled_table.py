"""A DataTable filled at once, each column as wide as its widest cell.

Left to the table, an auto-width column is measured when the table is next idle: a frame drawn
before that (on a busy machine) keeps the headers' widths and cuts every cell to them.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable


def fill_table(table: DataTable, columns: list[tuple[str, Text]], rows: list[list], keys: list | None = None) -> None:
    """Replace the table's columns (key, header) and rows; a str cell is drawn as written."""
    cells = [[cell if isinstance(cell, Text) else Text(str(cell)) for cell in row] for row in rows]
    table.clear(columns=True)
    for index, (key, header) in enumerate(columns):
        widest = max((row[index].cell_len for row in cells), default=0)
        table.add_column(header, key=key, width=max(header.cell_len, widest))
    for number, row in enumerate(cells):
        table.add_row(*row, key=keys[number] if keys else None)
