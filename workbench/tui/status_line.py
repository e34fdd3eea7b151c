"""The claims browser's status line, fitted to its width: the parts that matter most (the
count, the marks, the focus run) stay; the position and the sort give way first."""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.text import Text

from workbench.render.display import one_line

KEPT = 80
"""Parts of this priority or more are never dropped (the count, the marks, the focus run)."""
FOCUS = 6  # the focus run's place on the line


@dataclass(frozen=True)
class BrowserState:
    """What the status line tells: counts, position, sort, marks and the focus run."""

    count: int | None
    total: int | None
    row: int | None
    sort: str
    descending: bool
    marked: int
    focus_id: int | None = None
    focus_name: str = ""

    @classmethod
    def of(cls, table, count: int | None, total: int | None, focus) -> BrowserState:
        """The state of the browser's claim table (its query, position and marks)."""
        row = table.position + 1 if table.position is not None and table.current is not None else None
        return cls(
            count=count,
            total=total,
            row=row,
            sort=table.query.sort,
            descending=table.query.descending,
            marked=len(table.marked),
            focus_id=focus.id if focus is not None else None,
            focus_name=focus.name if focus is not None else "",
        )


def status_line(state: BrowserState, width: int) -> Text:
    """One line in `width` cells; parts dropped by priority rather than the end cut off (the
    focus run's name was lost once rows were marked). The count, the marks and the focus run
    stay; the run's name is shortened last (its id before it tells runs apart)."""
    shown = sorted(_parts(state), key=lambda part: -part[0])
    while shown[-1][0] < KEPT and _cells(shown) > width:
        shown.pop()  # the least important part
    over = _cells(shown) - width
    if over > 0 and state.focus_id is not None:
        name = one_line(state.focus_name)
        cut = one_line(name, max(cell_len(name) - over, 8))
        shown = [(p, place, _focus(state.focus_id, cut) if place == FOCUS else text) for p, place, text in shown]
    line = Text(no_wrap=True, overflow="ellipsis")
    for _, _, text in sorted(shown, key=lambda part: part[1]):
        line.append_text(text)
    return line


def _cells(parts) -> int:
    return sum(cell_len(text.plain) for _, _, text in parts)


def _parts(state: BrowserState) -> list[tuple[int, int, Text]]:
    """(priority, place, text) of each part that has something to say."""
    parts = [(100, 0, Text("counting…" if state.count is None else f"{state.count:,}", style="bold"))]
    parts.append((50, 1, Text(f" of {state.total:,} claims" if state.total is not None else " claims")))
    if state.row is not None:
        parts.append((20, 2, Text(f" · row {state.row:,}")))
    parts.append((30, 3, Text(f" · sort {state.sort}{'↓' if state.descending else '↑'}")))
    if state.marked:
        parts.append((80, 4, Text(f" · {state.marked:,} marked", style="bold")))
    if state.focus_id is not None:
        parts.append((90, FOCUS, _focus(state.focus_id, one_line(state.focus_name))))
    return parts


def _focus(run_id: int, name: str) -> Text:
    text = Text(f" · focus run #{run_id} ")
    text.append(name, style="bold")
    return text
