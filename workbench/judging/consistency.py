"""A judge checked against itself: the repeats of a judge run (`judge --repeats K`), read
from the store into workbench.metrics.judge_consistency.

    report = judge_consistency(store, "smollm2-judges-demo-checker-x3")
    report.consistency.identical.value, report.consistency.flickering[:5]
"""

from __future__ import annotations

from dataclasses import dataclass

from store import Run, Store
from store.names import no_run
from workbench.choices import DEFAULT_RESAMPLES, DEFAULT_SEED
from workbench.metrics.judge_consistency import Consistency, consistency
from workbench.runs.types import RunSetupError


@dataclass(frozen=True)
class ConsistencyReport:
    judge: Run
    target: Run
    consistency: Consistency


def repeated_judge_run(store: Store, reference: str | int) -> Run:
    """The judge run named, or the newest judge run with repeats of the verdict run named."""
    run = store.runs.get(reference)
    if run is None:
        raise RunSetupError(no_run(store.runs, reference, listing=False))
    if run.kind in ("judge", "ev2r"):  # an Ev2R judge run's repeats keep each repeat's recall
        if not store.judging.repeat_count(run.id):
            raise RunSetupError(
                f"judge run {run.name!r} asked once per explanation: there is no consistency to"
                f" show; judge again with --repeats K"
            )
        return run
    repeated = [r for r in store.judging.judge_runs(run.id) if store.judging.repeat_count(r.id)]
    if not repeated:
        raise RunSetupError(f"no judge run of {run.name!r} has repeats; run `workbench judge {run.name} --repeats 3`")
    return repeated[0]


def judge_consistency(
    store: Store, reference: str | int, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> ConsistencyReport:
    judge = repeated_judge_run(store, reference)
    repeats = store.judging.repeats(judge.id)
    count = store.judging.repeat_count(judge.id) or 1
    rows = [(r.claim_id, r.repeat, r.status, r.score) for r in repeats]
    return ConsistencyReport(judge, store.runs.get(judge.target_run_id), consistency(rows, count, resamples, seed))
