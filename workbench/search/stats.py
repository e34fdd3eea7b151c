"""How a search run searched: searches per claim, the domains it was shown, what the guards
dropped and why, and the claims flagged search-leak (RealFactBench's with/without-search
comparison reads these beside `workbench compare`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from store import Run, Store
from workbench.search.guards import LEAK, normalised


@dataclass
class SearchStats:
    run: Run
    claims: int
    searches: int
    steps: int
    searches_per_claim: float
    dropped: dict[str, int] = field(default_factory=dict)
    domains: list[tuple[str, int]] = field(default_factory=list)
    """The domains of the results shown, most frequent first."""
    leaks: int = 0


def search_stats(store: Store, run: Run, top: int = 10) -> SearchStats:
    counts = store.search.run_counts(run.id)
    domains = Counter(normalised(url).split("/", 1)[0] for url in counts["shown_urls"])
    per_claim = counts["searches_per_claim"]
    leaks = store.claims.count(f"run:{run.id} flagged:{LEAK}@run")
    return SearchStats(run, counts["claims"], counts["searches"], counts["steps"],
                       sum(per_claim) / len(per_claim) if per_claim else 0.0, counts["dropped"],
                       domains.most_common(top), leaks)

