"""Blocks (workbench/render/blocks.py) drawn exactly as Rich draws them to a file that is not
a terminal: the same characters, no styles, at the same width, without importing Rich's
console (which takes longer to import than a reading command takes to run).

The arithmetic follows Rich 15's (Text.wrap, Table's column widths, Padding, Panel); cell
widths and word-wrap break positions come from rich.cells and rich._wrap, Rich's own small
modules. tests/test_plain_render.py holds it to Rich byte for byte. What this module does
not draw the way Rich would (a tab, markup or an emoji code in a str, an option it does
not know) raises Unsupported, and the caller lets Rich print that block.
"""

from __future__ import annotations

import functools
import re

from rich._wrap import divide_line
from rich.cells import cell_len, set_cell_size

from workbench.render.blocks import Cell, Column, Group, Panel, Styled, Table

BOXES = {  # Rich's box drawings, four characters a line (rich/box.py)
    "SIMPLE_HEAD": ["    ", "    ", " ── ", "    ", "    ", "    ", "    ", "    "],
    "HEAVY_HEAD": ["┏━┳┓", "┃ ┃┃", "┡━╇┩", "│ ││", "├─┼┤", "├─┼┤", "│ ││", "└─┴┘"],
    "ROUNDED": ["╭─┬╮", "│ ││", "├─┼┤", "│ ││", "├─┼┤", "├─┼┤", "│ ││", "╰─┴╯"],
}
_EMOJI = re.compile(r":\S*?:")
"""What Rich could take for an emoji code (:smile:) in a str."""
_MARKUP_OR_EMOJI = re.compile(r"\[|:\S*?:")
"""... or for markup ([bold]), where it reads markup."""
_TRAILING_SPACE = re.compile(r"\s+$")
_RICH_ALTERS = re.compile("[\t\a\b\v\f\r]")
"""A tab (Rich expands it to tab stops) and the control codes Rich's Text drops."""


class Unsupported(Exception):
    """Something Rich would draw in a way this module does not: let Rich print it."""


def render(block, width: int) -> str:
    """What console.print(block) writes at `width` columns, newline included."""
    lines = [_crop(line, width) for line in block_lines(block, width)]
    return "".join(line + "\n" for line in lines)


def render_str(text: str, width: int, soft_wrap: bool = False) -> str:
    """What console.print(text, markup=False) writes: wrapped at `width` unless soft_wrap."""
    if _EMOJI.search(text):
        raise Unsupported("emoji code")
    if soft_wrap:
        _unaltered(text)
        return text + "\n"
    return render(Styled(text), width)


def block_lines(block, width: int) -> list[str]:
    if isinstance(block, Styled):
        return wrap(block.plain, width, "default", "fold", False)
    if isinstance(block, Table):
        return table_lines(block, width)
    if isinstance(block, Panel):
        return panel_lines(block, width)
    if isinstance(block, Group):
        return [line for child in block.blocks for line in block_lines(child, width)]
    raise Unsupported(type(block).__name__)


def _own_words(text: str) -> str:
    """A str Rich reads as markup: ours has none to read, or Rich prints it."""
    if _MARKUP_OR_EMOJI.search(text):
        raise Unsupported("markup")
    return text


def _cell_text(cell: Cell) -> str:
    return _own_words(cell) if isinstance(cell, str) else cell.plain


def _unaltered(text: str) -> None:
    if _RICH_ALTERS.search(text):
        raise Unsupported("a tab or a control code")


def _crop(line: str, width: int) -> str:
    return set_cell_size(line, width) if cell_len(line) > width else line


def _truncate(line: str, width: int, overflow: str, pad: bool = False) -> str:
    length = cell_len(line)
    if length > width:
        line = set_cell_size(line, width - 1) + "…" if overflow == "ellipsis" else set_cell_size(line, width)
    if pad and length < width:
        line += " " * (width - length)
    return line


def wrap(text: str, width: int, justify: str, overflow: str, no_wrap: bool) -> list[str]:
    """Rich's Text.wrap: each line broken where Rich breaks it, trailing spaces past the
    width dropped (counted in characters, as Rich does), justified, cut to the width."""
    if justify not in ("default", "left", "right", "center") or overflow not in ("fold", "crop", "ellipsis"):
        raise Unsupported(f"{justify} {overflow}")
    _unaltered(text)
    lines = []
    for line in text.split("\n"):
        if no_wrap:
            pieces = [line]
        else:
            offsets = divide_line(line, width, fold=overflow == "fold")
            bounds = [0, *offsets, len(line)]
            pieces = [_rstrip_end(line[start:end], width) for start, end in zip(bounds, bounds[1:])]
        lines += [_truncate(_justify(piece, width, justify, overflow), width, overflow) for piece in pieces]
    return lines


def _rstrip_end(piece: str, width: int) -> str:
    excess = len(piece) - width
    if excess > 0:
        found = _TRAILING_SPACE.search(piece)
        if found:
            return piece[: len(piece) - min(len(found.group()), excess)]
    return piece


