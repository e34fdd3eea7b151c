"""Agreement of a run's annotators, read from the store: the adapter between the labels
(store.triage) and workbench.metrics.triage_agreement.

    found = run_agreement(store, "gpt4-rfb")
    found.agreement.kappa.value, found.agreement.categories[0].alpha, found.progress["ana"].left
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from store import Progress, Run, Store
from workbench.choices import DEFAULT_RESAMPLES, DEFAULT_SEED
from workbench.metrics.agreement import MISSING
from workbench.metrics.triage_agreement import LabelMatrix, TriageAgreement, triage_agreement
from workbench.triage import TriageError
from workbench.triage.final import category_bits


@dataclass(frozen=True)
class RunAgreement:
    run: Run
    agreement: TriageAgreement
    progress: dict[str, Progress] = field(default_factory=dict)
    """Each assigned annotator's queue: assigned, done, left."""
    adjudicated: int = 0
    awaiting: int = 0
    """Answers labelled differently that nobody has decided yet."""


def label_matrix(store: Store, run_id: int) -> tuple[LabelMatrix, np.ndarray]:
    """items x annotators category masks of a run's labels (MISSING: not labelled), rows by
    claim id, and each row's prediction id."""
    categories = store.annotations.categories()
    bits = category_bits(categories, store.triage.used_categories(run_id))
    rows = store.triage.label_masks(run_id, bits)
    names = sorted({annotator for _, _, annotator, _ in rows})
    column = {name: i for i, name in enumerate(names)}
    predictions = sorted({(claim_id, prediction_id) for prediction_id, claim_id, _, _ in rows})
    row_of = {prediction_id: i for i, (_, prediction_id) in enumerate(predictions)}
    masks = np.full((len(predictions), len(names)), MISSING, dtype=np.int64)
    for prediction_id, _, annotator, mask in rows:
        masks[row_of[prediction_id], column[annotator]] = mask
    by_bit = sorted(bits.items(), key=lambda pair: pair[1])
    name_of = {c.id: c.name for c in categories}
    matrix = LabelMatrix(names, [name_of[category_id] for category_id, _ in by_bit], masks,
                         np.array([claim_id for claim_id, _ in predictions], dtype=np.int64))
    return matrix, np.array([prediction_id for _, prediction_id in predictions], dtype=np.int64)


def run_agreement(store: Store, reference: str | int, resamples: int = DEFAULT_RESAMPLES,
                  seed: int = DEFAULT_SEED) -> RunAgreement:
    """Every agreement figure of a run's labels, with queue progress and adjudication counts."""
    run = store.runs.get(reference)
    if run is None or run.kind != "verdict":
        names = ", ".join(r.name for r in store.runs.list()[:8]) or "none yet"
        raise TriageError(f"no fact-checking run {str(reference)!r}; runs: {names}")
    try:
        matrix, prediction_ids = label_matrix(store, run.id)
    except ValueError as error:
        raise TriageError(str(error)) from None
    found = triage_agreement(matrix, resamples, seed)
    decided = store.triage.adjudications(run.id)
    return RunAgreement(run, found, store.assignments.progress_by_annotator(run.id), len(decided),
                        awaiting(matrix.masks, prediction_ids, set(decided)))


def awaiting(masks: np.ndarray, prediction_ids: np.ndarray, decided: set[int]) -> int:
    """Rows two or more people labelled differently whose answer nobody has decided."""
    if masks.size == 0:
        return 0
    given = masks != MISSING
    low = np.where(given, masks, np.iinfo(np.int64).max).min(axis=1)
    high = np.where(given, masks, -1).max(axis=1)
    disputed = (given.sum(axis=1) >= 2) & (low != high)
    return int(sum(1 for p in prediction_ids[disputed].tolist() if p not in decided))
