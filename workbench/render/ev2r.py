"""Drawing a run's Ev2R figures (the AVeriTeC 2025 score): a table with the organisers'
counting beside ours (judge failures left out) and the failure rate, and the same as JSON."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text


def _figure(value: float | None) -> str:
    return "—" if value is None else f"{value:.4f}"


def ev2r_dict(result) -> dict[str, Any]:
    """Every figure of an Ev2rResult, for --json and reports."""
    summary = result.summary

    def counted(found) -> dict[str, Any]:
        return {
            "official": found.official,
            "failures_excluded": found.readable,
            "failures": found.failures,
            "failure_rate": found.failure_rate,
        }

    return {
        "run": result.run.name,
        "claims": summary.claims,
        "threshold": summary.threshold,
        "question_recall": counted(summary.question_recall),
        "qa_recall": counted(summary.pair_recall),
        "score": counted(summary.score),
        "question_precision": summary.question_precision,
        "qa_precision": summary.pair_precision,
        "verdict_accuracy": summary.verdict_accuracy,
        "no_evidence": summary.no_evidence,
        "not_judged": result.not_judged,
        "capped": result.capped,
        "judge_runs": {part: run.name for part, run in result.judges.items()},
        "judge": next(iter(result.judges.values())).model,
        "prompt": result.prompt(),
    }


def ev2r_table(result) -> Group:
    """Q-only and Q+A recall, precision and the 2025 score: the organisers' way, ours, failures
    (laid out by the listing: figure names whole, the failures giving way first when narrow)."""
    from workbench.render.listing import figures_listing

    summary = result.summary
    table = figures_listing(f"AVeriTeC 2025 (Ev2R) of run {result.run.name}")
    rows = [
        ("Q-only recall (Ev2R)", summary.question_recall),
        ("Q+A recall (Ev2R)", summary.pair_recall),
        (f"AVeriTeC 2025 score (Q+A > {summary.threshold:g})", summary.score),
    ]
    for name, found in rows:
        rate = found.failure_rate
        failures = f"{found.failures} ({rate:.1%})" if rate is not None else "—"
        table.add_row(name, _figure(found.official), _figure(found.readable), failures)
    table.add_row("Q-only precision", "", _figure(summary.question_precision), "")
    table.add_row("Q+A precision", "", _figure(summary.pair_precision), "")
    table.add_row("Verdict accuracy", _figure(summary.verdict_accuracy), "", "")
    return Group(table, _caption(result))


def _caption(result) -> Text:
    prompts = result.prompt()
    said = "; ".join(
        f"{part} prompt {found['name']} ({found['source']}, sha256 {found['hash'][:12]})"
        for part, found in prompts.items()
    )
    notes = [
        "Official: a failed judgment counts 0, as in the organisers' scorer; Failures out: those claims left out",
        f"{result.summary.claims} claims",
        f"judge {next(iter(result.judges.values())).model}",
        said,
    ]
    if result.summary.no_evidence:
        notes.append(f"{result.summary.no_evidence} without evidence (recall 0)")
    if result.not_judged:
        notes.append(f"{result.not_judged} not judged yet (counted as failures)")
    if result.capped:
        notes.append(f"{result.capped} with more than 10 pairs (the first 10 judged)")
    return Text(", ".join(notes), style="dim")
