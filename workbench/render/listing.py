"""One layout for every listing the command line prints, from 60 columns up.

Columns give way by priority: the least important are narrowed first (to their minimum),
then dropped whole. Ids, names and numbers are never cut (`tour-2` beside `tour-3`: the end
tells runs apart); text wraps at word boundaries; a path is shortened in its middle so its
file name stays. Built on Rich's Table with widths decided here, so what is dropped or
narrowed is a choice of ours rather than Rich squeezing every column alike.

Imported inside the commands: reading commands load Rich only when they print a table.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from workbench.render.display import literal, printable

KINDS = ("id", "name", "number", "whole", "figure", "label", "text", "path")
GAP = 2  # between neighbouring columns: Rich's divider and one cell of padding
LONG_NAME = 36  # a file name longer than this (a hash) may lose its middle


@dataclass(frozen=True)
class Fitted:
    """A cell drawn once its column's width is known (a name above a shortened path)."""

    minimum: int
    natural: int
    draw: Callable[[int], Text]


@dataclass
class Column:
    """A listing's column. `kind`: id, name, number and whole are never cut (a name's first
    line stays whole, later lines wrap); label and text wrap at words; path keeps its file
    name; a figure ("0.71 [0.65, 0.77]") is never cut, its interval going under its value
    when narrow. An id or a name stays on screen; a number or a whole value may be dropped.
    `priority`: the higher, the later it gives way; ids and names are never dropped.
    `readable`: the width below which wrapped lines get hard to read (before columns of
    lower priority are dropped, this column is given it)."""

    header: str
    kind: str = "text"
    priority: int = 0
    justify: str = "left"
    readable: int = 0
    cells: list = field(default_factory=list)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"column kind {self.kind!r} is none of {', '.join(KINDS)}")

    @property
    def required(self) -> bool:
        return self.kind in ("id", "name")

    def natural(self) -> int:
        return max([cell_len(self.header), *(_natural(cell) for cell in self.cells)])

    def minimum(self) -> int:
        """The narrowest this column may be drawn."""
        drawn = [cell.minimum for cell in self.cells if isinstance(cell, Fitted)]
        return max(self._least(), min(self.readable, self.natural()), *drawn)

    def _least(self) -> int:
        header = cell_len(self.header)
        if self.kind in ("id", "whole"):
            return self.natural()
        if self.kind == "number":  # never cut; a long header wraps at words above it
            return max([_longest_word(self.header, 20), *(_natural(cell) for cell in self.cells)])
        if self.kind == "name":
            return max([min(header, 8), *(_first_line(cell) for cell in self.cells)])
        if self.kind == "path":
            return max([min(header, 8), *(path_width(cell) for cell in self.cells)])
        header_word = _longest_word(self.header, 20)  # a header wraps at words as its cells do
        if self.kind == "figure":
            return max([header_word, *(max(map(cell_len, _plain(c).split(" ["))) + 1 for c in self.cells)])
        if self.kind == "label":
            return max([header_word, *(_longest_word(cell, 30) for cell in self.cells)])
        return min(self.natural(), max(header_word, 12))


class Listing:
    """Rows under columns, laid out for a width when printed (see `table`)."""

    def __init__(self, *columns: Column, title: str | None = None, headers: bool = True):
        self.columns = list(columns)
        self.title = title
        self.headers = headers  # False: a grid of parts and values, read without headings
        self._measured: tuple[tuple[int, ...], dict[int, tuple[int, int]]] | None = None

    def add_row(self, *cells) -> None:
        for column, cell in zip(self.columns, cells, strict=True):
            column.cells.append(cell)

    def table(self, width: int) -> Table:
        """A Rich table at most `width` cells wide (unless its ids and names alone are wider)."""
        # Measured once: each measure walks every cell, and fitting asks for it again and again.
        sizes = self._sizes()
        shown = self._columns_that_fit(width, sizes)
        widths = _widths(shown, width, sizes)
        table = Table(
            pad_edge=False,
            show_edge=False,
            collapse_padding=True,
            title=literal(self.title) if self.title else None,
            title_justify="left",
            show_header=self.headers,
            box=box.SIMPLE_HEAD,
        )
        for column, w in zip(shown, widths):
            keep = column.kind in ("id", "whole", "path")  # a figure breaks only where _figure says
            table.add_column(  # a header may be typed by a user (a field, a flag kind): literal
                literal(column.header),
                justify=column.justify,
                width=w,
                no_wrap=keep,
                overflow="fold" if not keep else "crop",
            )
        for row in zip(*(column.cells for column in shown)):
            table.add_row(*(_drawn(cell, column, w) for cell, column, w in zip(row, shown, widths)))
        return table

    def keeps(self, width: int, priority: int) -> bool:
        """Whether every column of at least `priority` is shown at `width`."""
        shown = self._columns_that_fit(width, self._sizes())
        return all(column in shown for column in self.columns if column.priority >= priority)

    def fits(self, width: int) -> bool:
        """Whether every column fits `width` at its narrowest (none given way)."""
        return _needed(self.columns, self._sizes()) <= width

    def _sizes(self) -> dict[int, tuple[int, int]]:
        """Each column's (minimum, natural) width, by id, measured again only once rows were
        added: each measure walks every cell, and FirstThatKeeps asks before drawing."""
        rows = tuple(len(column.cells) for column in self.columns)
        if self._measured is None or self._measured[0] != rows:
            self._measured = (rows, {id(column): (column.minimum(), column.natural()) for column in self.columns})
        return self._measured[1]

    def print(self, console: Console) -> None:
        console.print(self.table(console.width))

    def __rich_console__(self, console: Console, options):
        yield self.table(options.max_width)  # printed as it is, or inside a Group or a panel

    def _columns_that_fit(self, width: int, sizes: dict[int, tuple[int, int]]) -> list[Column]:
        shown = list(self.columns)
        while len(shown) > 1 and _needed(shown, sizes) > width:
            optional = [c for c in shown if not c.required]
            if not optional:
                break
            shown.remove(min(optional, key=lambda c: c.priority))
        return shown


