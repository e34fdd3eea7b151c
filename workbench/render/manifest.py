"""A run's manifest (`workbench show-run`): each part beside its value where the screen has
room for both, else each part over its value (indented), so a long part name such as
`versions.factcheck-workbench` never squeezes its value into a sliver."""

from __future__ import annotations

from rich.console import Group
from rich.padding import Padding

from workbench.render.display import literal
from workbench.render.listing import Column, FirstThatKeeps, Fitted, Listing

VALUE_CELLS = 30  # narrower than this, a value (a hash, a file list) reads better under its part


def manifest_view(run_name: str, manifest: dict) -> FirstThatKeeps:
    """The manifest as a grid of parts and values, or stacked when narrow."""
    title = f"run {run_name}"
    grid = Listing(
        Column("part", "name"), Column("value", "label", priority=9, readable=VALUE_CELLS), title=title, headers=False
    )
    stacked = Listing(Column("part", "label", priority=9), title=title, headers=False)
    for key, value in manifest.items():
        shown = "—" if value is None else str(value)
        grid.add_row(literal(key, "bold"), literal(shown))
        stacked.add_row(_over(key, shown))
    return FirstThatKeeps(grid, stacked, priority=9)


def _over(key: str, value: str) -> Fitted:
    def draw(width: int) -> Group:
        return Group(literal(key, "bold"), Padding(literal(value), (0, 0, 0, 2)))

    return Fitted(min(len(key), 20), max(len(key), len(value) + 2), draw)
