"""NO_COLOR that keeps every word legible.

Textual honours NO_COLOR by turning each colour into the grey of the same brightness.
Red and magenta are dark, so a red error message or a red ✗ became dark grey on a
dark background: there, but unreadable. This filter does the same conversion and then
lifts (or sinks) any grey that sits too close to its background.
"""

from __future__ import annotations

from functools import lru_cache

from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.filter import LineFilter, monochrome_style

MIN_CONTRAST = 0.25
"""The least brightness difference (0..1) between a text's grey and its background's."""
LIGHT = Color(200, 200, 200)
DARK = Color(30, 30, 30)


@lru_cache(1024)
def legible_style(style: Style, background: Color) -> Style:
    """`style` in greys, its text colour moved away from the background when too close."""
    grey = monochrome_style(style)
    if grey.color is None:
        return grey
    text = Color.from_rich_color(grey.color)
    behind = Color.from_rich_color(grey.bgcolor) if grey.bgcolor is not None else background.monochrome
    if abs(text.brightness - behind.brightness) >= MIN_CONTRAST:
        return grey
    lifted = LIGHT if behind.brightness < 0.5 else DARK
    return grey + Style(color=lifted.rich_color)


class LegibleMonochrome(LineFilter):
    """Textual's Monochrome filter, with a minimum contrast (see the module's docstring)."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        return [
            Segment(text, None if style is None else legible_style(style, background), None)
            for text, style, _ in segments
        ]
