"""Driving the metrics view in a host app: waiting until it settled, reading its panels."""

from __future__ import annotations

import io

from textual.app import App
from textual.widgets import Input, Static

from tests.support.tui import until
from workbench.tui.screens.metrics.screen import MetricsScreen


class Host(App):
    """Pushes the metrics view; records what it asks the claims browser to show."""

    def __init__(self, db_path, run_ids, by=None):
        super().__init__()
        self.screen_args = (db_path, run_ids, by)
        self.shown: list[str] = []

    def on_mount(self) -> None:
        db_path, run_ids, by = self.screen_args
        self.push_screen(MetricsScreen(db_path, run_ids, by, poll_seconds=0.05, resamples=100))

    def show_claims(self, filter_text: str) -> None:
        self.shown.append(filter_text)


def settled(screen: MetricsScreen) -> bool:
    """Numbers are read and their intervals are as fresh as they are; the key bar is up
    (it is mounted right after the first numbers)."""
    from textual.widgets import Footer

    update, intervals = screen.update, screen.intervals
    return (
        update is not None
        and intervals is not None
        and intervals.generation == update.generation
        and update.config == screen.wanted()
        and bool(screen.query(Footer))
    )


def panel_text(screen: MetricsScreen, selector: str = "#overall-panel") -> str:
    from rich.console import Console

    console = Console(width=200, record=True, file=io.StringIO())
    console.print(screen.query_one(selector, Static).content)
    return console.export_text()


def settle_view(*keys: str):
    async def run_before(pilot) -> None:
        screen = pilot.app.screen
        await until(pilot, lambda: settled(screen))
        for key in keys:
            await pilot.press(key)
            await until(pilot, lambda: settled(screen))
        for field in screen.query(Input):
            field.cursor_blink = False
        pilot.app.clear_notifications()  # the toggle's toast would time out at a random moment
        await pilot.pause()

    return run_before


def report_words(screen) -> str:
    """The report panel's text as drawn (its words, rules and wrapping left out)."""
    import io

    from rich.console import Console

    panel = screen.query_one("#report-panel")
    if panel._shown is None or not panel.display:
        return ""
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(panel._shown)
    return " ".join(console.export_text().replace("│", " ").replace("─", " ").split())
