"""Everything a screen shows about one claim, read in one go (in a worker)."""

from __future__ import annotations

from dataclasses import dataclass, field

from store import Claim, ClaimJudgment, FailureCategory, Flag, Prediction, Run, Step, Store


@dataclass
class ClaimBundle:
    """A claim with its flags and every run's answer."""

    claim: Claim
    flags: list[Flag] = field(default_factory=list)
    verdicts: list[tuple[Run, Prediction]] = field(default_factory=list)
    scored: set[str] | None = None
    """The dataset's scored gold classes (None if unknown)."""
    judgments: list[ClaimJudgment] = field(default_factory=list)
    """Judge runs' and people's scores of the runs' explanations."""
    image_data: dict[str, bytes] = field(default_factory=dict)
    """The claim's images' bytes, by sha256."""
    trajectories: list[tuple[str, list[Step], list[str]]] = field(default_factory=list)
    """(run name, steps, reformulation labels of its query pairs) of every search run
    that searched for this claim."""
    retrieved: dict[str, bytes] = field(default_factory=dict)
    """The bytes of the images search runs showed their models, by sha256."""
    retrieved_facts: dict[str, tuple[str, int, int, int]] = field(default_factory=dict)
    """sha256 -> (mime, bytes, width, height) of those images."""

    def judgments_of(self, run: Run) -> list[ClaimJudgment]:
        return [j for j in self.judgments if j.target_run == run.name]


def load_bundle(store: Store, claim_id: int) -> ClaimBundle | None:
    """Read a claim, its flags and verdicts; None if the claim is gone."""
    claim = store.claims.get(claim_id)
    if claim is None:
        return None
    dataset = store.datasets.get(claim.dataset) if claim.dataset else None
    trajectories = [(name, store.search.trajectory(run_id, claim_id), _pair_labels(store, run_id, claim_id))
                    for run_id, name in store.search.searched_runs(claim_id)]
    shown = sorted({r.sha256 for _, steps, _ in trajectories for step in steps for r in step.results if r.sha256})
    return ClaimBundle(
        claim=claim,
        flags=store.annotations.flags_for(claim_id),
        verdicts=store.runs.predictions_for_claim(claim_id),
        scored=set(dataset.label_space.labels) if dataset else None,
        judgments=store.judging.for_claim(claim_id),
        image_data={image.sha256: store.claims.image_data(image.sha256) for image in claim.images if image.sha256},
        trajectories=trajectories,
        retrieved={sha: store.claims.image_data(sha) for sha in shown},
        retrieved_facts=store.search.image_facts(shown),
    )


def _pair_labels(store: Store, run_id: int, claim_id: int) -> list[str]:
    """The newest reformulation labels of a search run's query pairs for one claim."""
    for labeller in store.runs.list(kind="reformulate"):
        if labeller.target_run_id == run_id:
            answer = store.runs.prediction(labeller.id, claim_id)
            if answer is not None and answer.status == "ok":
                return list((answer.parsed or {}).get("labels") or [])
    return []


@dataclass
class TriageItem:
    """One wrong answer in the triage queue, with what people said about it."""

    bundle: ClaimBundle
    run: Run
    prediction: Prediction
    categories: list[FailureCategory]
    """Every category (built-in first), each with its key."""
    assigned: set[int]
    """Ids of the categories on this prediction."""
    reviewed: bool
    note: str | None
    counts: dict[str, int]
    """Category name -> how many of the run's predictions carry it."""


def load_triage_item(store: Store, run_id: int, claim_id: int) -> TriageItem | None:
    """The claim, this run's answer and its triage; None if either is gone."""
    bundle = load_bundle(store, claim_id)
    run = store.runs.get(run_id)
    prediction = store.runs.prediction(run_id, claim_id)
    if bundle is None or run is None or prediction is None:
        return None
    notes = store.annotations
    reviewed, note = notes.review_of(prediction.id)
    return TriageItem(
        bundle=bundle, run=run, prediction=prediction, categories=notes.categories(),
        assigned={c.id for c in notes.categories_for(prediction.id)}, reviewed=reviewed, note=note,
        counts=notes.category_counts(run_id),
    )
