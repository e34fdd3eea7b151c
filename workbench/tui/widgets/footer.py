"""The key bar every screen shows: Textual's Footer, fitted to the terminal's width.

When the keys that apply do not fit on one line (80 columns often cannot hold them all),
the least important are left out whole, so no key is ever cut mid-word ("K Can", "u Und");
`?` lists every key. Most important first: what is going on now (K cancels a run, u undoes),
help; then the keys in the order they are bound (the focused widget's first, then the
screen's); quit last, since everybody knows q.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

FIRST = ("cancel_run", "undo", "help")
"""Actions whose keys stay longest (in this order)."""
LAST = ("quit",)
"""Actions whose keys go first."""


class KeyFooter(Footer):
    """A compact Footer that leaves out whole keys, least important first, to fit its width."""

    def __init__(self, **options):
        options.setdefault("compact", True)  # 80 columns hold more keys
        super().__init__(**options)

    async def recompose(self) -> None:
        await super().recompose()
        self.fit_keys()

    def on_resize(self) -> None:
        self.fit_keys()

    def fit_keys(self) -> None:
        """Show the most important keys that fit; hide the rest whole."""
        if not self.size.width:
            return
        keys = [child for child in self.children if not child.has_class("-command-palette")]
        palette = [child for child in self.children if child.has_class("-command-palette")]
        room = self.size.width - sum(self._width(child) for child in palette)
        shown: set[Widget] = set()
        for child in sorted(keys, key=lambda c: (_rank(c), keys.index(c))):
            width = self._width(child)
            if width > room:
                break  # strictly by importance: a later key never takes the place of a dropped one
            room -= width
            shown.add(child)
        for child in keys:
            child.display = child in shown

    def _width(self, child: Widget) -> int:
        """The cells a key takes on the bar: its text, its padding and border, its margins."""
        screen = self.app.size
        content = child.get_content_width(Size(self.size.width, 1), screen)
        return content + child.styles.gutter.width + child.styles.margin.width


def _rank(child: Widget) -> int:
    action = getattr(child, "action", "") if isinstance(child, FooterKey) else ""
    action = action.rpartition(".")[2].partition("(")[0]
    if action in FIRST:
        return FIRST.index(action)
    return len(FIRST) + (1 if action in LAST else 0)