class FirstThatKeeps:
    """One of several layouts of the same rows: the first that shows every column of at least
    `priority` at the terminal's width (else the last), so a narrow screen gets a layout made
    for it (a model with its metric under it) rather than the wide one with numbers dropped."""

    def __init__(self, *layouts: Listing, priority: int = 7):
        self.layouts = layouts
        self.priority = priority

    def __rich_console__(self, console: Console, options):
        width = options.max_width
        chosen = next((lay for lay in self.layouts if lay.keeps(width, self.priority)), self.layouts[-1])
        yield chosen.table(width)


def _needed(columns: list[Column], sizes: dict[int, tuple[int, int]]) -> int:
    """Cells the columns take at their minimum widths, with the gaps between them."""
    return sum(sizes[id(c)][0] for c in columns) + GAP * (len(columns) - 1)


def _widths(columns: list[Column], width: int, sizes: dict[int, tuple[int, int]]) -> list[int]:
    """Each column at its minimum, then the spare cells to the columns that it makes whole
    (the smallest shortfall first, the more important of two alike), each up to its natural
    width: a short column shown on one line reads better than a long one a little wider.
    `sizes`: each column's (minimum, natural) width, by id."""
    widths = [sizes[id(c)][0] for c in columns]
    natural = [sizes[id(c)][1] for c in columns]
    spare = width - _needed(columns, sizes)
    for i, column in enumerate(columns):  # names longer than the screen fold rather than overflow it
        if spare < 0 and column.kind == "name":
            give = min(-spare, widths[i] - 8)
            widths[i] -= max(give, 0)
            spare += max(give, 0)
    for i in sorted(range(len(columns)), key=lambda i: (natural[i] - widths[i], -columns[i].priority)):
        grow = min(max(spare, 0), natural[i] - widths[i])
        widths[i] += grow
        spare -= grow
    return widths


def _drawn(cell, column: Column, width: int):
    if isinstance(cell, Fitted):
        return cell.draw(width)
    if column.kind == "figure":
        return _figure(cell if isinstance(cell, Text) else Text(str(cell)), width)
    if column.kind == "path":
        return literal(short_path(str(cell), width))
    return literal(cell) if isinstance(cell, str) else cell


def _figure(figure: Text, width: int) -> Text:
    """A figure on one line, or its interval under its value where the line would not fit."""
    at = figure.plain.find(" [")
    if cell_len(figure.plain) <= width or at < 0:
        return figure
    value, _, interval = figure.divide([at, at + 1])
    return Text.assemble(value, "\n", interval, justify="right")


def _plain(cell) -> str:
    return cell.plain if isinstance(cell, Text) else str(cell)


def _natural(cell) -> int:
    if isinstance(cell, Fitted):
        return cell.natural
    return max((cell_len(line) for line in _plain(cell).split("\n")), default=0)


def _first_line(cell) -> int:
    if isinstance(cell, Fitted):
        return cell.minimum
    return cell_len(_plain(cell).split("\n")[0])


def path_width(cell) -> int:
    """The fewest cells a path is shown in: its file name after "…/" (a long one cut)."""
    if isinstance(cell, Fitted):
        return cell.minimum
    path = str(cell)
    name = _file_name(path)
    return min(cell_len(path) if name == path else cell_len(name) + 2, LONG_NAME + 2)  # "…/" before it


