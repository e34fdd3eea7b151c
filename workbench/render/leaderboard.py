"""The AVeriTeC leaderboard row of a run (2025 Ev2R figures beside the 2024 METEOR ones and
seconds per claim) in `metrics`, `report` and `compare`; the paired 2025 figures of two runs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rich.console import Group
from rich.text import Text

HEADER = ["Q-only (Ev2R)", "Q+A (Ev2R)", "New score", "Q-only (METEOR)", "Q+A (METEOR)", "Old score", "s/claim"]


def _number(value: float | None, digits: int = 4) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def row_cells(row) -> list[str]:
    """The leaderboard's cells: the official (failure = 0) figures, as the organisers rank."""
    summary, meteor = row.ev2r.summary, row.meteor
    return [
        _number(summary.question_recall.official),
        _number(summary.pair_recall.official),
        _number(summary.score.official),
        _number(None if meteor is None else meteor.question_only),
        _number(None if meteor is None else meteor.qa),
        _number(row.old_score),
        _number(row.seconds_per_claim, 1),
    ]


def leaderboard_dict(row) -> dict[str, Any] | None:
    """The row for JSON reports (None: the run has no Ev2R judgment)."""
    if row is None:
        return None
    from workbench.render.ev2r import ev2r_dict

    meteor = row.meteor
    return {
        "ev2r": ev2r_dict(row.ev2r),
        "meteor": None
        if meteor is None
        else {"question_only": meteor.question_only, "qa": meteor.qa, "old_score": row.old_score},
        "meteor_missing": row.meteor_problem,
        "seconds_per_claim": row.seconds_per_claim,
        "within_budget": None if row.seconds_per_claim is None else row.seconds_per_claim <= 60.0,
    }


def leaderboard_view(row) -> Group:
    """One run's row as the leaderboard shows it where the terminal is wide enough for every
    figure side by side, else as figures under each other (none is dropped); its judge
    failures and prompt under it."""
    from workbench.render.listing import Column, FirstThatKeeps, Listing

    title = f"AVeriTeC leaderboard: {row.ev2r.run.name}"
    cells = row_cells(row)
    wide = Listing(*(Column(name, "number", 1, "right") for name in HEADER), title=title)
    wide.add_row(*cells)
    tall = Listing(Column("figure", "name"), Column("value", "number", 1, "right"), title=title, headers=False)
    for name, cell in zip(HEADER, cells):
        tall.add_row(name, cell)
    return Group(FirstThatKeeps(wide, tall, priority=1), _caption(row))


def _caption(row) -> Text:
    summary = row.ev2r.summary
    judges = row.ev2r.judges
    prompts = dict.fromkeys(str(r.prompt_name) for r in judges.values())
    notes = [
        f"judge {judges['pairs'].model}, prompt {' + '.join(prompts)}",
        f"new score: verdict right and Q+A recall > {summary.threshold:g}; old: METEOR > 0.25",
        f"judge failures {summary.pair_recall.failures} of {summary.claims} (counted 0;"
        f" left out: new score {_number(summary.score.readable)})",
    ]
    if row.meteor_problem:
        notes.append(f"METEOR not computed: {row.meteor_problem}")
    if row.seconds_per_claim is None:
        notes.append("time per claim not known (imported or cached answers)")
    return Text("; ".join(notes), style="dim")


def leaderboard_markdown(reports: Sequence, md_text: Callable, md_table: Callable) -> list[str]:
    """The runs' rows as one Markdown table (none when no run has an Ev2R judgment)."""
    rows = [r for r in reports if r.averitec is not None]
    if not rows:
        return []
    body = [
        [md_text(r.run.name), *row_cells(r.averitec), str(r.averitec.ev2r.summary.pair_recall.failures)] for r in rows
    ]
    return ["## AVeriTeC leaderboard", ""] + md_table(["Run", *HEADER, "Judge failures"], body)


def ev2r_comparison_dict(found) -> dict[str, Any] | None:
    if found is None:
        return None

    def paired(p):
        return None if p is None else {"delta": p.delta, "low": p.low, "high": p.high, "p_value": p.p_value}

    return {
        "shared": found.shared,
        "failed": found.failed,
        "qa_recall": paired(found.recall),
        "score": paired(found.score),
        "problem": found.problem,
    }


def ev2r_comparison_line(found) -> Text:
    """The paired 2025 line of `compare`."""
    line = Text("AVeriTeC 2025 (same judge): ", style="bold")
    if found.problem is not None:
        line.append(found.problem)
        return line
    if found.score is None:
        line.append("no claim judged readably in both runs")
        return line
    r, s = found.recall, found.score
    line.append(
        f"Q+A recall B − A {r.delta:+.3f} [{r.low:+.3f}, {r.high:+.3f}] p = {r.p_value:.3g};"
        f" new score B − A {s.delta:+.3f} [{s.low:+.3f}, {s.high:+.3f}] p = {s.p_value:.3g};"
        f" on {found.shared:,} claims ({found.failed:,} with a judge failure left out)"
    )
    return line
