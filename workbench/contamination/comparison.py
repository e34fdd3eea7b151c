"""Text only against with image, for the same target model, extractor, metric and claims.

The pairs are the claims that have an image and a score under both probes: a claim
without an image is shown the same prompt either way, so it can only dilute the
difference. S (the mean claim score) is compared by a paired bootstrap of the mean
difference (metrics.explanations.paired_mean_difference, the same estimator as for EQ);
the flags at each probe's tau by McNemar's exact test on the discordant claims.
"""

from __future__ import annotations

from dataclasses import dataclass

from store import ScoreGroup, Store
from workbench.choices import DEFAULT_RESAMPLES, DEFAULT_SEED
from workbench.contamination.flagging import current_tau
from workbench.contamination.probes import split_probe
from workbench.metrics import McNemarResult, PairedComparison
from workbench.metrics.explanations import paired_mean_difference
from workbench.metrics.resampling import mcnemar_from_counts


@dataclass
class ProbeComparison:
    """One model, extractor and metric scored both ways over the same image claims."""

    target_model: str
    extractor_model: str
    metric: str
    """The metric without the probe (meteor, embedding...)."""
    claims: int
    """Image claims scorable under both probes (the pairs)."""
    text_mean: float | None
    image_mean: float | None
    difference: PairedComparison | None
    """S with image minus S text only, its 95% interval and two-sided p."""
    tau_text: float
    tau_image: float
    flagged_text: int
    flagged_image: int
    flags: McNemarResult
    """b = flagged text only and not with image, c = the reverse; exact two-sided p."""

    def to_dict(self) -> dict:
        found = {key: value for key, value in self.__dict__.items() if key not in ("difference", "flags")}
        difference = self.difference
        found["difference"] = (
            None
            if difference is None
            else {
                "delta": difference.delta,
                "low": difference.low,
                "high": difference.high,
                "p_value": difference.p_value,
            }
        )
        found["flags_mcnemar"] = {
            "text_only_flagged": self.flags.b,
            "with_image_flagged": self.flags.c,
            "p_value": self.flags.p_value,
        }
        return found


def probe_pairs(groups: list[ScoreGroup]) -> list[tuple[ScoreGroup, ScoreGroup]]:
    """(text-only group, with-image group) for each model, extractor and metric that has both."""
    by_key: dict[tuple, dict[bool, ScoreGroup]] = {}
    for group in groups:
        base, image = split_probe(group.metric)
        by_key.setdefault((group.target_model, group.extractor_model, base), {})[image] = group
    return [(pair[False], pair[True]) for pair in by_key.values() if False in pair and True in pair]


def compare_probes(
    store: Store,
    text: ScoreGroup,
    image: ScoreGroup,
    claim_ids: set[int] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> ProbeComparison:
    """S and the flags of the two probes over the image claims both scored (within `claim_ids`)."""
    text_scores = store.contamination.score_values(text.target_model, text.metric, text.extractor_model)
    image_scores = store.contamination.score_values(image.target_model, image.metric, image.extractor_model)
    shared = sorted(set(text_scores) & set(image_scores) & (claim_ids if claim_ids is not None else set(text_scores)))
    paired = sorted(store.claims.matching(shared, "has:image")) if shared else []
    a, b = [text_scores[c] for c in paired], [image_scores[c] for c in paired]
    tau_text, tau_image = (
        current_tau(store, text.target_model, text.metric),
        current_tau(store, image.target_model, image.metric),
    )
    flagged_a = [s >= tau_text for s in a]
    flagged_b = [s >= tau_image for s in b]
    discordant = (
        sum(x and not y for x, y in zip(flagged_a, flagged_b)),
        sum(y and not x for x, y in zip(flagged_a, flagged_b)),
    )
    return ProbeComparison(
        text.target_model,
        text.extractor_model,
        split_probe(text.metric)[0],
        len(paired),
        sum(a) / len(a) if a else None,
        sum(b) / len(b) if b else None,
        paired_mean_difference(a, b, resamples, seed),
        tau_text,
        tau_image,
        sum(flagged_a),
        sum(flagged_b),
        mcnemar_from_counts(*discordant),
    )
