"""A run's explanation quality (EQ) from its judge runs: the adapter between the store's
judgments and workbench.metrics.explanations (part of EQ: see workbench/judging/__init__.py).

    eq = score_explanations(store, "gpt4-rfb", by=["domain"])
    eq.overall.mean, eq.overall.low, eq.violations, eq.slices["domain"]["health"]

A run's EQ comes from one judge run of it (the newest unless one is named). The rubric's
caps (a wrong verdict scores at most 4, a correct one at least 5) are checked against the
stored outcome of each judged answer; a score that breaks them is kept and counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from store import Run, Store
from workbench.choices import DEFAULT_RESAMPLES, DEFAULT_SEED
from workbench.metrics import MeanInterval, PairedComparison, mean_interval, paired_mean_difference, score_histogram
from workbench.scoring.runs import ScoringError, parse_fields, read_items, resolve_run

CORRECT_FLOOR, WRONG_CEILING = 5.0, 4.0
"""The rubric's caps: a correct verdict scores 5-10, any other 0-4."""


@dataclass(frozen=True)
class ExplanationScores:
    """One run's EQ as one judge run scored it."""

    run: Run
    judge: Run
    overall: MeanInterval | None
    distribution: list[int]
    """How many explanations scored 0, 1, ..., 10."""
    judged: int
    unreadable: int
    """Judgments without a readable 0-10 score (judge parse failures)."""
    errors: int
    not_judged: int
    """Explanations of the run the judge run has not scored (yet)."""
    violations: int
    """Scores outside the band the verdict allows (kept, and counted here)."""
    slices: dict[str, dict[str, MeanInterval]] = field(default_factory=dict)


def judge_run_of(store: Store, run: Run, judge: str | None = None) -> Run | None:
    """The judge run of `run` to read: the one named (run name or id, or the judge model),
    else the newest; None when there is none."""
    runs = store.judging.judge_runs(run.id)
    if judge is None:
        return runs[0] if runs else None
    for candidate in runs:
        if judge in (candidate.name, str(candidate.id), candidate.model):
            return candidate
    names = ", ".join(r.name for r in runs) or "none yet"
    raise ScoringError(f"run {run.name!r} has no judge run {judge!r}; its judge runs: {names}")


def score_explanations(
    store: Store,
    reference: str | int,
    judge: str | None = None,
    by: Sequence[str] = (),
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> ExplanationScores | None:
    """A run's EQ (None when no judge run has scored it)."""
    run = resolve_run(store, reference)[0]
    judge_run = judge_run_of(store, run, judge)
    if judge_run is None:
        return None
    judged = store.judging.scores(judge_run.id)
    scores = np.array([j.score for j in judged], dtype=np.float64)
    progress = store.runs.progress(judge_run.id)
    explained = len(store.runs.explained_claim_ids(run.id))
    return ExplanationScores(
        run=run,
        judge=judge_run,
        overall=mean_interval(scores, resamples, seed),
        distribution=score_histogram(scores),
        judged=len(judged),
        unreadable=progress.parse_failure,
        errors=progress.error,
        not_judged=max(explained - progress.done, 0),
        violations=sum(_breaks_rubric(j.score, j.outcome) for j in judged),
        slices=_slices(store, run, judged, by, resamples, seed),
    )


def _breaks_rubric(score: float, outcome: str | None) -> bool:
    return score < CORRECT_FLOOR if outcome == "correct" else score > WRONG_CEILING


def _slices(
    store: Store, run: Run, judged, by: Sequence[str], resamples: int, seed: int
) -> dict[str, dict[str, MeanInterval]]:
    fields = parse_fields(by)
    if not fields or not judged:
        return {}
    items = read_items(store, run.id, fields)
    score_of = np.full(len(items), np.nan)
    position = np.searchsorted(items.claim_ids, [j.claim_id for j in judged])
    score_of[position] = [j.score for j in judged]
    result = {}
    for slice_field in fields:
        column = items.fields[slice_field.name]
        result[slice_field.name] = {}
        for value in column.values:
            values = score_of[column.items_with(value)]
            found = mean_interval(values[~np.isnan(values)], resamples, seed)
            if found is not None:
                result[slice_field.name][value] = found
    return result


@dataclass(frozen=True)
class ExplanationComparison:
    """EQ of run B minus EQ of run A, as one judge scored both, on the claims it scored in both."""

    judge_a: Run
    judge_b: Run
    shared: int
    paired: PairedComparison | None


def compare_explanations(
    store: Store,
    run_a: str | int,
    run_b: str | int,
    judge: str | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> ExplanationComparison | None:
    """None unless both runs were judged by the same judge (model identity and template)."""
    a, b = resolve_run(store, run_a)[0], resolve_run(store, run_b)[0]
    judge_a = judge_run_of(store, a, judge)
    if judge_a is None:
        return None
    same = [
        r
        for r in store.judging.judge_runs(b.id)
        if r.model_identity == judge_a.model_identity and r.prompt_hash == judge_a.prompt_hash
    ]
    if not same:
        return None
    scores_a = {j.claim_id: j.score for j in store.judging.scores(judge_a.id)}
    scores_b = {j.claim_id: j.score for j in store.judging.scores(same[0].id)}
    shared = sorted(scores_a.keys() & scores_b.keys())
    paired = paired_mean_difference([scores_a[c] for c in shared], [scores_b[c] for c in shared], resamples, seed)
    return ExplanationComparison(judge_a, same[0], len(shared), paired)
