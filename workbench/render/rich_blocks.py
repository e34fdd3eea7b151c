"""Blocks (workbench/render/blocks.py) as Rich renderables: what a reading command prints
to a terminal, with its styles, and what workbench/render/plain.py is held to."""

from __future__ import annotations

from rich import box as boxes
from rich.console import Group as RichGroup
from rich.console import RenderableType
from rich.panel import Panel as RichPanel
from rich.table import Table as RichTable
from rich.text import Text

from workbench.render.blocks import Cell, Group, Panel, Styled, Table


def to_text(styled: Styled) -> Text:
    """A Styled as the Text it stands for (its parts appended in order, styles kept)."""
    text = Text(style=styled.style)
    for part, style in styled.parts:
        if isinstance(part, str):
            text.append(part, style=style)
        else:
            inner = to_text(part)
            if style:
                inner.stylize(style)  # as Text.assemble((Text, style)) and Text.append(Text, style)
            text.append_text(inner)
    return text


def _cell(cell: Cell | None):
    """A str stays a str (Rich reads its markup, as the commands always had it); data is Text."""
    return cell if isinstance(cell, str) or cell is None else to_text(cell)


def to_rich(block) -> RenderableType:
    if isinstance(block, str):
        return block
    if isinstance(block, Styled):
        return to_text(block)
    if isinstance(block, Table):
        return _table(block)
    if isinstance(block, Panel):
        return RichPanel(to_text(block.body), title=_cell(block.title), title_align=block.title_align)
    if isinstance(block, Group):
        return RichGroup(*(to_rich(child) for child in block.blocks))
    raise TypeError(f"not a block: {block!r}")


def _table(table: Table) -> RichTable:
    rich_table = RichTable(box=getattr(boxes, table.box) if table.box else None, pad_edge=table.pad_edge,
                           show_edge=table.show_edge, collapse_padding=table.collapse_padding, padding=table.padding,
                           show_header=table.show_header, expand=table.expand, title=_cell(table.title))
    for column in table.columns:
        rich_table.add_column(_cell(column.header), justify=column.justify, no_wrap=column.no_wrap,
                              overflow=column.overflow, width=column.width, min_width=column.min_width,
                              max_width=column.max_width, ratio=column.ratio, style=column.style or None)
    for row in table.rows:
        rich_table.add_row(*(_cell(cell) for cell in row))
    return rich_table
