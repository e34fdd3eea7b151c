"""Judges calibrated against people: every scoring of a run's explanations (each judge
run's, each person's, from the claim detail's `e`) and the agreement of every pair of them
(`workbench judge-agreement`). Part of explanation quality: see workbench/judging/__init__.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from store import Store
from workbench.metrics import Agreement, agreement
from workbench.scoring.runs import resolve_run


@dataclass(frozen=True)
class Scoring:
    """One source of scores for a run's explanations: a judge run, or a person."""

    name: str
    scores: dict[int, float]
    unreadable: int = 0
    """Judgments without a readable 0-10 score: counted here, never a score."""
    errors: int = 0
    """Judgments the judge never gave (API errors)."""


def scorings(store: Store, reference: str | int) -> list[Scoring]:
    """Every judge run's and every person's scores of a run's explanations."""
    run = resolve_run(store, reference)[0]
    found = [
        Scoring(
            judge.name, {j.claim_id: j.score for j in store.judging.scores(judge.id)}, *store.judging.failures(judge.id)
        )
        for judge in store.judging.judge_runs(run.id)
    ]
    found += [Scoring(f"person:{who}", scores) for who, scores in store.judging.person_scores(run.id).items()]
    return found


def agreements(found: Sequence[Scoring]) -> list[tuple[str, str, Agreement]]:
    """Agreement of every pair of scorings, on the claims both scored."""
    result = []
    for i, first in enumerate(found):
        for second in found[i + 1 :]:
            shared = sorted(first.scores.keys() & second.scores.keys())
            result.append(
                (
                    first.name,
                    second.name,
                    agreement([first.scores[c] for c in shared], [second.scores[c] for c in shared]),
                )
            )
    return result
