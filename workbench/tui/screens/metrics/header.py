"""The metrics view's one-line header, fitted to its width: each run's name and how far it
is answered, the flag left out, whether it is reading. Narrow, the counts turn compact
(`9/11`), then names lose their middle (`smollm2…pages-2`: the end tells runs apart);
nothing is cut off the end of the line."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text

from workbench.render.display import literal, one_line
from workbench.render.listing import middle_cut
from workbench.tui.screens.metrics.watch import PanelUpdate


def header_line(update: PanelUpdate | None, loading: bool, error: str | None, width: int = 10_000) -> Text:
    """Which runs, how far along, and what the toggles are set to, in `width` cells."""
    line = Text("metrics", style="bold")
    if error:
        line.append(" · ")
        line.append_text(literal(one_line(error, max(width - 10, 10)), "bold red"))
        return line
    if update is None:
        line.append(" · reading…" if loading else " · no runs")
        return line
    for compact, flagged, name_width in FITS:
        fitted = _line(update, loading, compact, flagged, name_width)
        if cell_len(fitted.plain) <= width:
            return fitted
    return fitted


FITS = (
    (False, True, 10_000),
    (False, True, 30),
    (True, True, 30),
    (True, True, 20),
    (True, False, 20),
    (True, False, 14),
    (True, False, 9),
)
"""(compact counts, each run's flagged count, name width), tried in turn until the line fits."""


def _line(update: PanelUpdate, loading: bool, compact: bool, flagged: bool, name_width: int) -> Text:
    line = Text("metrics", style="bold")
    exclude = update.config.exclude_flag
    for numbers in update.runs:
        name = middle_cut(one_line(numbers.run.name), name_width)  # the end (-2, -3) tells runs apart
        line.append(" · ")
        line.append_text(literal(name, "bold"))
        done = numbers.overall.scored + numbers.overall.errors
        items = numbers.items - numbers.overall.excluded
        line.append(f" {done:,}/{items:,}" if compact else f" {done:,} of {items:,} answered")
        if exclude and flagged:
            line.append(f" ({numbers.flagged:,}⚑)" if compact else f", {numbers.flagged:,} flagged")
        if numbers.run.status == "running":
            line.append(" ●" if compact else " ● live", style="bold green")
    if exclude:
        line.append(" · without ")
        line.append_text(literal(exclude, "bold yellow"))
    if loading:
        line.append(" · reading…", style="dim")
    return line
