"""What the metrics view draws: Rich panels (scores, classes, comparison) and the bar chart.

Every label, run name and slice value is untrusted: it goes in as literal Text.
"""

from __future__ import annotations

from rich import box
from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from workbench.metrics import Interval, MeanInterval, MetricSummary
from workbench.render.display import literal, one_line, printable, run_names
from workbench.render.score_text import interval_text, number
from workbench.render.scores import report_parts
from workbench.render.searches import reformulation_caption, reformulation_grid, stats_view
from workbench.scoring.compare import Comparison
from workbench.tui.screens.metrics.watch import IntervalSet, PanelUpdate, RunIntervals

UPDATING = "updating…"


def ci_text(interval: Interval | None, fresh: bool, scored: int) -> Text:
    """'[0.61, 0.70]', marked '(updating…)' when it lags the numbers above it."""
    if scored == 0:
        return Text("")
    if interval is None:
        return Text(f"CI ({UPDATING})", style="dim italic")
    text = Text(interval_text(interval), style="dim")
    if not fresh:
        text.append(f" ({UPDATING})", style="dim italic")
    return text


def _value_with_ci(value: float, interval: Interval | None, fresh: bool, scored: int) -> Text:
    text = Text(number(value))
    ci = ci_text(interval, fresh, scored)
    if ci.plain:
        text.append("\n")
        text.append_text(ci)
    return text


def _columns(update: PanelUpdate) -> list[tuple[Text, int, bool]]:
    """(header, run index, filtered) per value column of the overall panel."""
    columns = []
    names = run_names([numbers.run for numbers in update.runs], 24)
    for index, numbers in enumerate(update.runs):
        columns.append((literal(names[index], "bold"), index, False))
        if numbers.filtered is not None:
            columns.append((Text(f"w/o {one_line(update.config.flag_kind, 16)}", style="italic"), index, True))
    return columns


def run_intervals(intervals: IntervalSet | None, index: int, filtered: bool) -> RunIntervals | None:
    if intervals is None:
        return None
    group = intervals.filtered if filtered else intervals.runs
    if group is None or index >= len(group):
        return None
    return group[index]


def drawn(renderable, width: int):
    """The renderable drawn once at `width` as plain styled lines: Textual measures and
    draws a Text cheaply, while a Rich table is laid out again each time it asks (a
    third of the first paint). The renderable itself when the width is not known yet."""
    if width <= 0:
        return renderable
    console = Console(width=width, no_color=False, force_terminal=True, color_system="truecolor")
    lines = console.render_lines(renderable, console.options.update_width(width), pad=False)
    text = Text(no_wrap=True, overflow="crop")
    for row, line in enumerate(lines):
        if row:
            text.append("\n")
        for segment in line:
            if not segment.control:
                text.append(segment.text, segment.style)
    return text


def overall_panel(update: PanelUpdate, intervals: IntervalSet | None) -> Table:
    """Headline numbers per run (and without flagged claims), intervals under their values."""
    fresh = intervals is not None and intervals.generation == update.generation
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, expand=False)
    table.add_column(Text("metric"))
    columns = _columns(update)
    for header, _, _ in columns:
        table.add_column(header, justify="right")
    summaries = [update.runs[i].filtered if f else update.runs[i].overall for _, i, f in columns]
    found = [run_intervals(intervals, i, f) for _, i, f in columns]

    def interval(n: int, name: str) -> Interval | None:
        return found[n].overall.get(name) if found[n] is not None else None

    table.add_row(
        "accuracy",
        *(_value_with_ci(s.accuracy, interval(n, "accuracy"), fresh, s.scored) for n, s in enumerate(summaries)),
    )
    table.add_row(
        "macro-F1",
        *(_value_with_ci(s.macro_f1, interval(n, "macro_f1"), fresh, s.scored) for n, s in enumerate(summaries)),
    )
    if update.cluster:  # intervals resample clusters (`metrics --cluster`): say by what, and how many
        table.add_row(literal(f"clustered by {one_line(update.cluster, 30)}"), *_cluster_counts(update, columns))
    rows = [
        ("MCC", lambda s: number(s.mcc)),
        ("Unknown Rate", lambda s: number(s.unknown_rate)),
        ("parse-failure rate", lambda s: number(s.parse_failure_rate)),
        ("error rate", lambda s: number(s.error_rate)),
        ("coverage", lambda s: f"{number(s.coverage)} ({s.scored:,}/{s.scored + s.errors + s.missing:,})"),
        ("support", lambda s: f"{s.scored:,}"),
        ("excluded gold", lambda s: f"{s.excluded:,}"),
        ("uniform acc/F1", lambda s: f"{number(s.baselines.uniform_accuracy)}/{number(s.baselines.uniform_macro_f1)}"),
        (
            "majority acc/F1",
            lambda s: f"{number(s.baselines.majority_accuracy)}/{number(s.baselines.majority_macro_f1)}",
        ),
    ]
    for name, cell in rows:
        table.add_row(name, *(Text(cell(s)) for s in summaries))
    if any(numbers.explanations is not None for numbers in update.runs):
        table.add_row(
            "EQ (0-10, judge)", *(_eq_cell(update.runs[i].explanations) if not f else Text("") for _, i, f in columns)
        )
    if any(numbers.search is not None for numbers in update.runs):
        _search_rows(table, update, columns)
    return table


