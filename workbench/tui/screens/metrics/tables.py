"""The metrics view's DataTables: confusion matrices, the breakdown, the flips, and the
claims-browser filter behind each cell or row (Enter opens it)."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from workbench.metrics import NO_VALUE, PARSE_FAILURE, MetricSummary
from workbench.render.display import literal, one_line, run_names
from workbench.render.score_text import number
from workbench.scoring.compare import filter_value
from workbench.scoring.fields import FLAG_NO, FLAG_YES
from workbench.tui.screens.metrics.panels import ci_text, run_intervals
from workbench.tui.screens.metrics.watch import IntervalSet, PanelUpdate, RunIntervals
from workbench.tui.widgets.filled_table import fill_table


class ConfusionTable(DataTable):
    """One run's confusion matrix; Enter on a cell opens its claims in the browser."""

    def __init__(self, run_index: int, **kwargs):
        super().__init__(cursor_type="cell", zebra_stripes=True, **kwargs)
        self.run_index = run_index
        self.fixed_columns = 1


def keeping_cursor(table: DataTable, fill):
    """Refill a table without moving its cursor (numbers change under the user's eyes)."""
    coordinate = table.cursor_coordinate
    result = fill(table)
    if table.row_count:
        table.move_cursor(
            row=min(coordinate.row, table.row_count - 1),
            column=min(coordinate.column, max(len(table.columns) - 1, 0)),
            animate=False,
        )
    return result


def fill_confusion(table: DataTable, numbers, filtered: MetricSummary | None) -> None:
    """Gold down, predicted across; 'n (m)' where m is without the flagged claims."""
    confusion = numbers.overall.confusion
    columns = [("gold", Text("gold \\ predicted"))]
    columns += [(str(n), literal(one_line(column, 18))) for n, column in enumerate(confusion.columns)]
    rows = []
    for row, gold in enumerate(confusion.classes):
        cells = [literal(one_line(gold, 24), "bold")]
        for col in range(len(confusion.columns)):
            text = Text(f"{confusion.counts[row, col]:,}", style="bold" if row == col else "")
            if filtered is not None:
                text.append(f" ({filtered.confusion.counts[row, col]:,})", style="dim")
            cells.append(text)
        rows.append(cells)
    fill_table(table, columns, rows, keys=[str(row) for row in range(len(rows))])


def confusion_filter(run_name: str, summary: MetricSummary, row: int, col: int) -> str | None:
    """The claims-browser filter for one confusion cell; on the gold-label column, the
    whole row (every scored answer for that gold class)."""
    confusion = summary.confusion
    if row >= len(confusion.classes) or col >= len(confusion.columns):
        return None
    base = f"run:{filter_value(run_name)} label:{filter_value(confusion.classes[row])}"
    if col < 0:
        return f"{base} predicted -status:error"
    predicted = confusion.columns[col]
    if predicted == PARSE_FAILURE:
        return f"{base} status:parse_failure"
    if predicted == confusion.abstain_label:
        return f"{base} status:abstain"
    return f"{base} verdict:{filter_value(predicted)}"


BREAKDOWN_COLUMNS = ("run", "n", "accuracy", "95% CI", "macro-F1", "95% CI ", "MCC", "UR", "cov.")


def fill_breakdown(table: DataTable, update: PanelUpdate, intervals: IntervalSet | None) -> list[tuple]:
    """A row per slice value and run; returns (run index, value) per row for Enter."""
    fresh = intervals is not None and intervals.generation == update.generation
    exclude = update.config.exclude_flag
    columns = [("value", literal(update.field_name or ""))]
    columns += [
        (name, Text(name)) for name in BREAKDOWN_COLUMNS + (("n w/o", "macro-F1 w/o", "CI w/o") if exclude else ())
    ]
    keys, rows = [], []
    values = list(dict.fromkeys(v for n in update.runs for v in n.slices))
    names = run_names([numbers.run for numbers in update.runs], 20)
    for value in values:
        for index, numbers in enumerate(update.runs):
            s = numbers.slices.get(value)
            if s is None:
                continue
            found = run_intervals(intervals, index, False)
            ci = found.slices.get(value, {}) if found else {}
            cells = [
                literal(one_line(value, 28)),
                literal(names[index]),
                f"{s.scored:,}",
                number(s.accuracy),
                ci_text(ci.get("accuracy"), fresh, s.scored),
                number(s.macro_f1),
                ci_text(ci.get("macro_f1"), fresh, s.scored),
                number(s.mcc),
                number(s.unknown_rate),
                number(s.coverage),
            ]
            if exclude:
                cells += _filtered_cells(numbers, value, run_intervals(intervals, index, True), fresh)
            rows.append(cells)
            keys.append((index, value))
    fill_table(table, columns, rows)
    return keys


def _filtered_cells(numbers, value: str, found: RunIntervals | None, fresh: bool) -> list:
    s = (numbers.filtered_slices or {}).get(value)
    if s is None:
        return ["0", "—", ""]
    ci = found.slices.get(value, {}) if found else {}
    return [f"{s.scored:,}", number(s.macro_f1), ci_text(ci.get("macro_f1"), fresh, s.scored)]


def slice_filter(run_name: str, field: str, value: str, cutoff: str | None) -> str | None:
    """The claims-browser filter for one slice of one run (None when the language has none)."""
    run = f"run:{filter_value(run_name)}"
    if value == NO_VALUE:
        return None
    if field in ("importance", "task", "domain", "label"):
        return f"{run} {field}:{filter_value(value)}"
    if field == "claim-type":
        return f"{run} attr.claim_types:{filter_value(value)}"
    if field.startswith("attr."):
        return f"{run} {field}:{filter_value(value)}"
    if field.startswith("flag:"):
        kind = filter_value(field[5:])
        return f"{run} flagged:{kind}" if value == FLAG_YES else f"{run} -flagged:{kind}" if value == FLAG_NO else None
    if field == "cutoff" and cutoff:
        return {"before": f"{run} date<{cutoff}", "after": f"{run} date>={cutoff}"}.get(value)
    return None


def fill_flips(table: DataTable, update: PanelUpdate) -> list[str]:
    """Two rows, right → wrong and wrong → right; returns their browser filters."""
    columns = [(name, Text(name)) for name in ("flip", "claims", "w/o flagged", "browser filter (Enter)")]
    c, f = update.comparison, update.filtered_comparison
    if c is None or not c.shared:  # no shared items: no flips to count
        fill_table(table, columns, [])
        return []
    flips = [
        ("right in A → wrong in B", c.right_to_wrong, f.right_to_wrong if f else None, c.right_to_wrong_filter),
        ("wrong in A → right in B", c.wrong_to_right, f.wrong_to_right if f else None, c.wrong_to_right_filter),
    ]
    rows = [
        [Text(label), f"{len(ids):,}", f"{len(filtered_ids):,}" if filtered_ids is not None else "", literal(text)]
        for label, ids, filtered_ids, text in flips
    ]
    fill_table(table, columns, rows)
    return [text for *_, text in flips]
