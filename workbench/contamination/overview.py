"""What `contamination summary` reports, built once for its table and its JSON: each group's
summary, the combined flag sets, text only vs with image where a model was probed both
ways (comparison.py), and the summaries per subset of claims (slices.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from store import ScoreGroup, Store
from workbench.contamination.comparison import ProbeComparison, compare_probes, probe_pairs
from workbench.contamination.flagging import GroupSummary, combined_flag_sets, summarise
from workbench.contamination.slices import claims_by, summaries_by


@dataclass
class ContaminationOverview:
    summaries: list[GroupSummary]
    combined: list[tuple[str, str, int]]
    probes: list[ProbeComparison]
    by: str | None = None
    sliced: dict[str, list[GroupSummary]] = field(default_factory=dict)

    def to_dict(self) -> dict:
        found = {
            "scores": [s.to_dict() for s in self.summaries],
            "combined": [{"model": m, "metric": x, "claims": n} for m, x, n in self.combined],
            "probes": [p.to_dict() for p in self.probes],
        }
        if self.by:
            found["by"] = {
                "field": self.by,
                "subsets": {v: [s.to_dict() for s in rows] for v, rows in self.sliced.items()},
            }
        return found


def contamination_overview(
    store: Store,
    groups: list[ScoreGroup],
    claim_ids: set[int] | None = None,
    tau: float | None = None,
    by: str | None = None,
    cutoff: str | None = None,
    resamples: int = 1000,
    seed: int = 0,
) -> ContaminationOverview:
    """The summary of these score groups, over `claim_ids` (None: every scored claim);
    ContaminationError for a --by field that cannot be used."""
    summaries = [summarise(store, g, tau, claim_ids) for g in groups]
    if claim_ids is not None:  # a model/metric with no scores among those claims says nothing about them
        summaries = [s for s in summaries if s.claims]
    probes = [compare_probes(store, text, image, claim_ids, resamples, seed) for text, image in probe_pairs(groups)]
    sliced = summaries_by(store, groups, claims_by(store, by, cutoff), tau, claim_ids) if by else {}
    return ContaminationOverview(summaries, combined_flag_sets(store, claim_ids), probes, by, sliced)
