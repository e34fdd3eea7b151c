"""Two runs' comparison report (`workbench compare`): the scores compared on the claims both
answered (workbench.scoring.compare) and, when one judge scored both runs, the paired EQ."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from store import Store
from workbench.choices import DEFAULT_RESAMPLES, DEFAULT_SEED
from workbench.judging.scores import ExplanationComparison, compare_explanations
from workbench.reports.averitec import Ev2rComparison, compare_ev2r
from workbench.reports.clusters import cluster_for
from workbench.runs.manifest import Difference, differences, run_manifest, unexplained
from workbench.scoring.compare import ScoreComparison, compare_runs
from workbench.scoring.cutoff_choice import AUTO_CUTOFF, chosen_cutoffs
from workbench.scoring.runs import ScoringError, parse_cutoffs, resolve_run


@dataclass(frozen=True)
class ComparisonReport:
    """Run B against run A: the scores compared, and the paired EQ where there is one."""

    scores: ScoreComparison
    explanations: ExplanationComparison | None = None
    """Paired EQ, when one judge (same model and template) scored both runs."""
    differences: tuple[Difference, ...] = ()
    """What differs between the two runs' manifests besides the model."""
    varies: tuple[str, ...] = ()
    """What the user said varies on purpose (--varies): those differences are expected."""
    cluster_declared_by: str | None = None
    """The import profile whose natural cluster the paired tests resample, when none was asked for."""
    ev2r: Ev2rComparison | None = None
    """Paired AVeriTeC 2025 figures, when one Ev2R judge judged both runs."""

    @property
    def unexplained(self) -> list[Difference]:
        """Differences besides the model that the user has not named."""
        return unexplained(list(self.differences), self.varies)

    @property
    def like_for_like(self) -> bool:
        """Only the model (and what the user named) differs."""
        return not self.unexplained


def build_comparison(
    store: Store,
    run_a: str | int,
    run_b: str | int,
    by: str | None = None,
    exclude_flag: str | None = None,
    cutoffs: Sequence[str] = (),
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    judge: str | None = None,
    cluster: str | None = None,
    varies: Sequence[str] = (),
) -> ComparisonReport:
    """The comparison of run B against run A; `cutoffs` as --cutoff takes them; `cluster`:
    the field whose claims the paired tests resample together."""
    cutoff_for = parse_cutoffs(list(cutoffs))
    runs = [resolve_run(store, reference)[0] for reference in (run_a, run_b)]
    _check_auto_cutoffs(runs, cutoffs, cutoff_for)
    cluster, declared_by = cluster_for(store, runs[0], cluster)
    scores = compare_runs(
        store, run_a, run_b, by, exclude_flag, [cutoff_for(r) for r in runs], resamples, seed, cluster
    )
    found = differences(run_manifest(store, runs[0]), run_manifest(store, runs[1]))
    return ComparisonReport(
        scores,
        compare_explanations(store, run_a, run_b, judge, resamples, seed),
        tuple(found),
        tuple(varies),
        declared_by,
        compare_ev2r(store, runs[0], runs[1], resamples, seed),
    )


def _check_auto_cutoffs(runs, cutoffs: Sequence[str], cutoff_for) -> None:
    """A comparison splits both runs at their cutoffs: auto finding none for one is an error."""
    from workbench.cutoffs import unknown_model_message

    chosen_for = chosen_cutoffs(list(cutoffs))
    for run in runs:
        if chosen_for(run) == AUTO_CUTOFF and cutoff_for(run) is None:
            raise ScoringError(f"--cutoff auto: run {run.name!r}: " + unknown_model_message(run.model))