def _cluster_counts(update: PanelUpdate, columns) -> list[Text]:
    """Per column, the clusters its scored claims fall in (as `metrics` counts them)."""
    from workbench.scoring.runs import scored_positions, without_flagged

    cells = []
    for _, index, filtered in columns:
        items = update.snapshots[index]
        items = without_flagged(items, update.config.flag_kind) if filtered else items
        cells.append(Text(f"{items.cluster_count(scored_positions(items)):,} clusters", style="dim"))
    return cells


def _search_rows(table: Table, update: PanelUpdate, columns) -> None:
    """Searches per claim and search-leak claims (the with-search comparison reads them)."""
    found = [update.runs[i].search if not f else None for _, i, f in columns]
    table.add_row("searches/claim", *(Text(f"{s.stats.searches_per_claim:.2f}") if s else Text("") for s in found))
    table.add_row("search-leak claims", *(Text(f"{s.stats.leaks:,}") if s else Text("") for s in found))


def search_panel(update: PanelUpdate) -> Group | None:
    """Each search run's dropped results and query reformulations (subsets: the flag kind)."""
    parts = []
    for numbers in update.runs:
        if numbers.search is None:
            continue
        parts.append(literal(numbers.run.name, style="bold"))
        parts.append(stats_view(numbers.search.stats))
        table = numbers.search.reformulations
        if table is None:
            parts.append(Text("query pairs not labelled yet: workbench reformulations RUN --judge MODEL", style="dim"))
        else:
            parts += [reformulation_caption(table), reformulation_grid(table)]
    return Group(*parts) if parts else None


def report_panel(update: PanelUpdate) -> Group | None:
    """Each run's explanation quality, time and cost, and failure categories, drawn as
    `workbench metrics` draws them (render.scores.report_parts); None before they are read."""
    parts = []
    for numbers in update.runs:
        found = report_parts(numbers.report, search=False) if numbers.report is not None else []
        if found:
            parts += [literal(numbers.run.name, style="bold"), *found]
    return Group(*parts) if parts else None


def _eq_cell(found: MeanInterval | None) -> Text:
    if found is None:
        return Text("—", style="dim")
    text = Text(f"{found.mean:.2f}")
    text.append(f"\n[{found.low:.2f}, {found.high:.2f}] n={found.n:,}", style="dim")
    return text


def class_panel(update: PanelUpdate) -> Table:
    """Precision, recall, F1 and support per gold class and run."""
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    for name in ("class", "run", "P", "R", "F1", "n"):
        table.add_column(Text(name), justify="left" if name in ("class", "run") else "right")
    exclude = any(r.filtered is not None for r in update.runs)
    if exclude:
        table.add_column(Text(f"F1 w/o {one_line(update.config.flag_kind, 14)}"), justify="right")
    if not update.runs:
        return table
    names = run_names([numbers.run for numbers in update.runs], 20)
    for index, label in enumerate(update.runs[0].overall.classes):
        for numbers, name in zip(update.runs, names):
            c = numbers.overall.per_class[index]
            cells = [
                literal(label),
                literal(name),
                number(c.precision),
                number(c.recall),
                number(c.f1),
                f"{c.support:,}",
            ]
            if exclude:
                cells.append(number(numbers.filtered.per_class[index].f1) if numbers.filtered else "")
            table.add_row(*cells)
    return table


