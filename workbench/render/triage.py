"""Triage as a team, drawn: agreement tables, queues, the adjudication view's labels side
by side, label history, the failure-category breakdown; and the same as plain dicts for
JSON. Annotator names, categories and notes are typed by people: always literal."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.text import Text

from workbench.metrics.agreement import Estimate
from workbench.metrics.triage_agreement import TriageAgreement
from workbench.render.display import literal, one_line, printable
from workbench.triage.agreement import RunAgreement
from workbench.triage.final import FailureBreakdown


def estimate_text(found: Estimate | None, digits: int = 2) -> Text:
    """ "0.71 [0.65, 0.77]", or a dim dash (the reason lives in the notes)."""
    if found is None or found.value is None:
        return Text("—", style="dim")
    text = Text(f"{found.value:.{digits}f}")
    if found.low is not None:
        text.append(f" [{found.low:.{digits}f}, {found.high:.{digits}f}]", style="dim")
    return text


def _table(*columns: str, title: str | None = None, first: str = "label"):
    """A listing whose figures are never cut nor wrapped: the first column (names, wrapped at
    words) narrows, then the rightmost figures give way whole on a narrow screen."""
    from workbench.render.listing import Column, Listing

    return Listing(
        Column(columns[0], first, 100),
        *(Column(name, "figure", 90 - n, "right") for n, name in enumerate(columns[1:])),
        title=title,
    )


def agreement_heading(found: RunAgreement) -> Text:
    a = found.agreement
    line = Text("agreement on ", style="bold")
    line.append_text(literal(found.run.name, "bold"))
    line.append(
        f" · {a.labelled:,} answers labelled, {a.compared:,} by two or more people"
        f" (compared), {a.single:,} by one only (left out)"
    )
    line.append(f" · {found.adjudicated:,} adjudicated, {found.awaiting:,} awaiting adjudication")
    return line


def agreement_view(found: RunAgreement) -> RenderableType:
    """Everything `workbench triage agreement` prints."""
    a = found.agreement
    parts: list[RenderableType] = [agreement_heading(found)]
    if a.unavailable:
        parts.append(Text(f"no agreement figure: {a.unavailable}", style="yellow"))
    else:
        overall = _table("over whole sets", "value [95% CI]")
        overall.add_row("exact agreement", estimate_text(a.exact))
        overall.add_row(a.kappa_name + " (each set one value)", estimate_text(a.kappa))
        overall.add_row("Krippendorff's alpha, MASI distance", estimate_text(a.masi_alpha))
        parts.append(overall)
        parts.append(category_table(a))
        parts.append(pairs_table(a))
        if a.confusion is not None:
            parts.append(confusion_table(a))
    parts.append(annotators_table(found))
    notes = undefined_notes(a)
    if notes:
        parts.append(Text("\n".join(notes), style="dim"))
    if not a.unavailable:
        parts.append(
            Text(
                f"[lo, hi] = 95% percentile bootstrap interval over the compared answers"
                f" ({a.resamples} resamples, seed {a.seed}); docs/triage.md has the formulas.",
                style="dim",
            )
        )
    return Group(*parts)


def category_table(a: TriageAgreement):
    """One row per category; its agreement without the interval (--json has it) so the
    row fits 80 columns."""
    table = _table(
        "category",
        "given",
        "agree",
        "kappa",
        "alpha",
        title=f"per category (a yes/no decision per answer; {a.kappa_name}, Krippendorff's alpha)",
    )
    for c in a.categories:
        table.add_row(
            literal(c.category),
            f"{c.given:,}",
            estimate_text(Estimate(c.observed.value)),
            estimate_text(c.kappa),
            estimate_text(c.alpha),
        )
    return table


def pairs_table(a: TriageAgreement):
    from workbench.render.listing import packed

    table = _table("annotators", "shared", "exact", "Cohen's kappa", "MASI alpha", title="per pair")
    for p in a.pairs:
        table.add_row(
            packed([p.first, p.second], " · "),
            f"{p.shared:,}",
            estimate_text(p.exact),
            estimate_text(p.kappa),
            estimate_text(p.masi_alpha),
        )
    return table


def confusion_table(a: TriageAgreement):
    """Rows: the first annotator's categories, numbered, their names wrapped at words (never
    cut); columns: the second's, by number. Where not every column fits, each row's counts go
    beside its name as "column:count" pairs instead: no count is dropped."""
    from workbench.render.listing import Column, FirstThatKeeps, Listing

    c = a.confusion
    title = f"{printable(c.first)} (rows) against {printable(c.second)} (columns)"
    names = [f"{number} {one_line(label)}" for number, label in enumerate(c.labels, start=1)]
    numbers = [Column(str(n), "number", 5, "right") for n in range(1, len(c.labels) + 1)]
    grid = Listing(Column("", "label", 10, readable=16), *numbers, title=title)
    pairs = Listing(Column("", "label", 10, readable=16), Column("column:count", "text", 9), title=title)
    for name, counts in zip(names, c.counts.tolist()):
        grid.add_row(name, *(str(n) for n in counts))
        pairs.add_row(name, " ".join(f"{column}:{n}" for column, n in enumerate(counts, start=1)))
    return FirstThatKeeps(grid, pairs, priority=5)


def annotators_table(found: RunAgreement):
    a = found.agreement
    table = _table("annotator", "labelled", "compared", "assigned", "done", "left", title="per annotator", first="name")
    names = list(dict.fromkeys([c.annotator for c in a.annotators] + list(found.progress)))
    counts = {c.annotator: c for c in a.annotators}
    for name in names:
        mine, progress = counts.get(name), found.progress.get(name)
        table.add_row(
            literal(name),
            f"{mine.labelled:,}" if mine else "0",
            f"{mine.compared:,}" if mine else "0",
            *((f"{progress.assigned:,}", f"{progress.done:,}", f"{progress.left:,}") if progress else ("—", "—", "—")),
        )
    return table


def undefined_notes(a: TriageAgreement) -> list[str]:
    """Why a dash stands where a number would: each reason once."""
    reasons: dict[str, list[str]] = {}
    for name, estimate in _estimates(a):
        if estimate is not None and estimate.value is None and estimate.undefined:
            reasons.setdefault(estimate.undefined, []).append(name)
    return [
        f"— {', '.join(names[:4])}{'…' if len(names) > 4 else ''}: {printable(why)}" for why, names in reasons.items()
    ]


def _estimates(a: TriageAgreement):
    yield "exact", a.exact
    yield a.kappa_name, a.kappa
    yield "MASI alpha", a.masi_alpha
    for c in a.categories:
        yield f"{c.category} {a.kappa_name}", c.kappa
        yield f"{c.category} alpha", c.alpha


def estimate_dict(found: Estimate | None) -> dict | None:
    if found is None:
        return None
    return {"value": found.value, "low": found.low, "high": found.high, "undefined": found.undefined}


def agreement_dict(found: RunAgreement) -> dict:
    """Every figure of `triage agreement --json` (undefined values null, with the reason)."""
    a = found.agreement
    return {
        "run": found.run.name,
        "labelled": a.labelled,
        "compared": a.compared,
        "single": a.single,
        "unavailable": a.unavailable,
        "adjudicated": found.adjudicated,
        "awaiting_adjudication": found.awaiting,
        "resamples": a.resamples,
        "seed": a.seed,
        "kappa_name": a.kappa_name,
        "exact": estimate_dict(a.exact),
        "kappa": estimate_dict(a.kappa),
        "masi_alpha": estimate_dict(a.masi_alpha),
        "categories": [
            {
                "category": c.category,
                "given": c.given,
                "agreement": estimate_dict(c.observed),
                "kappa": estimate_dict(c.kappa),
                "alpha": estimate_dict(c.alpha),
            }
            for c in a.categories
        ],
        "pairs": [
            {
                "first": p.first,
                "second": p.second,
                "shared": p.shared,
                "exact": estimate_dict(p.exact),
                "kappa": estimate_dict(p.kappa),
                "masi_alpha": estimate_dict(p.masi_alpha),
            }
            for p in a.pairs
        ],
        "confusion": None
        if a.confusion is None
        else {
            "first": a.confusion.first,
            "second": a.confusion.second,
            "labels": a.confusion.labels,
            "counts": a.confusion.counts.tolist(),
        },
        "annotators": [
            {
                "annotator": c.annotator,
                "labelled": c.labelled,
                "compared": c.compared,
                "by_category": c.by_category,
                **_progress_dict(found, c.annotator),
            }
            for c in a.annotators
        ]
        + [
            {"annotator": name, "labelled": 0, "compared": 0, "by_category": {}, **_progress_dict(found, name)}
            for name in found.progress
            if name not in {c.annotator for c in a.annotators}
        ],
    }


def _progress_dict(found: RunAgreement, name: str) -> dict:
    progress = found.progress.get(name)
    if progress is None:
        return {"assigned": None, "done": None, "left": None}
    return {"assigned": progress.assigned, "done": progress.done, "left": progress.left}


# ---- the failure-category breakdown (metrics, report) ---------------------------------------


def breakdown_view(found: FailureBreakdown) -> RenderableType:
    """The failure categories of a run's wrong answers, by final label."""
    heading = Text("failure categories ", style="bold")
    heading.append(
        f"(final labels: {found.final:,} of {found.labelled:,} labelled answers;"
        f" {found.adjudicated:,} adjudicated, {found.awaiting:,} awaiting adjudication;"
        f" {found.wrong:,} wrong answers in the run)"
    )
    if found.set_apart:
        heading.append("\n")
        heading.append_text(set_apart_line(found.set_apart))
    table = _table("category", "answers", "share of final labels")
    for name, count in found.counts.items():
        if count:
            table.add_row(literal(name), f"{count:,}", _share(count, found.final))
    table.add_row(
        Text("(no category fits)", style="italic"), f"{found.no_category:,}", _share(found.no_category, found.final)
    )
    return Group(heading, table)