def _justify(line: str, width: int, justify: str, overflow: str) -> str:
    if justify == "left":
        return _truncate(line, width, overflow, pad=True)
    if justify == "default":
        return line
    line = _truncate(line.rstrip(), width, overflow)
    space = width - cell_len(line)
    if justify == "right":
        return " " * space + line
    left = space // 2
    return " " * left + line + " " * (space - left)


def _fit(line: str, width: int) -> str:
    """A rendered line made exactly `width` cells (Rich's render_lines with pad)."""
    length = cell_len(line)
    if length < width:
        return line + " " * (width - length)
    return set_cell_size(line, width) if length > width else line


def panel_lines(panel: Panel, width: int) -> list[str]:
    """Rich's Panel(body, title=..., title_align=...) with its defaults: rounded, expanded,
    padding 0 1."""
    top_left, top, _, top_right = BOXES["ROUNDED"][0]
    side = BOXES["ROUNDED"][3][0]
    bottom_left, bottom, _, bottom_right = BOXES["ROUNDED"][7]
    inner = width - 4
    if inner < 1:
        raise Unsupported("narrow panel")
    body = [" " + _fit(line, inner) + " " for line in wrap(panel.body.plain, inner, "default", "fold", False)]
    title = _cell_text(panel.title) if panel.title is not None else ""
    if not title or width <= 4:
        head = top_left + top * (width - 2) + top_right
    else:
        _unaltered(title)
        shown = _truncate(" " + title.replace("\n", " ") + " ", inner, "fold")
        head = top_left + top + _aligned(shown, inner, panel.title_align, top) + top + top_right
    return [head, *(side + line + side for line in body), bottom_left + bottom * (width - 2) + bottom_right]


