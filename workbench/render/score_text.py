"""Scores and intervals as text, shared by the reports, the score tables and the TUI."""

from __future__ import annotations

import math

from workbench.metrics import Interval
from workbench.render.display import printable
from workbench.reports import RunReport
from workbench.scoring.runs import RunScores


def number(value: float | None, digits: int = 3) -> str:
    """A score as text: 0.734, or — when it is undefined."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return f"{value:.{digits}f}"


def interval_text(interval: Interval | None, digits: int = 3) -> str:
    """[lo, hi], or — when there is no interval."""
    if interval is None:
        return "—"
    return f"[{number(interval.low, digits)}, {number(interval.high, digits)}]"


def subsets(report: RunReport) -> list[tuple[str, RunScores]]:
    """(label, scores) for the full set and, with exclude_flag, the filtered one."""
    rows = [("all", report.scores.full)]
    if report.scores.filtered is not None:
        rows.append((f"without {report.scores.exclude_flag}", report.scores.filtered))
    return rows


def excluded_text(scores: RunScores) -> str:
    """'Unclear 1, Unevaluable 2', or 0."""
    if not scores.excluded_by_label:
        return "0"
    return ", ".join(f"{printable(label)} {n}" for label, n in scores.excluded_by_label.items())
