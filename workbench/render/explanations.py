"""Explanation quality, drawn: the EQ block of `metrics`, the paired EQ line of `compare`,
agreement tables, and the same as plain dicts for JSON."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.text import Text

from workbench.judging.scores import ExplanationComparison, ExplanationScores
from workbench.metrics import Agreement, MeanInterval
from workbench.render.display import literal
from workbench.render.listing import Column, FirstThatKeeps, Listing, pieces

BARS = " ▁▂▃▄▅▆▇█"


def mean_text(found: MeanInterval | None) -> str:
    if found is None:
        return "—"
    if found.low == found.high:
        return f"{found.mean:.2f}"
    return f"{found.mean:.2f} [{found.low:.2f}, {found.high:.2f}]"


def distribution_bars(counts: Sequence[int]) -> str:
    """One block per score 0..10, as tall as its share of the most frequent score."""
    top = max(counts, default=0)
    if not top:
        return ""
    return "".join(BARS[round(n / top * (len(BARS) - 1))] for n in counts)


def explanations_view(eq: ExplanationScores) -> RenderableType:
    """The EQ block under a run's scores."""
    heading = Text("explanation quality ", style="bold")
    heading.append("(0-10, judge run ")
    heading.append_text(literal(eq.judge.name))
    heading.append(f", {literal(eq.judge.model)})")
    lines = [
        heading,
        Text(
            f"  EQ {mean_text(eq.overall)} over {eq.judged:,} judged explanations; "
            f"{eq.unreadable:,} unreadable judgments, {eq.errors:,} judge errors, {eq.not_judged:,} not judged;"
            f" {eq.violations:,} scores outside the rubric's band"
        ),
        Text(f"  scores 0..10  {distribution_bars(eq.distribution)}  " + " ".join(map(str, eq.distribution))),
    ]
    parts: list[RenderableType] = [Group(*lines)]
    for field, slices in eq.slices.items():
        table = Listing(
            Column("slice", "label", priority=10, readable=10),  # a slice value wraps at words
            Column("n", "number", priority=8, justify="right"),
            Column("EQ [95% CI]", "figure", priority=9, justify="right"),
            title=f"EQ by {field}",
        )
        for value, found in slices.items():
            table.add_row(literal(value), f"{found.n:,}", mean_text(found))
        parts.append(table)
    return Group(*parts)


def comparison_line(found: ExplanationComparison) -> Text:
    """The paired EQ line of `compare`."""
    line = Text("EQ (same judge): ", style="bold")
    if found.paired is None:
        line.append("no claim judged in both runs")
        return line
    p = found.paired
    line.append(
        f"B − A {p.delta:+.2f} [{p.low:+.2f}, {p.high:+.2f}], paired bootstrap p = {p.p_value:.3g},"
        f" on {found.shared:,} claims judged in both"
    )
    return line


def agreement_table(rows: Sequence[tuple[str, str, Agreement]]) -> FirstThatKeeps:
    """Each pair of scorings: how far their scores of the same explanations agree (the
    scorings' names never cut; within 1, then mean |diff| give way first; when narrow, the
    second scoring goes under the first)."""
    return FirstThatKeeps(_agreement_listing(rows, False), _agreement_listing(rows, True), priority=9)


def _agreement_listing(rows: Sequence[tuple[str, str, Agreement]], narrow: bool) -> Listing:
    names = [Column("scoring vs against", "name")] if narrow else [Column("scoring", "name"), Column("against", "name")]
    table = Listing(
        *names,
        Column("shared", "number", priority=8, justify="right"),
        Column("Spearman", "number", priority=6, justify="right"),
        Column("weighted κ [95% CI]", "figure", priority=9, justify="right"),
        Column("mean |diff|", "number", priority=5, justify="right"),
        Column("within 1", "number", priority=4, justify="right"),
    )
    for first, second, found in rows:
        pair = (
            [pieces(literal(first), Text.assemble("vs ", literal(second)))]
            if narrow
            else [literal(first), literal(second)]
        )
        table.add_row(
            *pair,
            f"{found.n:,}",
            _maybe(found.spearman),
            _kappa_text(found.weighted_kappa),
            _maybe(found.mean_abs_diff),
            _maybe(found.within_one),
        )
    return table


def _kappa_text(found) -> str:
    if found is None or found.value is None:
        return "—"
    if found.low is None:
        return f"{found.value:.3f}"
    return f"{found.value:.3f} [{found.low:.2f}, {found.high:.2f}]"


