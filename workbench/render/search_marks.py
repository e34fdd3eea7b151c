"""What a search found, marked where it lies in a text (the claims table, the detail, `show`).

The places come from store.text_matches (the same rules as the SQL a filter compiles to);
this module only draws them. Bold and underlined as well as coloured, so the mark stays
visible with NO_COLOR and on a monochrome terminal.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from typing import TYPE_CHECKING

from workbench.render.display import printable

if TYPE_CHECKING:
    from rich.text import Text

SEARCH_MATCH = "bold underline black on yellow"


def finder(find: str, field: str | None = None) -> Callable[[str], list[tuple[int, int]]]:
    """The spans of a text that the filter `find` searches for (its claim-text terms, or its
    `evidence:` terms with field "evidence"); without a filter, none, and the parser of
    text terms is not imported (a reading command prints sooner)."""
    if not find.strip():
        return _nowhere
    from store.text_matches import text_matcher

    return text_matcher(find, field).spans


def _nowhere(text: str) -> list[tuple[int, int]]:
    return []


def marked(
    text: str,
    spans: list[tuple[int, int]],
    style: str = "",
    mark: str = SEARCH_MATCH,
    passage: tuple[int, int] | None = None,
    passage_style: str = "reverse",
) -> Text:
    """Literal `text` in `style`, each (start, end) span in `mark` as well, and the quoted
    `passage` (if any) in `passage_style` beneath the marks."""
    from rich.text import Text  # here: the commands that mark nothing need not load it

    cuts = sorted({0, len(text), *(edge for span in spans for edge in span), *(passage or ())})
    block = Text(style=style)
    for start, end in pairwise(cuts):
        styles = [passage_style] if passage and passage[0] <= start < passage[1] else []
        if any(a <= start < b for a, b in spans):
            styles.append(mark)
        block.append(printable(text[start:end]), " ".join(styles))
    return block
