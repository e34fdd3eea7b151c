"""Radio buttons and tick lists whose chosen items carry a mark, not only a colour.

Textual draws a pressed radio button and a ticked SelectionList row with the same glyph
as an unchosen one, told apart by colour alone: under NO_COLOR, on a monochrome terminal
or for a colour-blind reader the choice is invisible. These draw ● and ✓ for the chosen.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.strip import Strip
from textual.widgets import RadioButton, SelectionList
from textual.widgets._toggle_button import ToggleButton

CHOSEN, NOT_CHOSEN = "●", " "
TICKED, NOT_TICKED = "✓", " "


class MarkedRadioButton(RadioButton):
    """A radio button showing ● when pressed and a blank when not."""

    @property
    def BUTTON_INNER(self) -> str:  # noqa: N802 - Textual reads this class-level name
        return CHOSEN if self.value else NOT_CHOSEN


class MarkedSelectionList(SelectionList):
    """A SelectionList whose ticked rows show ✓ in their box."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        segments = list(strip)
        if len(segments) < 2 or segments[1].text != ToggleButton.BUTTON_INNER:
            return strip
        try:
            option = self.get_option_at_index(self.scroll_offset.y + y)
        except Exception:  # noqa: BLE001 - past the last option: nothing to mark
            return strip
        mark = TICKED if option.value in self.selected else NOT_TICKED
        segments[1] = Segment(mark, segments[1].style)
        return Strip(segments, strip.cell_length)