def scorings_table(found) -> Listing:
    """Each scoring's scores and, apart, its failures (unreadable judgments, judge errors)."""
    table = Listing(
        Column("scoring", "name"),
        Column("scores", "number", priority=9, justify="right"),
        Column("unreadable", "number", priority=8, justify="right"),
        Column("judge errors", "number", priority=8, justify="right"),
    )
    for scoring in found:
        table.add_row(
            literal(scoring.name), f"{len(scoring.scores):,}", f"{scoring.unreadable:,}", f"{scoring.errors:,}"
        )
    return table


def consistency_view(report) -> RenderableType:
    """`judge-consistency`: the judge against itself over K repeats."""
    c = report.consistency
    heading = Text("consistency of judge run ", style="bold")
    heading.append_text(literal(report.judge.name, "bold"))
    heading.append(f" ({c.repeats} repeats per explanation of run ")
    heading.append_text(literal(report.target.name))
    heading.append(")")
    lines = [
        heading,
        Text(
            f"  {c.claims:,} explanations judged, {c.comparable:,} with two or more readable repeats;"
            f" {c.unreadable:,} unreadable repeats and {c.errors:,} judge errors (counted apart, never scores)"
        ),
        Text(f"  identical every time: {_estimate(c.identical)} of the compared explanations"),
        Text(f"  spread (highest − lowest score): mean {_estimate(c.spread)}"),
        Text(f"  Krippendorff's alpha (interval, repeats as coders): {_estimate(c.alpha)}"),
    ]
    table = Listing(
        Column("claim", "id", justify="right"),
        Column("scores by repeat", "label", priority=9),  # a long list wraps between scores
        Column("spread", "number", priority=8, justify="right"),
        title="flickering explanations",
    )
    for claim in c.flickering[:20]:
        table.add_row(
            str(claim.claim_id), " ".join("?" if s is None else f"{s:g}" for s in claim.scores), f"{claim.spread:g}"
        )
    parts: list[RenderableType] = [Group(*lines)]
    if c.flickering:
        parts.append(table)
    return Group(*parts)


def _estimate(found) -> str:
    if found.value is None:
        return f"— ({found.undefined})"
    if found.low is None:
        return f"{found.value:.3f}"
    return f"{found.value:.3f} [{found.low:.3f}, {found.high:.3f}]"


def consistency_dict(report) -> dict:
    c = report.consistency

    def estimate(found):
        return {"value": found.value, "low": found.low, "high": found.high, "undefined": found.undefined}

    return {
        "judge_run": report.judge.name,
        "target_run": report.target.name,
        "repeats": c.repeats,
        "claims": c.claims,
        "comparable": c.comparable,
        "identical": estimate(c.identical),
        "spread": estimate(c.spread),
        "alpha": estimate(c.alpha),
        "unreadable": c.unreadable,
        "errors": c.errors,
        "per_claim": [
            {"claim_id": x.claim_id, "scores": list(x.scores), "identical": x.identical, "spread": x.spread}
            for x in c.per_claim
        ],
    }


def _maybe(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def mean_dict(found: MeanInterval | None) -> dict | None:
    return None if found is None else {"mean": found.mean, "low": found.low, "high": found.high, "n": found.n}


def explanations_dict(eq: ExplanationScores | None) -> dict | None:
    if eq is None:
        return None
    return {
        "judge_run": eq.judge.name,
        "judge_model": eq.judge.model,
        "eq": mean_dict(eq.overall),
        "distribution": eq.distribution,
        "judged": eq.judged,
        "unreadable": eq.unreadable,
        "errors": eq.errors,
        "not_judged": eq.not_judged,
        "rubric_violations": eq.violations,
        "breakdowns": {
            field: {value: mean_dict(found) for value, found in slices.items()} for field, slices in eq.slices.items()
        },
    }


def comparison_dict(found: ExplanationComparison | None) -> dict | None:
    if found is None:
        return None
    p = found.paired
    return {
        "judge_run_a": found.judge_a.name,
        "judge_run_b": found.judge_b.name,
        "shared": found.shared,
        "delta": None if p is None else p.delta,
        "low": None if p is None else p.low,
        "high": None if p is None else p.high,
        "p_value": None if p is None else p.p_value,
    }


def agreement_dicts(rows: Sequence[tuple[str, str, Agreement]]) -> list[dict]:
    def kappa(found):
        k = found.weighted_kappa
        return None if k is None else {"value": k.value, "low": k.low, "high": k.high, "undefined": k.undefined}

    return [
        {
            "scoring": first,
            "against": second,
            "shared": found.n,
            "spearman": found.spearman,
            "weighted_kappa": kappa(found),
            "mean_abs_diff": found.mean_abs_diff,
            "within_one": found.within_one,
        }
        for first, second, found in rows
    ]
