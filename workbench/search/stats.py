"""How a search run searched: searches per claim, the domains it was shown, what the guards
dropped and why, the claims flagged search-leak (RealFactBench's with/without-search
comparison reads these beside `workbench compare`), and its image search: image searches
per claim, image results shown and dropped, images looked at, and the image-evidence
claims (those whose model looked at a retrieved image). With `by`, the per-claim numbers
per subset of claims (e.g. modality: with image / text only)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from store import Run, Store
from workbench.search.guards import LEAK, normalised


@dataclass
class SubsetSearch:
    """The per-claim numbers of one subset of a search run's claims."""

    claims: int
    searches_per_claim: float
    image_searches_per_claim: float
    image_evidence_claims: int


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
    image_searches: int = 0
    """Image searches and searches by the claim's image."""
    image_searches_per_claim: float = 0.0
    image_results_shown: int = 0
    image_results_dropped: int = 0
    images_viewed: int = 0
    image_result_claims: int = 0
    """Claims whose model was shown image results (titles and where they are)."""
    image_evidence_claims: int = 0
    """Claims whose model looked at a retrieved image."""
    by: str | None = None
    subsets: dict[str, SubsetSearch] = field(default_factory=dict)

    @property
    def searched_images(self) -> bool:
        return bool(self.image_searches or self.image_results_shown or self.images_viewed)


def search_stats(
    store: Store, run: Run, top: int = 10, by: str | None = None, cutoff: str | None = None
) -> SearchStats:
    """A search run's numbers; with `by` (a breakdown field), per subset of its claims too."""
    counts = store.search.run_counts(run.id)
    images = store.search.image_counts(run.id)
    domains = Counter(normalised(url).split("/", 1)[0] for url in counts["shown_urls"])
    per_claim, image_per_claim = counts["searches_by_claim"], images["image_searches_per_claim"]
    viewed = images["viewed_per_claim"]
    stats = SearchStats(
        run,
        counts["claims"],
        counts["searches"],
        counts["steps"],
        _mean(per_claim.values(), len(per_claim)),
        counts["dropped"],
        domains.most_common(top),
        store.claims.count(f"run:{run.id} flagged:{LEAK}@run"),
        sum(image_per_claim.values()),
        _mean(image_per_claim.values(), len(per_claim)),
        images["image_results_shown"],
        images["image_results_dropped"],
        sum(viewed.values()),
        images["claims_with_image_results"],
        len(viewed),
    )
    if by:
        stats.by = by
        for value, members in claims_by_field(store, run, by, cutoff).items():
            searched = [c for c in members if c in per_claim]
            if searched:
                stats.subsets[value] = SubsetSearch(
                    len(searched),
                    _mean([per_claim[c] for c in searched], len(searched)),
                    _mean([image_per_claim.get(c, 0) for c in searched], len(searched)),
                    sum(1 for c in searched if c in viewed),
                )
    return stats


def claims_by_field(store: Store, run: Run, by: str, cutoff: str | None = None) -> dict[str, list[int]]:
    """Slice value -> the run's claims in it, for a breakdown field (ScoringError if unknown)."""
    from workbench.scoring.runs import parse_fields, read_items

    fields = parse_fields([by])
    items = read_items(store, run.id, fields, cutoff)
    column = items.fields[fields[0].name]
    return {value: items.claim_ids[column.items_with(value)].tolist() for value in column.values}


def _mean(values, count: int) -> float:
    return sum(values) / count if count else 0.0
