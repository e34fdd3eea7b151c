"""The AVerImaTeC figures of a run as a Rich table (from averimatec_dict's plain data)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rich.console import Group
from rich.text import Text

from workbench.render.listing import figures_listing


def _figure(value: float | None) -> str:
    return "—" if value is None else f"{value:.4f}"


def averimatec_table(found: dict[str, Any]) -> Group:
    """Question, evidence and justification recall and the gated verdict score: the
    organisers' counting, ours with failures left out, and the failures (laid out by the
    listing: figure names whole, the failures giving way first when narrow)."""
    table = figures_listing(f"AVerImaTeC of run {found['run']}")
    gate = f"evidence > {found['threshold']:g}"
    rows = [
        ("Question recall", "question_recall"),
        ("Evidence recall (image-text)", "evidence_recall"),
        (f"Justification recall ({gate})", "justification_recall"),
        (f"AVerImaTeC score ({gate})", "verdict_accuracy"),
    ]
    for name, key in rows:
        figure = found[key]
        rate = figure["failure_rate"]
        failures = f"{figure['failures']} ({rate:.1%})" if rate is not None else "—"
        table.add_row(name, _figure(figure["official"]), _figure(figure["failures_excluded"]), failures)
    table.add_row("Verdict accuracy (no gate)", _figure(found["ungated_verdict_accuracy"]), "", "")
    return Group(table, _caption(found))


def _caption(found: dict[str, Any]) -> Text:
    prompts = "; ".join(
        f"{part} prompt {p['name']} ({p['source']}, sha256 {(p['hash'] or '')[:12]})"
        for part, p in found["prompt"].items()
    )
    shown = [part for part, yes in found["images_shown"].items() if yes]
    notes = [
        "Official: a failed judgment counts 0, as in the organisers' scorer; Failures out: those claims left out",
        f"{found['claims']} claims",
        prompts,
        f"images shown to the judge: {', '.join(shown) if shown else 'no'}",
    ]
    if found["not_judged"]:
        notes.append(f"{found['not_judged']} judgments missing (counted as failures)")
    return Text(", ".join(notes), style="dim")


MARKDOWN_FIGURES = {
    "Question recall": "question_recall",
    "Evidence recall": "evidence_recall",
    "Justification recall": "justification_recall",
    "AVerImaTeC score": "verdict_accuracy",
}


def averimatec_markdown(reports: Sequence, md_text: Callable, md_table: Callable) -> list[str]:
    """The runs' AVerImaTeC figures (official counting) as one Markdown table, with each run's
    judge failures and the judgments still missing (an interrupted judge run: counted as
    failures); none when no run has an AVerImaTeC judgment."""
    from workbench.contamination.averimatec_scores import averimatec_dict

    found = [(r.run.name, averimatec_dict(r.averimatec)) for r in reports if r.averimatec is not None]
    if not found:
        return []
    header = ["Run", *MARKDOWN_FIGURES, "Verdict accuracy (no gate)", "Judge failures (evidence)", "Not judged yet"]
    body = [
        [
            md_text(name),
            *(_figure(figures[key]["official"]) for key in MARKDOWN_FIGURES.values()),
            _figure(figures["ungated_verdict_accuracy"]),
            str(figures["evidence_recall"]["failures"]),
            str(figures["not_judged"]),
        ]
        for name, figures in found
    ]
    gate = f"evidence recall > {found[0][1]['threshold']:g}"
    note = f"Official counting (a failed judgment counts 0); the score and justification recall count only with {gate}."
    return ["## AVerImaTeC", "", note, ""] + md_table(header, body)
