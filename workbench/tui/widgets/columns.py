"""The claims table's columns and how one row is drawn (Rich Text, cells literal)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from store import ClaimRow, Run
from store.text_matches import TextMatcher
from workbench.render.display import one_line, pad_to_cells, printable
from workbench.render.search_marks import SEARCH_MATCH
from workbench.render.verdicts import flag_marks, verdict_mark

IMPORTANCE_SHORT = {"Main": "Main", "Sub": "Sub", "Irrelevant": "Irr"}


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    width: int
    align: str = "left"


IMAGE_MARK = "▣"
"""The browser's mark for a claim with an image."""


def layout(width: int, run_titles: list[str], sort: str = "id", images: bool = False) -> list[Column]:
    """Columns for a table `width` cells wide: fixed ones, a marker per run, the claim in the rest.

    The claim date shows on wide screens, and whenever the table is sorted by it.
    """
    wide = width >= 110
    columns = [
        Column("mark", " ", 1),
        Column("id", "id", 7, "right"),
        Column("label", "gold", 14 if wide else 10),
        Column("importance", "imp", 4),
        Column("task", "task/domain", 16 if wide else 10),
    ]
    if wide or sort == "date":
        columns.append(Column("date", "date", 10))
    columns.append(Column("flags", "flag", 4))
    if images:
        columns.append(Column("image", IMAGE_MARK, 1))
    columns += [Column(f"run{n}", title, 3) for n, title in enumerate(run_titles)]
    used = sum(c.width for c in columns) + len(columns)
    columns.append(Column("text", "claim", max(width - used, 8)))
    return columns


def run_titles(runs: list[Run]) -> list[str]:
    """A 3-cell title per run column: the name's start, or the run's id (#12, as in the filter
    run:12 and the run picker) when two runs' names start alike, so no two columns look the same."""
    starts = [printable(run.name)[:3] or "run" for run in runs]
    return [
        start if starts.count(start) == 1 else (f"#{run.id}" if run.id < 100 else str(run.id)[-3:])
        for start, run in zip(starts, runs)
    ]


def fit(text: str, width: int, align: str = "left") -> str:
    """One line exactly `width` cells (cut with an ellipsis)."""
    return pad_to_cells(one_line(text, width), width, align)  # by cells: 交通 takes four


# The sort order each sortable column stands for (the task/domain column sorts by task).
COLUMN_SORTS = {"id": "id", "label": "label", "importance": "importance", "task": "task", "date": "date"}


def column_at(columns: list[Column], x: int) -> Column | None:
    """The column under cell `x` of a line (each column is followed by one blank cell)."""
    start = 0
    for column in columns:
        if start <= x < start + column.width + 1:
            return column
        start += column.width + 1
    return None


def header_text(columns: list[Column], sort: str, descending: bool) -> Text:
    """The header line; the sorted column carries an arrow."""
    line = Text()
    shown_sort = "task" if sort == "domain" else sort
    for column in columns:
        title = column.title
        if COLUMN_SORTS.get(column.key) == shown_sort:  # cut the title, never the arrow
            title = one_line(title, column.width - 1) + ("↓" if descending else "↑")
        line.append(fit(title, column.width, column.align) + " ")
    return line


def row_text(
    row: ClaimRow,
    columns: list[Column],
    run_ids: tuple[int, ...],
    marked: bool,
    scored: dict[str, set[str]],
    matcher: TextMatcher | None = None,
) -> Text:
    """One claim as a table line; what `matcher` (the filter's text terms) finds in the claim
    text is highlighted."""
    line = Text(no_wrap=True, overflow="crop")
    runs = iter(run_ids)
    for column in columns:
        key = column.key
        if key == "mark":
            line.append("●" if marked else " ", style="bold")
        elif key == "id":
            line.append(fit(str(row.id), column.width, "right"), style="dim")
        elif key == "label":
            line.append(fit(row.label or "—", column.width), style="bold")
        elif key == "importance":
            line.append(fit(IMPORTANCE_SHORT.get(row.importance or "", ""), column.width))
        elif key == "task":
            line.append(fit("/".join(filter(None, [row.task, row.domain])), column.width), style="dim")
        elif key == "date":
            line.append(fit(row.claim_date or "", column.width), style="dim")
        elif key == "flags":
            marks = flag_marks(row.flags)
            line.append(fit(marks.plain, column.width), style=marks.style)
        elif key == "image":
            line.append(IMAGE_MARK if row.has_image else " ", style="bold cyan")
        elif key.startswith("run"):
            run_id = next(runs)
            status, verdict = row.verdicts.get(run_id, (None, None))
            line.append(" ")
            line.append_text(verdict_mark(status, verdict, row.label, scored.get(row.dataset)))
            line.append(" ")
        else:
            shown, start = fit(row.text, column.width), len(line)
            line.append(shown)
            for begin, end in matcher.spans(shown) if matcher else ():
                line.stylize(SEARCH_MATCH, start + begin, start + end)
        line.append(" ")
    return line
