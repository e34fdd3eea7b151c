"""What a search found, marked where it lies in a text (the claims table, the detail, `show`).

The places come from store.text_matches (the same rules as the SQL a filter compiles to);
this module only draws them. Bold and underlined as well as coloured, so the mark stays
visible with NO_COLOR and on a monochrome terminal.
"""

from __future__ import annotations

from workbench.render.blocks import Styled
from workbench.render.display import printable

SEARCH_MATCH = "bold underline black on yellow"


def marked(text: str, spans: list[tuple[int, int]], style: str = "", mark: str = SEARCH_MATCH) -> Styled:
    """Literal `text` in `style`, each (start, end) span in `mark` as well."""
    block = Styled(style=style)
    position = 0
    for start, end in spans:
        block.append(printable(text[position:start])).append(printable(text[start:end]), mark)
        position = end
    return block.append(printable(text[position:]))
