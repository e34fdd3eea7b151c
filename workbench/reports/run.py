"""A run's whole report, built in one place for the CLI (`metrics`, `report`), the exported
reports (workbench/render/reports.py) and the TUI's metrics view.

    options = ReportOptions(by=("importance",), exclude_flag="contaminated")
    report = build_report(store, run, options)
    report.scores.full.overall.summary.macro_f1, report.explanations.overall, report.usage.cost
    reports = build_reports(store, ["gpt4-js", "smollm2-js"], options, cutoffs=["2024-06-01"])

A report has parts: the scores (workbench.scoring), the explanation quality of the run's
judge run (workbench.judging), the AVeriTeC leaderboard row and the AVerImaTeC figures of
its Ev2R and AVerImaTeC judge runs (workbench.contamination), a search run's searches and query reformulations (search.py),
the time and money it took (workbench.usage), and the failure categories of its wrong
answers by people's final labels (workbench.triage). Each part is None where the run has
none (no judge run, no search, nobody labelled). The TUI keeps live scores of its own and
asks only for the other parts, each when what it reads has changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from store import Run, Store
from workbench.choices import DEFAULT_RESAMPLES, DEFAULT_SEED
from workbench.judging.scores import ExplanationScores, score_explanations
from workbench.reports.averitec import LeaderboardRow, leaderboard_row
from workbench.reports.clusters import cluster_for
from workbench.reports.search import SearchSummary, search_summary
from workbench.scoring.runs import ScoreReport, resolve_run, runs_with_cutoffs, score_run
from workbench.triage.final import FailureBreakdown, failure_breakdown
from workbench.usage.prices import PriceTable
from workbench.usage.summary import RunUsage, run_usage

if TYPE_CHECKING:
    from workbench.contamination.averimatec_scores import AverimatecResult

PARTS = ("scores", "explanations", "averitec", "averimatec", "search", "usage", "failures")
"""Every part of a report, in the order the CLI prints them."""


@dataclass(frozen=True)
class ReportOptions:
    """What a report is asked for (the options `metrics` and `report` share)."""

    by: tuple[str, ...] = ()
    """Breakdown fields: of the scores and the EQ; the first splits a search run's
    reformulations into subsets (e.g. flag:contaminated)."""
    exclude_flag: str | None = None
    cutoff: str | None = None
    """The date a `cutoff` breakdown splits at (build_reports finds each run's)."""
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    judge: str | None = None
    """The judge run whose EQ to show (name, id or judge model); default: the newest."""
    cluster: str | None = None
    """The field whose claims the intervals resample together (--cluster)."""


@dataclass(frozen=True)
class RunReport:
    """One run's report: the parts asked for, each None when not asked for or not there."""

    run: Run
    scores: ScoreReport | None = None
    explanations: ExplanationScores | None = None
    """Explanation quality, when a judge run has scored the run."""
    averitec: LeaderboardRow | None = None
    """The AVeriTeC 2025 and 2024 figures, when an Ev2R judge run has judged the run."""
    averimatec: AverimatecResult | None = None
    """The AVerImaTeC figures, when an AVerImaTeC judge run has judged the run (its newest of
    each part, at the task's threshold: `workbench averimatec RUN --threshold` for another)."""
    search: SearchSummary | None = None
    """Searches, domains, leaks and query reformulations of a search run."""
    usage: RunUsage | None = None
    """Time per claim, speed, tokens and cost, with its judge runs'."""
    failures: FailureBreakdown | None = None
    """Failure categories of the run's wrong answers by final labels."""
    cluster_declared_by: str | None = None
    """The import profile whose natural cluster the scores resample, when none was asked for."""
    cutoff_note: str | None = None
    """Why --cutoff auto found no date for this run (it is scored without the cutoff split)."""


def build_report(
    store: Store,
    run: Run | str | int,
    options: ReportOptions = ReportOptions(),
    parts: Sequence[str] = PARTS,
    prices: PriceTable | None = None,
) -> RunReport:
    """A run's report with the `parts` asked for (PARTS: all of them); `prices`: the price
    table to cost it with (default: the built-in one with the config's [prices])."""
    unknown = set(parts) - set(PARTS)
    if unknown:
        raise ValueError(f"no report part {sorted(unknown)[0]!r}; parts: {', '.join(PARTS)}")
    if not isinstance(run, Run):
        run = resolve_run(store, run)[0]
    by, resamples, seed = list(options.by), options.resamples, options.seed
    found: dict = {}
    if "scores" in parts:
        cluster, declared_by = cluster_for(store, run, options.cluster)
        found["scores"] = score_run(store, run.id, by, options.exclude_flag, options.cutoff, resamples, seed, cluster)
        found["cluster_declared_by"] = declared_by
    if "explanations" in parts:
        found["explanations"] = score_explanations(store, run.id, options.judge, by, resamples, seed)
    if "averitec" in parts:
        found["averitec"] = leaderboard_row(store, run)
    if "averimatec" in parts:
        from workbench.contamination.averimatec_scores import averimatec_of

        found["averimatec"] = averimatec_of(store, run)
    if "search" in parts:
        found["search"] = search_summary(store, run, by[0] if by else None, resamples, seed, options.cutoff)
    if "usage" in parts:
        found["usage"] = run_usage(store, run, prices)
    if "failures" in parts:
        found["failures"] = failure_breakdown(store, run.id)
    return RunReport(run, **found)


def build_reports(
    store: Store,
    references: Sequence[str | int],
    options: ReportOptions = ReportOptions(),
    cutoffs: Sequence[str] = (),
    parts: Sequence[str] = PARTS,
) -> list[RunReport]:
    """build_report for each run named; `cutoffs` as --cutoff takes them (DATE, a model's
    name, auto, or RUN=DATE), each run getting its own (a ScoringError if one is needed and
    a run has none; a run auto finds no date for is reported without the cutoff split, and
    its cutoff_note says why)."""
    from dataclasses import replace

    from workbench.usage.prices import price_table

    prices = price_table() if "usage" in parts else None
    reports = []
    for run, cutoff, note in runs_with_cutoffs(store, references, options.by, cutoffs):
        by = options.by if note is None else tuple(f for f in options.by if f.strip().lower() != "cutoff")
        report = build_report(store, run, replace(options, cutoff=cutoff, by=by), parts, prices)
        reports.append(replace(report, cutoff_note=note))
    return reports
