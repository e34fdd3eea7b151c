"""The AVerImaTeC figures of a run as a Rich table (from averimatec_dict's plain data)."""

from __future__ import annotations

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
