"""A run's AVeriTeC leaderboard row: the 2025 figures (Ev2R Q-only and Q+A recall, the new
score) beside the 2024 ones (Hungarian METEOR Q-only and Q+A, the old score at 0.25), and the
fact-checker's seconds per claim (the 2025 task allowed one minute) when its time is known.

There is a row only for a run an Ev2R judge run has judged (`workbench ev2r RUN`); its METEOR
figures need NLTK's data, and are left out with the reason when that is missing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from store import Run, Store
from workbench.contamination.ev2r_scores import Ev2rResult, ev2r_of, ev2r_runs, judge_sets, judging, no_ev2r
from workbench.metrics.ev2r import claim_score, failed, part_recall
from workbench.metrics.resampling import PairedComparison
from workbench.usage.summary import run_usage

if TYPE_CHECKING:  # the METEOR scorer (nltk) loads only for a run that has a row
    from workbench.contamination.averitec_scorer import EvidenceScores

OLD_LEVEL = 0.25
"""The METEOR level of the 2024 score the 2025 leaderboard shows beside the new one."""
TIME_BUDGET_S = 60.0
"""The 2025 task's budget per claim."""


@dataclass(frozen=True)
class LeaderboardRow:
    """One run's AVeriTeC figures, 2025 and 2024."""

    ev2r: Ev2rResult
    meteor: EvidenceScores | None
    meteor_problem: str | None
    """Why the METEOR figures are missing (NLTK data, evidence that cannot be scored)."""
    seconds_per_claim: float | None
    """The run's own model time per answered claim; None for imported or cached answers."""

    @property
    def old_score(self) -> float | None:
        return None if self.meteor is None else self.meteor.averitec.get(OLD_LEVEL)


def leaderboard_row(store: Store, run: Run, judge: str | None = None) -> LeaderboardRow | None:
    """The run's row, or None when no Ev2R judge run has judged it."""
    found = ev2r_of(store, run, judge)
    if found is None:
        return None
    meteor, problem = _meteor(store, run)
    usage = run_usage(store, run)
    seconds = usage.seconds_total / usage.answers if usage.answers and usage.seconds_total else None
    return LeaderboardRow(found, meteor, problem, seconds)


def _meteor(store: Store, run: Run) -> tuple[EvidenceScores | None, str | None]:
    from workbench.contamination.averitec_runs import score_run_evidence
    from workbench.contamination.averitec_scorer import EvidenceDataError
    from workbench.nlp.nlp_data import NlpDataMissing

    try:
        return score_run_evidence(store, run), None
    except (NlpDataMissing, EvidenceDataError) as error:
        return None, str(error).splitlines()[0]


@dataclass(frozen=True)
class Ev2rComparison:
    """Run B minus run A in Q+A recall and in the 2025 score, on the claims whose Q+A judgment
    is readable in both (judged by the same judge model and prompts)."""

    shared: int
    failed: int
    """Claims of both runs left out because a judgment of either is a failure."""
    recall: PairedComparison | None
    score: PairedComparison | None
    problem: str | None = None
    """Why there are no paired figures although a run has Ev2R judgments (no matched set)."""


def compare_ev2r(store: Store, run_a: Run, run_b: Run, resamples: int, seed: int) -> Ev2rComparison | None:
    """The paired figures from judge runs of the same judge and prompts for both runs (their
    newest such sets); None when neither run has an Ev2R judgment, a `problem` when no set
    of one run matches a set of the other."""
    from workbench.metrics import paired_mean_difference

    if not any(ev2r_runs(store, run_a).values()) and not any(ev2r_runs(store, run_b).values()):
        return None
    sets_a, sets_b = judge_sets(store, run_a), judge_sets(store, run_b)
    matched = next(((x, y) for x in sets_a for y in sets_b if judging(x) == judging(y)), None)
    if matched is None:
        return Ev2rComparison(0, 0, None, None, _unmatched(store, run_a, run_b, sets_a, sets_b))
    a, b = ev2r_of(store, run_a, judges=matched[0]), ev2r_of(store, run_b, judges=matched[1])
    both = sorted(a.per_claim.keys() & b.per_claim.keys())
    kept = [c for c in both if not (failed(a.per_claim[c].pairs) or failed(b.per_claim[c].pairs))]
    pairs = [(a.per_claim[c], b.per_claim[c]) for c in kept]
    recall = [[part_recall(x.pairs) for x, _ in pairs], [part_recall(y.pairs) for _, y in pairs]]
    score = [[claim_score(x) for x, _ in pairs], [claim_score(y) for _, y in pairs]]
    return Ev2rComparison(
        len(kept),
        len(both) - len(kept),
        paired_mean_difference(*recall, resamples, seed),
        paired_mean_difference(*score, resamples, seed),
    )


def _unmatched(store: Store, run_a: Run, run_b: Run, sets_a: list, sets_b: list) -> str:
    if not sets_a or not sets_b:
        return no_ev2r(store, run_a if not sets_a else run_b)
    said = [f"{run.name}: {_judged_by(sets[0])}" for run, sets in ((run_a, sets_a), (run_b, sets_b))]
    return (
        f"no judge and prompt judged both runs ({'; '.join(said)}); judge them with the same `workbench ev2r` options"
    )


def _judged_by(judges: dict[str, Run]) -> str:
    prompts = dict.fromkeys(r.prompt_name for r in judges.values())
    return f"judge {judges['pairs'].model}, prompt {' + '.join(map(str, prompts))}"
