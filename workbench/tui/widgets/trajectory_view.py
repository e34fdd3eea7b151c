"""The Trajectory tab: every search run's steps for one claim, and beside each image the
model looked at, the picture itself (drawn with textual-image, as the Images tab draws a
claim's) with the query that found it, its title, site, page and address."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static

from store import Step, StoredResult
from workbench.render.display import literal, one_line
from workbench.render.trajectories import image_facts_line, image_origin, run_heading, step_text, trajectories_body
from workbench.tui.widgets.claim_images import opened_image, picture_class


class TrajectoryView(VerticalScroll):
    """What search runs searched, read and looked at for this claim."""

    HELP = """\
Each search run's trajectory for this claim: every search (web or image), read, image
looked at and answer, with the results the leakage guards dropped struck through and
the reason. An image the model was shown is drawn beside the query that found it, its
title, site and page. ↑/↓, PageUp/PageDown scroll."""

    DEFAULT_CSS = """
    TrajectoryView .trajectory-image { height: auto; margin: 0 0 1 5; }
    TrajectoryView .trajectory-picture { height: auto; max-height: 12; width: auto; max-width: 40; margin: 0 2 0 0; }
    TrajectoryView .trajectory-caption { width: 1fr; height: auto; }
    """

    def compose(self) -> ComposeResult:
        yield Static(Text("reading…", style="dim"))

    def show(
        self, trajectories: list[tuple[str, list[Step], list[str]]], facts: dict, pictures: dict[str, bytes]
    ) -> None:
        self.remove_children()
        if not trajectories:
            self.mount(Static(trajectories_body([])))
            return
        draw = picture_class()
        for name, steps, labels in trajectories:
            chunk, labels_left, searches = run_heading(name), iter(labels), [0]
            for position, step in enumerate(steps):
                chunk.append_text(step_text(step, 100, labels_left, searches, facts))
                for result in step.results:
                    if result.sha256 and draw is not None and pictures.get(result.sha256):
                        self.mount(Static(chunk))
                        chunk = Text()
                        self.mount(
                            self._image_row(
                                draw, result, image_origin(steps, position, result), facts, pictures[result.sha256]
                            )
                        )
            chunk.append("\n")
            self.mount(Static(chunk))

    @staticmethod
    def _image_row(draw, result: StoredResult, origin: str | None, facts: dict, content: bytes) -> Horizontal:
        caption = Text("shown to the model\n", style="bold green")
        if origin:
            caption.append("found by ", style="dim")
            caption.append_text(literal(one_line(origin, 60), "cyan"))
            caption.append("\n")
        caption.append_text(literal(one_line(result.title or "(no title)", 80), "bold"))
        caption.append("\n")
        for part in (result.source, result.url, result.image_url):
            if part:
                caption.append_text(literal(one_line(part, 80), "dim"))
                caption.append("\n")
        caption.append(image_facts_line(result.sha256, facts), style="dim")
        return Horizontal(
            draw(opened_image(content), classes="trajectory-picture"),
            Static(caption, classes="trajectory-caption"),
            classes="trajectory-image",
        )
