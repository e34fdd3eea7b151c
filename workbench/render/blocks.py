"""What a reading command prints, described without Rich: styled text, tables, panels,
grids and groups of them.

A command builds blocks; workbench/render/reading.py prints them, through
workbench/render/plain.py when the output is not a terminal (no Rich to import: the command
starts about as fast as `workbench --help`), else through Rich (workbench/render/rich_blocks.py),
which draws them with styles as it always has. Both print the same characters.

Untrusted text goes in through `literal` (control characters made visible); the renderers
never read markup in a Styled, so nothing in a claim is taken for markup.
"""

from __future__ import annotations

from typing import Union

from workbench.render.display import printable


class Styled:
    """Text in styled parts, as Rich's Text.assemble: each part a str or another Styled,
    with a style over it; `style` covers the whole (Text(text, style=...))."""

    __slots__ = ("parts", "style")

    def __init__(self, text: str = "", style: str = ""):
        self.parts: list[tuple[Union[str, Styled], str]] = [(text, "")] if text else []
        self.style = style

    def append(self, text: Union[str, Styled], style: str = "") -> Styled:
        if text:
            self.parts.append((text, style))
        return self

    @property
    def plain(self) -> str:
        return "".join(part if isinstance(part, str) else part.plain for part, _ in self.parts)

    def __bool__(self) -> bool:
        return bool(self.plain)


def literal(value: object, style: str = "") -> Styled:
    """`value` shown exactly as typed: no markup, control characters made visible."""
    return Styled(printable(value), style)


Cell = Union[str, Styled]
"""A str cell is what Rich would take as markup (our own words and numbers); data goes in as Styled."""


class Column:
    """Rich's Column options (and its defaults)."""

    def __init__(self, header: Cell = "", justify: str = "left", no_wrap: bool = False, overflow: str = "ellipsis",
                 width: int | None = None, min_width: int | None = None, max_width: int | None = None,
                 ratio: int | None = None, style: str = ""):
        self.header, self.justify, self.no_wrap, self.overflow = header, justify, no_wrap, overflow
        self.width, self.min_width, self.max_width, self.ratio, self.style = width, min_width, max_width, ratio, style


class Table:
    """Rich's Table(...) with the same defaults (a heavy-headed box, padding 0 1)."""

    def __init__(self, box: str | None = "HEAVY_HEAD", pad_edge: bool = True, show_edge: bool = True,
                 collapse_padding: bool = False, padding: tuple[int, int, int, int] = (0, 1, 0, 1),
                 show_header: bool = True, expand: bool = False, title: Cell | None = None):
        self.columns: list[Column] = []
        self.rows: list[list[Cell]] = []
        self.box, self.pad_edge, self.show_edge, self.collapse_padding = box, pad_edge, show_edge, collapse_padding
        self.padding, self.show_header, self.expand, self.title = padding, show_header, expand, title

    def add_column(self, header: Cell = "", **options) -> Table:
        self.columns.append(Column(header, **options))
        return self

    def add_row(self, *cells: Cell) -> Table:
        self.rows.append(list(cells))
        return self


def grid(padding: tuple[int, int] = (0, 2)) -> Table:
    """Rich's Table.grid(padding=(vertical, horizontal)): no box, no header, no edge padding."""
    vertical, horizontal = padding
    return Table(box=None, padding=(vertical, horizontal, vertical, horizontal), collapse_padding=True,
                 pad_edge=False, show_header=False, show_edge=False)


class Panel:
    """Rich's Panel(body, title=..., title_align=...): a rounded box the width of the output."""

    def __init__(self, body: Styled, title: Cell | None = None, title_align: str = "left"):
        self.body, self.title, self.title_align = body, title, title_align


class Group:
    """Blocks one after another (Rich's Group)."""

    def __init__(self, blocks: list):
        self.blocks = blocks


Block = Union[str, Styled, Table, Panel, Group]