def _longest_word(cell, cap: int) -> int:
    if isinstance(cell, Fitted):
        return cell.minimum
    return min(max((cell_len(word) for word in _plain(cell).split()), default=0), cap)


def middle_cut(name: str, width: int) -> str:
    """`name` in `width` cells, its middle given way to "…" (start and end kept)."""
    if cell_len(name) <= width:
        return name
    from rich.cells import set_cell_size

    tail = width // 2  # the end (a run's -2, a hash's last digits) gets the larger half
    end = name
    while cell_len(end) > tail:
        end = end[1:]
    return set_cell_size(name, width - 1 - cell_len(end)) + "…" + end


def _file_name(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


def short_path(path: str, width: int) -> str:
    """`path` in `width` cells: the folders in its middle give way to "…", its file name
    stays whole (`/home/ana/…/SmolLM2-135M.gguf`); a file name wider than the column (an
    ollama blob's sha256-...) keeps its start and its end (`…/sha256-6a0746a1…0b3c9`)."""
    if cell_len(path) <= width:
        return path
    name = _file_name(path)
    head = path[: len(path) - len(name)].rstrip("/")
    keep = width - cell_len(name) - 2
    if cell_len(name) + 2 > width:
        return "…/" + middle_cut(name, max(width - 2, LONG_NAME))
    if keep <= 0 or not head:
        return "…/" + name
    folders = head.split("/")
    kept = ""
    for folder in folders:
        candidate = f"{kept}{folder}/"
        if cell_len(candidate) > keep:
            break
        kept = candidate
    return f"{kept}…/{name}"


def packed(items: list[str], separator: str = ", ") -> Fitted:
    """Items (labels, names) joined by `separator`, lines broken between items, never inside
    one (unless a single item is wider than the column)."""
    shown = [printable(item) for item in items]
    longest = max((cell_len(item) for item in shown), default=0)

    def draw(width: int) -> Text:
        lines: list[str] = []
        for n, item in enumerate(shown):
            piece = item + (separator.rstrip() if n < len(shown) - 1 else "")
            if lines and cell_len(lines[-1] + " " + piece) <= width:
                lines[-1] += " " + piece
            else:
                lines.append(piece)
        return Text("\n".join(lines))

    return Fitted(min(longest + len(separator), 40), cell_len(separator.join(shown)), draw)


def path_below(name: str, path: str, name_style: str = "bold") -> Fitted:
    """A name, whole, above its path shortened to the column (the file name kept whole)."""
    name, path = printable(name), printable(path)

    def draw(width: int) -> Text:
        text = Text(name, style=name_style)
        text.append("\n" + short_path(path, width), style="dim")
        return text

    return Fitted(max(cell_len(name), path_width(path)), max(cell_len(name), cell_len(path)), draw)


def id_end(value: str, width: int) -> str:
    """An external id in `width` cells keeping its end: a URL-like id (a ClaimReview review
    page) differs in its last part, not in `https://`, so its start gives way ("…bridge-cost")."""
    text = re.sub(r"^[a-z][a-z0-9+.-]*://(www\.)?", "", printable(" ".join(value.split())), flags=re.I).rstrip("/")
    if cell_len(text) <= width:
        return text
    end = text
    while cell_len(end) > max(width - 1, 0):
        end = end[1:]
    return "…" + end


def figures_listing(title: str) -> Listing:
    """A judge's figures as the shared tasks report them: each figure's name, the organisers'
    counting, ours with failures left out, and the failures (which give way first; a
    figure's name wraps at words before the organisers' figure would go)."""
    return Listing(
        Column("Figure", "label", 10, readable=16),
        Column("Official", "number", 9, "right"),
        Column("Failures out", "number", 8, "right"),
        Column("Failures", "number", 7, "right"),
        title=title,
    )


def pieces(*parts: Text, longest: int = 30, joiner: str = " ") -> Fitted:
    """Parts each kept whole ("0.455 / 0.208" and "(Supported)"), joined by `joiner` on one
    line where the column allows, else each under the one before (a joiner other than a
    space stays at the end of the line it leaves); a part wider than `longest` cells (an
    untrusted class name) may fold."""
    widths = [cell_len(part.plain) for part in parts]
    gap = cell_len(joiner)

    def draw(width: int) -> Text:
        lines: list[list[Text]] = []
        used = 0
        for part, w in zip(parts, widths):
            if lines and used + gap + w <= width:
                lines[-1].append(part)
                used += gap + w
            else:
                lines.append([part])
                used = w
        ends = Text(joiner.strip() + "\n" if joiner.strip() else "\n")
        return ends.join(Text(joiner).join(line) for line in lines)

    natural = sum(widths) + gap * (len(parts) - 1)
    return Fitted(min(max(widths, default=0) + cell_len(joiner.strip()), longest), natural, draw)
