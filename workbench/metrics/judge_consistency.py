"""How consistent a judge is with itself when asked the same question K times
(`workbench judge RUN --repeats K`): per claim (all readable scores identical? their
spread), and overall (the share of claims scored identically every time, the mean
spread, Krippendorff's interval alpha with the repeats as coders).

A repeat without a readable score (an unreadable answer, an API error) is counted
apart and never enters a figure as a score; a claim with fewer than two readable repeats
cannot show consistency and is counted, not compared.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from workbench.metrics.agreement import MISSING, Estimate, interval_distance, krippendorff_alpha, value_patterns
from workbench.metrics.explanations import mean_interval


@dataclass(frozen=True)
class ClaimConsistency:
    claim_id: int
    scores: tuple[float | None, ...]
    """Each repeat's score in repeat order, None where it had no readable score."""
    identical: bool | None
    """All readable scores the same (None with fewer than two)."""
    spread: float | None
    """Highest minus lowest readable score."""

    @property
    def readable(self) -> list[float]:
        return [s for s in self.scores if s is not None]


@dataclass(frozen=True)
class Consistency:
    repeats: int
    claims: int
    comparable: int
    """Claims with two or more readable repeats (what the figures are computed on)."""
    identical: Estimate
    """The share of comparable claims scored identically every time, with its interval."""
    spread: Estimate
    """The mean spread (highest minus lowest) over comparable claims."""
    alpha: Estimate
    """Krippendorff's alpha, interval distance, the repeats as coders."""
    unreadable: int
    """Repeats whose answer held no readable 0-10 score."""
    errors: int
    """Repeats that got no answer at all."""
    per_claim: list[ClaimConsistency] = field(default_factory=list)

    @property
    def flickering(self) -> list[ClaimConsistency]:
        """Claims whose readable scores differ, the widest spread first."""
        return sorted((c for c in self.per_claim if c.identical is False), key=lambda c: (-c.spread, c.claim_id))


def consistency(
    rows: Iterable[tuple[int, int, str, float | None]], repeats: int, resamples: int = 1000, seed: int = 0
) -> Consistency:
    """From (claim id, repeat, status, score) rows (status ok, parse_failure or error)."""
    by_claim: dict[int, list[float | None]] = {}
    unreadable = errors = 0
    for claim_id, repeat, status, score in rows:
        scores = by_claim.setdefault(claim_id, [None] * repeats)
        if status == "ok" and score is not None:
            scores[repeat] = float(score)
        elif status == "error":
            errors += 1
        else:
            unreadable += 1
    per_claim = [_claim(claim_id, scores) for claim_id, scores in sorted(by_claim.items())]
    comparable = [c for c in per_claim if c.identical is not None]
    return Consistency(
        repeats,
        len(per_claim),
        len(comparable),
        _mean(
            [float(c.identical) for c in comparable], resamples, seed, "no claim has two readable repeats to compare"
        ),
        _mean([c.spread for c in comparable], resamples, seed, "no claim has two readable repeats to compare"),
        _alpha(per_claim, resamples, seed),
        unreadable,
        errors,
        per_claim,
    )


def _claim(claim_id: int, scores: list[float | None]) -> ClaimConsistency:
    readable = [s for s in scores if s is not None]
    if len(readable) < 2:
        return ClaimConsistency(claim_id, tuple(scores), None, None)
    return ClaimConsistency(claim_id, tuple(scores), len(set(readable)) == 1, max(readable) - min(readable))


def _mean(values: list[float], resamples: int, seed: int, why: str) -> Estimate:
    found = mean_interval(values, resamples, seed)
    if found is None:
        return Estimate.none(why)
    if resamples <= 0:
        return Estimate(found.mean)
    return Estimate(found.mean, found.low, found.high)


def _alpha(per_claim: list[ClaimConsistency], resamples: int, seed: int) -> Estimate:
    values = sorted({s for c in per_claim for s in c.readable})
    if not per_claim or not values:
        return Estimate.none("no readable score")
    index = {v: i for i, v in enumerate(values)}
    codes = np.array([[MISSING if s is None else index[s] for s in c.scores] for c in per_claim], dtype=np.int64)
    return krippendorff_alpha(value_patterns(codes, len(values)), interval_distance(np.array(values)), resamples, seed)