def _aligned(text: str, width: int, align: str, character: str) -> str:
    excess = width - cell_len(text)
    if align == "left":
        return text + character * excess
    if align == "center":
        return character * (excess // 2) + text + character * (excess - excess // 2)
    return character * excess + text


def table_lines(table: Table, width: int) -> list[str]:
    """Rich's Table at `width` (not expanded, no title: those are Rich's to draw)."""
    if table.expand or table.title is not None or not table.columns or table.padding[0] or table.padding[2]:
        raise Unsupported("table option")
    if table.box is not None and (table.box not in BOXES or not table.show_header):
        raise Unsupported("box")
    columns = table.columns
    if any(len(row) != len(columns) for row in table.rows):
        raise Unsupported("a row of another length")
    cells = [([_cell_text(column.header)] if table.show_header else []) + [_cell_text(row[i]) for row in table.rows]
             for i, column in enumerate(columns)]
    extra = (2 if table.box and table.show_edge else 0) + (len(columns) - 1 if table.box else 0)
    widths = _column_widths(table, cells, width - extra)
    rendered = [[_cell_lines(table, i, column, text, w) for text in texts]
                for i, (column, texts, w) in enumerate(zip(columns, cells, widths))]
    return _draw(table, widths, list(zip(*rendered)))


def _draw(table: Table, widths: list[int], rows: list[tuple[list[str], ...]]) -> list[str]:
    box = BOXES[table.box] if table.box else None
    edge = table.show_edge
    lines = []
    if box and edge:
        lines.append(box[0][0] + box[0][2].join(box[0][1] * w for w in widths) + box[0][3])
    for index, row in enumerate(rows):
        header = index == 0 and table.show_header
        height = max(1, *(len(cell) for cell in row))
        shaped = [_shape(cell, w, height, bottom=header) for cell, w in zip(row, widths)]
        if box:
            left, _, divider, right = box[1 if index == 0 else (6 if index == len(rows) - 1 else 3)]
            for n in range(height):
                lines.append((left if edge else "") + divider.join(cell[n] for cell in shaped) + (right if edge else ""))
        else:
            lines += ["".join(cell[n] for cell in shaped) for n in range(height)]
        if box and header:
            left, horizontal, cross, right = box[2]
            lines.append((left if edge else "") + cross.join(horizontal * w for w in widths) + (right if edge else ""))
    if box and edge:
        lines.append(box[7][0] + box[7][2].join(box[7][1] * w for w in widths) + box[7][3])
    return lines


def _shape(cell: list[str], width: int, height: int, bottom: bool) -> list[str]:
    """A cell's lines made `height` tall: a header's text sits at the bottom, a row's at the top."""
    blank = [" " * width] * (height - len(cell))
    return blank + cell if bottom else cell + blank


def _padding(table: Table, index: int) -> tuple[int, int]:
    """(left, right) of a cell, as Rich pads it (_get_cells; the first and last rows differ
    from the others only above and below, which plain.py leaves to Rich)."""
    _, right, _, left = table.padding
    if table.collapse_padding and index != 0:
        left = max(0, left - right)
    if not table.pad_edge:
        if index == 0:
            left = 0
        if index == len(table.columns) - 1:
            right = 0
    return left, right


def _padding_width(table: Table, index: int) -> int:
    """The padding Rich counts when it measures a column (_get_padding_width), which with
    collapse_padding is not always what it draws."""
    _, right, _, left = table.padding
    if table.collapse_padding:
        left, right = 0, abs(0 - right)
    if not table.pad_edge:
        if index == 0:
            left = 0
        if index == len(table.columns) - 1:
            right = 0
    return left + right


def _cell_lines(table: Table, index: int, column: Column, text: str, width: int) -> list[str]:
    left, right = _padding(table, index)
    inner = width - left - right
    if inner < 1:
        return []  # Rich renders nothing in no room; the row's height gives the cell blank lines
    lines = wrap(text, inner, column.justify, column.overflow, column.no_wrap)
    return [" " * left + _fit(line, inner) + " " * right for line in lines]


@functools.lru_cache(maxsize=4096)  # a table measures each cell twice when it narrows columns
def _text_measure(text: str) -> tuple[int, int]:
    lines = text.splitlines()
    longest = max(cell_len(line) for line in lines) if lines else 0
    words = text.split()
    return (max(cell_len(word) for word in words) if words else longest), longest


def _normalized(low: int, high: int, limit: int) -> tuple[int, int]:
    """Measurement.get's normalize, with_maximum, (0, 0) when nothing fits, normalize."""
    low = min(max(0, low), high)
    low, high = max(0, low), max(0, max(low, high))
    low, high = min(low, limit), min(high, limit)
    if high < 1:
        return 0, 0
    low = min(max(0, low), high)
    return max(0, low), max(0, max(low, high))


def _measure_cell(table: Table, index: int, measure: tuple[int, int], limit: int) -> tuple[int, int]:
    """Measurement.get of a cell (its text measured as `measure`) in its Padding, at `limit`."""
    if limit < 1:
        return 0, 0
    if not any(table.padding):
        return _normalized(*measure, limit)
    left, right = _padding(table, index)
    extra = left + right
    if limit - extra < 1:
        low, high = limit, limit
    else:
        low, high = _normalized(*measure, limit - extra)
        low, high = min(low + extra, limit), min(high + extra, limit)
    return _normalized(low, high, limit)


def _measure_column(table: Table, index: int, texts: list[str], limit: int) -> tuple[int, int]:
    if limit < 1:
        return 0, 0
    column = table.columns[index]
    padding = _padding_width(table, index)
    if column.width is not None:
        fixed = column.width + padding
        return min(fixed, limit), min(fixed, limit)
    measured = [_measure_cell(table, index, measure, limit) for measure in set(map(_text_measure, texts))]
    low = max(m[0] for m in measured) if measured else 1
    high = max(m[1] for m in measured) if measured else limit
    low, high = min(low, limit), min(high, limit)
    if column.min_width is not None:
        low, high = max(low, column.min_width + padding), max(high, column.min_width + padding)
    if column.max_width is not None:
        low, high = min(low, column.max_width + padding), min(high, column.max_width + padding)
    return low, high


def _column_widths(table: Table, cells: list[list[str]], limit: int) -> list[int]:
    """Rich's _calculate_column_widths for a table that is not expanded."""
    columns = range(len(table.columns))
    widths = [_measure_column(table, i, cells[i], limit)[1] or 1 for i in columns]
    if sum(widths) > limit:
        wrapable = [c.width is None and not c.no_wrap for c in table.columns]
        widths = _collapse(widths, wrapable, limit)
        if sum(widths) > limit:
            widths = _ratio_reduce(sum(widths) - limit, [1] * len(widths), widths, widths)
        widths = [_measure_column(table, i, cells[i], w)[1] or 0 for i, w in zip(columns, widths)]
    return widths


def _collapse(widths: list[int], wrapable: list[bool], limit: int) -> list[int]:
    """The widest wrapable columns narrowed, together, until the table fits or none is left."""
    total = sum(widths)
    excess = total - limit
    if not any(wrapable):
        return widths
    while total and excess > 0:
        widest = max(w for w, ok in zip(widths, wrapable) if ok)
        second = max(w if ok and w != widest else 0 for w, ok in zip(widths, wrapable))
        ratios = [1 if w == widest and ok else 0 for w, ok in zip(widths, wrapable)]
        if not any(ratios) or not widest - second:
            break
        widths = _ratio_reduce(excess, ratios, [min(excess, widest - second)] * len(widths), widths)
        total = sum(widths)
        excess = total - limit
    return widths


def _ratio_reduce(total: int, ratios: list[int], maximums: list[int], values: list[int]) -> list[int]:
    """`total` taken off `values` in proportion to `ratios`, none by more than its maximum
    (rounded as Rich rounds, so the same columns lose the same cells)."""
    ratios = [r if m else 0 for r, m in zip(ratios, maximums)]
    remaining_ratio = sum(ratios)
    if not remaining_ratio:
        return values[:]
    remaining = total
    result = []
    for ratio, maximum, value in zip(ratios, maximums, values):
        if ratio and remaining_ratio > 0:
            taken = min(maximum, round(ratio * remaining / remaining_ratio))
            result.append(value - taken)
            remaining -= taken
            remaining_ratio -= ratio
        else:
            result.append(value)
    return result
