"""What a search run's report shows beside its scores: how it searched (search.stats) and,
once a judge has labelled its query pairs, the reformulation table."""

from __future__ import annotations

from dataclasses import dataclass

from store import Run, Store
from workbench.choices import DEFAULT_RESAMPLES, DEFAULT_SEED
from workbench.judging.reformulation import ReformulationTable, reformulation_table
from workbench.search.stats import SearchStats, search_stats


@dataclass
class SearchSummary:
    """What a search run's report shows beside its scores."""

    stats: SearchStats
    reformulations: ReformulationTable | None = None
    """The query-pair labels per claim (and per subset), once a judge has labelled them."""


def search_summary(
    store: Store,
    run: Run,
    by: str | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    cutoff: str | None = None,
) -> SearchSummary | None:
    """The summary of a search run (None for a run without search); reformulations are
    compared between the first two subsets of `by` (e.g. flag:contaminated)."""
    if not run.params.get("search"):
        return None
    table = reformulation_table(store, run, by, resamples, seed, cutoff)
    return SearchSummary(search_stats(store, run, by=by, cutoff=cutoff), table if table.labeller is not None else None)
