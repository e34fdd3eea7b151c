"""A claim's images in the detail view: what is known of each, and the picture itself.

Pictures are drawn with textual-image: Kitty (TGP) or Sixel graphics where the terminal
has them, Unicode half-blocks elsewhere (over SSH, in tmux). textual-image asks the
terminal what it can do when it is first imported, which is only possible before Textual
takes the terminal over: `prepare_renderer` runs then (the TUI calls it at start when the
database has images). Without it, pictures are drawn with half-blocks, which need no asking.
"""

from __future__ import annotations

import io

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from store import ClaimImage
from workbench.render.display import literal

RENDERERS = ("auto", "tgp", "sixel", "halfcell", "unicode", "off")
_chosen: type[Widget] | None = None
_setting = "halfcell"


def prepare_renderer(setting: str) -> None:
    """Pick the picture widget for this terminal (call before the app starts)."""
    global _chosen, _setting
    _setting = setting if setting in RENDERERS else "auto"
    if _setting == "off":
        return
    import textual_image.widget as widgets  # asks the terminal, once

    _chosen = {
        "auto": widgets.Image,
        "tgp": widgets.TGPImage,
        "sixel": widgets.SixelImage,
        "halfcell": widgets.HalfcellImage,
        "unicode": widgets.UnicodeImage,
    }[_setting]


def picture_class() -> type[Widget] | None:
    """The widget pictures are drawn with here (None: pictures are off)."""
    return _picture_class()


def opened_image(content: bytes):
    """Image bytes as the PIL image the picture widgets take."""
    return _opened(content)


def _picture_class() -> type[Widget] | None:
    global _chosen
    if _setting == "off":
        return None
    if _chosen is None:  # not prepared before the start: half-blocks need nothing of the terminal
        from textual_image.widget import HalfcellImage

        _chosen = HalfcellImage
    return _chosen


def image_line(image: ClaimImage, number: int, count: int) -> Text:
    """'image 1 of 2 · images/a.png · PNG 320×200 · 800 bytes · sha256 acd082…'."""
    line = Text(f"image {number} of {count} · ", style="bold")
    line.append_text(literal(image.source))
    if image.sha256 is None:
        line.append(" · given by URL, not downloaded (sent as the URL where a provider takes one)", style="dim")
        return line
    kind = (image.mime or "").removeprefix("image/").upper()
    line.append(
        f" · {kind} {image.width}×{image.height} · {image.bytes:,} bytes · sha256 {image.sha256[:12]}…", style="dim"
    )
    return line


class ClaimImages(VerticalScroll):
    """Each image of a claim: its line of facts, then the picture (16 rows at most)."""

    HELP = """\
The claim's images as the models are sent them: each with its file (or URL), type,
size and content hash, and the picture drawn in the terminal (Kitty or Sixel graphics
where the terminal has them, half-blocks elsewhere). ↑/↓ scroll."""

    DEFAULT_CSS = """
    ClaimImages .claim-picture { height: auto; max-height: 16; width: auto; margin: 0 0 1 0; }
    """

    def compose(self) -> ComposeResult:
        yield Static(Text("reading…", style="dim"), id="images-note")

    def show(self, images: list[ClaimImage], data: dict[str, bytes]) -> None:
        self.remove_children()
        if not images:
            self.mount(Static(Text("this claim has no image", style="dim")))
            return
        picture = _picture_class()
        for number, image in enumerate(images, 1):
            self.mount(Static(image_line(image, number, len(images))))
            content = data.get(image.sha256 or "")
            if picture is not None and content:
                self.mount(picture(_opened(content), classes="claim-picture"))
        if picture is None:
            self.mount(Static(Text('pictures are off (images = "off" in the config)', style="dim")))


def _opened(content: bytes):
    from PIL import Image

    image = Image.open(io.BytesIO(content))
    image.load()
    return image
