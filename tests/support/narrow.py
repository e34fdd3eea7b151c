"""Drawing a renderable at a terminal width and checking what the listing layout promises:
no line wider than the terminal, values kept whole (bounded by spaces or the edge)."""

from __future__ import annotations

import os
import re

from rich.cells import cell_len
from rich.console import Console


def drawn(renderable, width: int) -> list[str]:
    """The lines `renderable` prints at `width` columns."""
    with open(os.devnull, "w") as sink:
        console = Console(width=width, record=True, file=sink)
        console.print(renderable)
    return console.export_text().splitlines()


def has_whole(lines: list[str], value: str) -> bool:
    """Whether `value` stands on one line, bounded by spaces or the edge."""
    pattern = re.compile(rf"(^|\s){re.escape(value)}(\s|$)")
    return any(pattern.search(line) for line in lines)


def assert_fits_and_keeps(renderable, width: int, whole: list[str]) -> list[str]:
    """No line wider than `width`; each of `whole` on one line, bounded by spaces or the edge."""
    lines = drawn(renderable, width)
    too_wide = [line for line in lines if cell_len(line) > width]
    assert not too_wide, f"wider than {width}: {too_wide[0]!r}"
    for value in whole:
        assert has_whole(lines, value), f"{value!r} cut at {width}:\n" + "\n".join(lines)
    return lines