def set_apart_line(set_apart: dict[str, int]) -> Text:
    """'not counted: 2 labels on answers that are right, ...': labels made before labels on
    answers that are not wrong were refused, kept and shown, never counted."""
    parts = [f"{count:,} label{'s' * (count != 1)} on {name}" for name, count in set_apart.items()]
    return Text("not counted (failure categories are for wrong answers): " + ", ".join(parts), style="yellow")


def _share(count: int, total: int) -> str:
    return f"{count / total:.3f}" if total else "—"


def breakdown_dict(found: FailureBreakdown | None) -> dict | None:
    if found is None:
        return None
    return {
        "wrong": found.wrong,
        "labelled": found.labelled,
        "final": found.final,
        "adjudicated": found.adjudicated,
        "awaiting_adjudication": found.awaiting,
        "counts": found.counts,
        "no_category": found.no_category,
        "not_counted": found.set_apart,
    }


def breakdown_markdown(rows: Sequence[tuple[str, FailureBreakdown]], md_text, md_table) -> list[str]:
    """The report's failure-category table: one row per run and category."""
    if not rows:
        return []
    table = []
    for run, found in rows:
        for name, count in [*found.counts.items(), ("(no category fits)", found.no_category)]:
            if count or name == "(no category fits)":
                table.append(
                    [
                        md_text(run),
                        md_text(name),
                        str(count),
                        _share(count, found.final),
                        f"{found.final} final / {found.labelled} labelled / {found.awaiting} awaiting",
                    ]
                )
    return (
        ["Failure categories of wrong answers (final labels: adjudicated, agreed, or one annotator's):", ""]
        + md_table(["Run", "Category", "Answers", "Share", "Labels"], table)
        + [
            f"{md_text(run)}: {md_text(set_apart_line(found.set_apart).plain)}"
            for run, found in rows
            if found.set_apart
        ]
    )
