"""Showing untrusted text (claims, evidence, model output) exactly as typed.

Nothing from a dataset or a model is ever parsed as Rich/Textual markup, and no
control character reaches the terminal: escape sequences are shown as visible text.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.text import Text

# C0 controls except tab and newline, DEL, and C1 controls (which include CSI).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(value: object) -> str:
    """`value` as text with control characters made visible (ESC -> '\\x1b')."""
    text = "" if value is None else str(value)
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def literal(value: object, style: str = "") -> Text:
    """A Rich Text holding `value` literally: no markup, no control codes."""
    from rich.text import Text  # here: the commands that print without Rich never load it

    return Text(printable(value), style=style)


def one_line(value: object, width: int | None = None) -> str:
    """Printable text on one line (newlines as spaces), cut to `width` terminal cells with an
    ellipsis. A double-width character (Japanese, Chinese) is kept whole or left out, never
    halved: where one would straddle the cut, a space takes its place."""
    text = " ".join(printable(value).split())
    if width is not None and cells(text) > width:
        return cut_to_cells(text, max(width - 1, 0)) + "…"
    return text


def cells(text: str) -> int:
    """How many terminal cells `text` takes (a Japanese character takes two)."""
    if text.isascii():
        return len(text)
    from rich.cells import cell_len  # only for wide text: the plain commands never load Rich

    return cell_len(text)


def cut_to_cells(text: str, width: int) -> str:
    """`text` cut (or padded with spaces) to exactly `width` cells, wide characters kept whole."""
    if text.isascii():
        return text[:width].ljust(width)
    from rich.cells import set_cell_size

    return set_cell_size(text, width)


def pad_to_cells(text: str, width: int, align: str = "left") -> str:
    """`text` (at most `width` cells) padded with spaces to `width` cells."""
    gap = " " * max(width - cells(text), 0)
    return gap + text if align == "right" else text + gap


def run_names(runs, width: int) -> list[str]:
    """Each run's name on one line in `width` cells; where two cut names would read alike,
    the run's id leads ("#12 smollm2-jsf…"), as the claims table's columns and `run:12` do."""
    cut = [one_line(run.name, width) for run in runs]
    return [
        one_line(f"#{run.id} {run.name}", width)
        if any(_read_alike(name, other) for j, other in enumerate(cut) if j != i)
        else name
        for i, (name, run) in enumerate(zip(cut, runs))
    ]


def _read_alike(one: str, other: str) -> bool:
    """Two names as shown: the same, or one cut short where the other goes on alike
    ("…claim+tim…" beside "…claim+time")."""
    if one == other:
        return True
    if not (one.endswith("…") or other.endswith("…")):
        return False
    one, other = one.removesuffix("…"), other.removesuffix("…")
    return one.startswith(other) or other.startswith(one)
