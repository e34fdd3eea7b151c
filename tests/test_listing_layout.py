"""Laying a listing out measures each column once, however many columns must give way: the
50-row claims listing measured its cells about ten times each (a fifth of `workbench claims`)."""

from __future__ import annotations

import io

from rich.console import Console

from workbench.render.listing import Column, Listing


class CountedColumn(Column):
    """A column that counts how often its cells are measured whole."""

    measured = 0

    def natural(self) -> int:
        CountedColumn.measured += 1
        return super().natural()


def test_each_column_is_measured_once_per_layout():
    columns = [CountedColumn(f"c{n}", "label", priority=n) for n in range(6)]
    listing = Listing(CountedColumn("id", "id", 100), *columns, CountedColumn("claim", "text", 95))
    for row in range(50):
        listing.add_row(str(row), *(f"value {row} of column {n}" for n in range(6)), "a claim " * 12)
    console = Console(width=60, record=True, file=io.StringIO())
    CountedColumn.measured = 0
    listing.print(console)
    assert "claim" in console.export_text()
    # natural() once per column, and within minimum() at most twice more (text and id columns)
    assert CountedColumn.measured <= 3 * len(listing.columns)