def plot_breakdown(plt, update: PanelUpdate) -> None:
    """Macro-F1 per slice as grouped bars, one colour per run (and per run without flagged)."""
    plt.clear_figure()
    values = list(dict.fromkeys(v for n in update.runs for v in n.slices))
    if not values:
        plt.title("no breakdown yet")
        return
    series, names = [], []
    distinct = run_names([numbers.run for numbers in update.runs], 200)
    for numbers, name in zip(update.runs, distinct):
        series.append([_f1(numbers.slices.get(v)) for v in values])
        names.append(_plot_label(name))
        if numbers.filtered_slices is not None:
            series.append([_f1(numbers.filtered_slices.get(v)) for v in values])
            names.append(_plot_label(f"{name} w/o {update.config.flag_kind}"))
    labels = [_plot_label(v, 14) for v in values]
    if len(series) == 1:
        plt.bar(labels, series[0])
    else:
        plt.multiple_bar(labels, series, labels=names)
    plt.ylim(0, 1)
    plt.title(_plot_label(f"macro-F1 by {update.field_name}", 60))


def _f1(summary: MetricSummary | None) -> float:
    if summary is None or summary.scored == 0:
        return 0.0
    return float(summary.macro_f1)


def _plot_label(text: str, width: int = 30) -> str:
    """Plotext writes labels straight into ANSI output: control characters must not pass."""
    return one_line(printable(text), width)


def compare_panel(update: PanelUpdate, intervals: IntervalSet | None) -> Group | Text:
    """Deltas, paired bootstrap p, McNemar and CoR of the second run against the first."""
    if update.comparison is None:
        if len(update.runs) >= 2:
            return Text("the first two runs are in different label spaces: no comparison", style="dim")
        return Text("open two runs to compare them", style="dim")
    fresh = intervals is not None and intervals.generation == update.generation
    parts = [_compare_lines(update.comparison, intervals.paired if intervals else {}, fresh, None)]
    if update.filtered_comparison is not None:
        paired = intervals.filtered_paired if intervals else {}
        parts.append(_compare_lines(update.filtered_comparison, paired, fresh, update.config.flag_kind))
    if update.comparison.shared:  # under the numbers it qualifies
        parts.append(_comparability(update.differences))
    return Group(*parts)


def _comparability(found: tuple) -> Text:
    """Whether only the model differs between the two runs; else what does (their manifests)."""
    if not found:
        return Text("like for like: only the model differs", style="green")
    text = Text("not like for like: ", style="bold yellow")
    text.append_text(literal(", ".join(f"{d.key} ({d.a} vs {d.b})" for d in found)))
    return text


def _compare_lines(c: Comparison, paired: dict, fresh: bool, without: str | None) -> Text:
    text = Text()
    name_a, name_b = run_names([c.run_a, c.run_b], 28)  # the id leads where the names read alike
    text.append_text(literal(name_a, "bold"))
    text.append(" (A) vs ")
    text.append_text(literal(name_b, "bold"))
    text.append(f" (B) on {c.shared:,} shared items")
    if without:
        text.append(" without ")
        text.append_text(literal(without, "yellow"))
    if not c.shared:
        text.append(": nothing to compare")
        return text
    text.append(" (B − A)\n")
    for name, label in (
        ("accuracy", "accuracy"),
        ("macro_f1", "macro-F1"),
        ("mcc", "MCC"),
        ("unknown_rate", "Unknown Rate"),
    ):
        d = c.deltas[name]
        text.append(f"  {label:<13}{number(d.a)} → {number(d.b)}  Δ {_signed(d.delta)}")
        if name in ("accuracy", "macro_f1"):
            text.append_text(_p_text(paired.get(name), fresh, c.shared))
        text.append("\n")
    test = c.mcnemar
    text.append(f"  McNemar b={test.b} c={test.c} p={number(test.p_value)}   CoR ")
    text.append(number(c.correction_rate) if c.correction_rate is not None else "—")
    text.append(f" ({len(c.wrong_to_right):,} of {c.a_wrong:,} fixed)")
    return text


def _p_text(paired, fresh: bool, shared: int) -> Text:
    if shared == 0:
        return Text("")
    if paired is None:
        return Text(f"  paired p ({UPDATING})", style="dim italic")
    text = Text(f"  paired p={number(paired.p_value)} CI {interval_text(paired)}", style="dim")
    if not fresh:
        text.append(f" ({UPDATING})", style="dim italic")
    return text


def _signed(value: float) -> str:
    text = number(value)
    return text if text == "—" or value < 0 else "+" + text
