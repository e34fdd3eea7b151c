"""Rich tables of scores for the command line (untrusted text always literal)."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from workbench.metrics import MetricSummary
from workbench.render.display import literal
from workbench.render.explanations import comparison_line, explanations_view
from workbench.render.headline import scores_table
from workbench.render.score_text import excluded_text, interval_text, number, subsets
from workbench.reports import ComparisonReport, RunReport
from workbench.scoring.compare import Comparison
from workbench.scoring.runs import Scores


def with_ci(scores: Scores | None, name: str) -> Text:
    """'0.734' over a dimmed '[0.701, 0.766]' (the interval, when there is one)."""
    if scores is None:
        return Text("—")
    text = Text(number(getattr(scores.summary, name)))
    interval = scores.intervals.get(name)
    if interval is not None:
        text.append("\n" + interval_text(interval), style="dim")
    return text


def _subset_label(label: str) -> Text:
    """The second row of a slice: the same numbers without the flagged claims."""
    return Text(" " + label.replace("without ", "w/o "), style="italic")


def run_heading(report: RunReport) -> Text:
    """Run name, dataset, model and what happened to its items."""
    full = report.scores.full
    s = full.overall.summary
    line = Text()
    line.append_text(literal(full.run.name, "bold"))
    line.append(" · dataset ")
    line.append_text(literal(full.dataset))
    line.append(" · model ")
    line.append_text(literal(full.run.model))
    line.append(
        f" · {full.items:,} items: {s.scored:,} scored, {_count(s.errors, 'API error')}, "
        f"{s.missing:,} missing, excluded "
    )
    line.append_text(literal(excluded_text(full)))
    if report.scores.exclude_flag:
        line.append(f" · {report.scores.flagged:,} flagged ")
        line.append_text(literal(report.scores.exclude_flag))
    if full.cluster:
        line.append(f" · intervals resample {full.clusters:,} clusters by ")
        line.append_text(literal(full.cluster))
        if report.cluster_declared_by:
            line.append_text(
                literal(f" (profile {report.cluster_declared_by}'s natural cluster; --cluster none: claim by claim)")
            )
    return line


def class_table(report: RunReport) -> RenderableType:
    """Precision, recall, F1 and support per gold class (a second row per set w/o flagged)."""
    from workbench.render.listing import Column, Listing

    table = Listing(
        Column("class", "name"),
        Column("precision", "number", priority=7, justify="right"),
        Column("recall", "number", priority=6, justify="right"),
        Column("F1", "number", priority=9, justify="right"),
        Column("support", "number", priority=8, justify="right"),
    )
    for index, label in enumerate(report.scores.full.overall.summary.classes):
        for n, (subset, scores) in enumerate(subsets(report)):
            c = scores.overall.summary.per_class[index]
            table.add_row(
                literal(label) if n == 0 else _subset_label(subset),
                number(c.precision),
                number(c.recall),
                number(c.f1),
                f"{c.support:,}",
            )
    return table


def confusion_table(summary: MetricSummary, title: str) -> RenderableType:
    """Gold classes down, predicted values across (abstain and parse failure last); laid out
    by the listing, so class names are never cut and long headers wrap at words."""
    from workbench.render.listing import Column, Listing

    confusion = summary.confusion
    listing = Listing(
        Column("gold \\ predicted", "name"),
        *(Column(name, "number", priority=9, justify="right") for name in confusion.columns),
        title=title,
    )
    for row, gold in enumerate(confusion.classes):
        listing.add_row(literal(gold), *(f"{n:,}" for n in confusion.counts[row]))
    return listing


def breakdown_table(report: RunReport, field: str) -> RenderableType:
    """A row per slice: support, accuracy and macro-F1 with CIs, MCC, Unknown Rate, coverage;
    with an exclude flag, a second row per slice without the flagged claims. Laid out by the
    listing (slice names whole; coverage, Unknown Rate and MCC give way first when narrow)."""
    from workbench.render.listing import Column, Listing

    listing = Listing(
        Column(field, "name"),
        Column("n", "number", priority=5, justify="right"),
        Column("accuracy", "whole", priority=9, justify="right"),
        Column("macro-F1", "whole", priority=8, justify="right"),
        Column("MCC", "number", priority=3, justify="right"),
        Column("UR", "number", priority=2, justify="right"),
        Column("cov.", "number", priority=1, justify="right"),
        title=f"by {field}",
    )
    sets = subsets(report)
    for value in report.scores.full.breakdowns.get(field, {}):
        for n, (subset, scores) in enumerate(sets):
            s = scores.breakdowns.get(field, {}).get(value)
            first = literal(value) if n == 0 else _subset_label(subset)
            if s is None:
                listing.add_row(first, "0", "—", "—", "—", "—", "—")
                continue
            listing.add_row(
                first,
                f"{s.summary.scored:,}",
                with_ci(s, "accuracy"),
                with_ci(s, "macro_f1"),
                number(s.summary.mcc),
                number(s.summary.unknown_rate),
                number(s.summary.coverage),
            )
    caption = Text("n = scored items · UR = Unknown Rate · cov. = coverage · [95% CI]", style="dim")
    return Group(listing, caption)


def run_report(report: RunReport) -> RenderableType:
    """Everything `workbench metrics` prints for one run."""
    parts: list[RenderableType] = [run_heading(report), scores_table(report), class_table(report)]
    for label, scores in subsets(report):
        title = "confusion" if label == "all" else f"confusion ({label})"
        parts.append(confusion_table(scores.overall.summary, title))
    for field in report.scores.full.breakdowns:
        parts.append(breakdown_table(report, field))
    parts += report_parts(report)
    return Group(*parts)


def report_parts(report: RunReport, search: bool = True) -> list[RenderableType]:
    """What a run's report shows under its scores (the parts it has): explanation quality,
    a search run's searches (unless `search` is False: the TUI draws them in a panel of
    their own), time and cost, failure categories."""
    parts: list[RenderableType] = []
    if report.explanations is not None:
        parts.append(explanations_view(report.explanations))
    if report.averitec is not None:
        from workbench.render.leaderboard import leaderboard_view

        parts.append(leaderboard_view(report.averitec))
    if report.averimatec is not None:
        from workbench.contamination.averimatec_scores import averimatec_dict
        from workbench.render.averimatec import averimatec_table

        parts.append(averimatec_table(averimatec_dict(report.averimatec)))
    if search and report.search is not None:
        from workbench.render.searches import search_view

        parts.append(search_view(report.search))
    if report.usage is not None:
        from workbench.render.usage import usage_summary

        parts.append(literal("time and cost: " + usage_summary(report.usage), "dim"))
    if report.failures is not None:
        from workbench.render.triage import breakdown_view

        parts.append(breakdown_view(report.failures))
    return parts


def comparison_view(report: ComparisonReport) -> RenderableType:
    """Everything `workbench compare` prints."""
    parts: list[RenderableType] = [comparability_line(report)]
    if report.cluster_declared_by and report.scores.full.cluster:
        parts.append(
            literal(
                f"paired tests resample {report.scores.full.clusters:,} clusters by"
                f" {report.scores.full.cluster}, profile {report.cluster_declared_by}'s natural"
                " cluster (--cluster none: claim by claim)",
                "dim",
            )
        )
    scores = report.scores
    for label, comparison in (("all", scores.full), (f"without {scores.exclude_flag}", scores.filtered)):
        if comparison is None:
            continue
        parts += _comparison_parts(comparison, label if scores.filtered is not None else None)
    if report.explanations is not None:
        parts.append(comparison_line(report.explanations))
    if report.ev2r is not None:
        from workbench.render.leaderboard import ev2r_comparison_line

        parts.append(ev2r_comparison_line(report.ev2r))
    return Group(*parts)


def _comparison_parts(c: Comparison, subset: str | None) -> list[RenderableType]:
    heading = Text()  # in the order typed: `compare A B` heads "A (A) vs B (B)"
    heading.append_text(literal(c.run_a.name, "bold"))
    heading.append(" (A) vs ")
    heading.append_text(literal(c.run_b.name, "bold"))
    if not c.shared:
        heading.append(" (B): no shared items (claims both answered whose gold label is scored), nothing to compare")
        return [heading.append(f" · {subset}") if subset else heading]
    heading.append(f" (B) on {c.shared:,} shared items (deltas are B − A)")
    if c.cluster:
        heading.append(f", resampling {c.clusters:,} clusters by ")
        heading.append_text(literal(c.cluster))
    if subset:
        heading.append(f" · {subset}")
    from workbench.render.listing import Column, Listing

    table = Listing(
        Column("metric", "name"),
        Column("A", "number", priority=6, justify="right"),
        Column("B", "number", priority=6, justify="right"),
        Column("Δ", "number", priority=9, justify="right"),
        Column("paired 95% CI", "whole", priority=8, justify="right"),
        Column("p", "number", priority=5, justify="right"),
        Column("detectable", "number", priority=4, justify="right"),
    )
    for name, label in (
        ("accuracy", "accuracy"),
        ("macro_f1", "macro-F1"),
        ("mcc", "MCC"),
        ("unknown_rate", "Unknown Rate"),
        ("parse_failure_rate", "parse-failure rate"),
    ):
        d = c.deltas[name]
        paired, resolution = c.paired.get(name), c.resolution.get(name)
        table.add_row(
            label,
            number(d.a),
            number(d.b),
            _signed(d.delta),
            interval_text(paired) if paired else "",
            number(paired.p_value) if paired else "",
            "±" + number(resolution.detectable) if resolution else "",
        )
    test = c.mcnemar
    lines = Text()
    lines.append_text(_resolution_lines(c))
    lines.append(
        f"McNemar (accuracy, exact): b = {test.b} (A right, B wrong), c = {test.c} "
        f"(A wrong, B right), p = {number(test.p_value)}\n"
    )
    cor = number(c.correction_rate) if c.correction_rate is not None else "— (A got none wrong)"
    fixed = len(c.wrong_to_right)
    lines.append(f"CoR = {cor}: B fixes {fixed:,} of A's {c.a_wrong:,} wrong items\n")
    lines.append(f"right → wrong: {len(c.right_to_wrong):,}  {_ids(c.right_to_wrong)}\n")
    lines.append("  filter: ")
    lines.append_text(literal(c.right_to_wrong_filter))
    lines.append(f"\nwrong → right: {len(c.wrong_to_right):,}  {_ids(c.wrong_to_right)}\n")
    lines.append("  filter: ")
    lines.append_text(literal(c.wrong_to_right_filter))
    parts: list[RenderableType] = [heading, table, lines]
    if c.by:
        slices = Listing(
            Column(c.by, "name"),
            Column("shared", "number", priority=8, justify="right"),
            Column("Δ accuracy", "number", priority=9, justify="right"),
            Column("Δ macro-F1", "number", priority=7, justify="right"),
            Column("McNemar b / c", "whole", priority=5, justify="right"),
            Column("p", "number", priority=6, justify="right"),
            title=f"by {c.by}",
        )
        for s in c.slices:
            slices.add_row(
                literal(s.value),
                f"{s.shared:,}",
                _signed(s.deltas["accuracy"].delta),
                _signed(s.deltas["macro_f1"].delta),
                f"{s.mcnemar.b} / {s.mcnemar.c}",
                number(s.mcnemar.p_value),
            )
        parts.append(slices)
    return parts


def comparability_line(report: ComparisonReport) -> Text:
    """Whether only the model differs between the runs, and if not, exactly what else does."""
    if not report.differences:
        return Text("like for like: only the model differs between the runs", style="green")
    text = Text()
    unexplained = report.unexplained
    if unexplained:
        text.append("not like for like: ", style="bold yellow")
        _append_differences(text, unexplained)
        groups = ",".join(dict.fromkeys(d.group for d in unexplained))
        text.append(f"; if that is intended, say so with --varies {groups}")
        return text
    text.append("like for like except what you named: ", style="green")
    _append_differences(text, list(report.differences))
    return text


def _append_differences(text: Text, found) -> None:
    for n, difference in enumerate(found):
        if n:
            text.append(", ")
        text.append_text(literal(f"{difference.key} ({_shown(difference.a)} vs {_shown(difference.b)})"))


def _shown(value) -> str:
    text = "—" if value is None else str(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _resolution_lines(c: Comparison) -> Text:
    """What the benchmark can resolve: the detectable column's meaning, and in words when a
    paired interval spans zero."""
    text = Text()
    if not c.resolution:
        return text
    text.append("detectable: the smallest difference these shared items detect (power 0.8, α 0.05)\n", style="dim")
    for name, label in (("accuracy", "accuracy"), ("macro_f1", "macro-F1")):
        resolution = c.resolution.get(name)
        if resolution is not None and resolution.words:
            text.append(
                f"{label}: {resolution.words} (Δ {_signed(c.paired[name].delta)}, detectable"
                f" ±{number(resolution.detectable)})\n"
            )
    return text


def _signed(value: float) -> str:
    text = number(value)
    return text if text == "—" or value < 0 else "+" + text


def _ids(ids: list[int], shown: int = 20) -> str:
    if not ids:
        return ""
    more = f" … (+{len(ids) - shown:,})" if len(ids) > shown else ""
    return "claims " + ", ".join(str(i) for i in ids[:shown]) + more


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")
