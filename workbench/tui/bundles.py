"""Everything a screen shows about one claim, read in one go (in a worker)."""

from __future__ import annotations

from dataclasses import dataclass, field

from store import (
    Adjudication,
    Claim,
    ClaimJudgment,
    FailureCategory,
    Flag,
    HistoryEntry,
    Label,
    Prediction,
    Run,
    Step,
    Store,
)


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
    history: list[HistoryEntry] = field(default_factory=list)
    """Changes to the claim's labels, newest first (others' labels of answers in my blind
    queue left out until I am done with them)."""
    hidden_history: int = 0

    def judgments_of(self, run: Run) -> list[ClaimJudgment]:
        return [j for j in self.judgments if j.target_run == run.name]


def load_bundle(store: Store, claim_id: int, annotator: str | None = None) -> ClaimBundle | None:
    """Read a claim, its flags and verdicts (and, for `annotator`, the label history they
    may see); None if the claim is gone."""
    claim = store.claims.get(claim_id)
    if claim is None:
        return None
    # The label space alone: counting a big dataset's claims on every claim shown costs more.
    space = store.datasets.label_space(claim.dataset) if claim.dataset else None
    history, hidden = _visible_history(store, claim_id, annotator) if annotator is not None else ([], 0)
    trajectories = [
        (name, store.search.trajectory(run_id, claim_id), _pair_labels(store, run_id, claim_id))
        for run_id, name in store.search.searched_runs(claim_id)
    ]
    shown = sorted({r.sha256 for _, steps, _ in trajectories for step in steps for r in step.results if r.sha256})
    return ClaimBundle(
        history=history,
        hidden_history=hidden,
        claim=claim,
        flags=store.annotations.flags_for(claim_id),
        verdicts=store.runs.predictions_for_claim(claim_id),
        scored=set(space.labels) if space else None,
        judgments=store.judging.for_claim(claim_id),
        image_data={image.sha256: store.claims.image_data(image.sha256) for image in claim.images if image.sha256},
        trajectories=trajectories,
        retrieved={sha: store.claims.image_data(sha) for sha in shown},
        retrieved_facts=store.search.image_facts(shown),
    )


def _visible_history(store: Store, claim_id: int, annotator: str) -> tuple[list[HistoryEntry], int]:
    """The claim's label history without others' triage of answers blind to `annotator`."""
    entries = store.triage.history(claim_id)
    blind = store.assignments.blind_for(annotator, sorted({e.prediction_id for e in entries if e.prediction_id}))
    shown = [
        e
        for e in entries
        if not (
            e.prediction_id in blind
            and e.annotator != annotator
            and e.kind in ("categories", "note", "done", "adjudication")
        )
    ]
    return shown, len(entries) - len(shown)


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
    """One answer in a triage queue, with my label and what others said (unless blind)."""

    bundle: ClaimBundle
    run: Run
    prediction: Prediction
    categories: list[FailureCategory]
    """Every category (built-in first), each with its key."""
    annotator: str
    mine: Label
    others: dict[str, Label]
    """Other annotators' labels by name; empty while they are hidden (see hidden)."""
    hidden: int
    """Others' labels kept from me: the answer is in my blind queue and I am not done."""
    decision: Adjudication | None
    counts: dict[str, int] | None = None
    """Category name -> how many of the run's answers I gave it (None: not read with the
    item; the triage screen reads them apart, so a big run's counts never delay an item)."""

    @property
    def assigned(self) -> set[int]:
        """Ids of the categories I gave this answer."""
        return set(self.mine.category_ids)

    @property
    def reviewed(self) -> bool:
        return self.mine.done

    @property
    def note(self) -> str | None:
        return self.mine.note


def load_triage_item(store: Store, run_id: int, claim_id: int, annotator: str) -> TriageItem | None:
    """The claim, this run's answer, my label and the others' (hidden in a blind queue of
    mine until I am done); None if the claim or the answer is gone."""
    bundle = load_bundle(store, claim_id)
    run = store.runs.get(run_id)
    prediction = store.runs.prediction(run_id, claim_id)
    if bundle is None or run is None or prediction is None:
        return None
    labels = store.triage.labels(prediction.id)
    mine = labels.pop(annotator, Label(annotator))
    others = {name: label for name, label in labels.items() if label.labelled or label.note}
    hidden = 0
    if others and store.assignments.blind_for(annotator, [prediction.id]):
        hidden, others = len(others), {}
    return TriageItem(
        bundle=bundle,
        run=run,
        prediction=prediction,
        categories=store.annotations.categories(),
        annotator=annotator,
        mine=mine,
        others=others,
        hidden=hidden,
        decision=store.triage.adjudication(prediction.id),
    )
