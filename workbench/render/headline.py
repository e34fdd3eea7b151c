"""The headline numbers of a run's scores (`workbench metrics`), laid out by the listing.

All claims beside the claims not flagged (with --exclude-flag), one column each; where the
terminal is too narrow for the columns side by side, one listing per set, stacked, so no
number is lost. A value's parts (a score and its interval, a baseline and its class) are
kept whole each and go under one another when narrow.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from workbench.metrics import MetricSummary
from workbench.render.display import literal
from workbench.render.listing import Column, Fitted, Listing, pieces
from workbench.render.score_text import interval_text, number, subsets
from workbench.reports import RunReport
from workbench.scoring.runs import RunScores, Scores


def _with_ci(scores: Scores, name: str) -> Fitted:
    """A score over its dimmed interval, always two lines (as the other score tables)."""
    value = Text(number(getattr(scores.summary, name)))
    interval = scores.intervals.get(name)
    if interval is None:
        return pieces(value)
    stacked = Text.assemble(value, "\n", Text(interval_text(interval), style="dim"))
    width = max(len(value.plain), len(interval_text(interval)))
    return Fitted(width, width, lambda _: stacked)


def _plain(text: str) -> Fitted:
    return pieces(Text(text))


def _coverage(s: MetricSummary) -> Fitted:
    attempted = s.scored + s.errors + s.missing
    return pieces(Text(number(s.coverage)), Text(f"({s.scored:,} of {attempted:,})"))


def _baseline(s: MetricSummary, kind: str) -> str:
    b = s.baselines
    return f"{number(getattr(b, kind + '_accuracy'))} / {number(getattr(b, kind + '_macro_f1'))}"


def _majority(s: MetricSummary) -> Fitted:
    if s.baselines.majority_class is None:
        return _plain(_baseline(s, "majority"))
    named = Text.assemble("(", literal(s.baselines.majority_class), ")")
    return pieces(Text(_baseline(s, "majority")), named, longest=CLASS_CELLS)


ROWS: list[tuple[str, Callable[[RunScores], Fitted]]] = [
    ("accuracy", lambda r: _with_ci(r.overall, "accuracy")),
    ("macro-F1", lambda r: _with_ci(r.overall, "macro_f1")),
    ("MCC", lambda r: _plain(number(r.overall.summary.mcc))),
    ("Unknown Rate", lambda r: _plain(number(r.overall.summary.unknown_rate))),
    ("parse-failure rate", lambda r: _plain(number(r.overall.summary.parse_failure_rate))),
    ("error rate", lambda r: _plain(number(r.overall.summary.error_rate))),
    ("coverage", lambda r: _coverage(r.overall.summary)),
    ("support (scored)", lambda r: _plain(f"{r.overall.summary.scored:,}")),
    ("uniform acc / F1", lambda r: _plain(_baseline(r.overall.summary, "uniform"))),
    ("majority acc / F1", lambda r: _majority(r.overall.summary)),
]


CLASS_CELLS = 20  # a longer class name folds rather than push a set's column off a narrow screen


def _listing(sets: list[tuple[str, RunScores]]) -> Listing:
    listing = Listing(
        Column("metric", "name", readable=len("parse-failure rate")),
        # a set's numbers are never dropped: sets that do not fit side by side are stacked
        *(Column(label, "name", justify="right") for label, _ in sets),
    )
    for name, cell in ROWS:
        words = pieces(*(Text(word) for word in name.split()))  # kept whole, or wrapped at words
        listing.add_row(words, *(cell(scores) for _, scores in sets))
    return listing


class HeadlineScores:
    """The headline table of a run: printed as it is, or inside a Group (see module doc)."""

    def __init__(self, report: RunReport):
        self.sets = subsets(report)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        together = _listing(self.sets)
        if len(self.sets) == 1 or together.fits(width):
            yield together.table(width)
            return
        for one in self.sets:
            yield _listing([one]).table(width)


def scores_table(report: RunReport) -> HeadlineScores:
    """The headline numbers, all claims beside the unflagged ones."""
    return HeadlineScores(report)
