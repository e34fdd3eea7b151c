"""Agreement of a run's annotators, read from the store: the adapter between the labels
(store.triage) and workbench.metrics.triage_agreement.

    found = run_agreement(store, "gpt4-rfb")
    found.agreement.kappa.value, found.agreement.categories[0].alpha, found.progress["ana"].left
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from store import Progress, Run, Store
from store.names import no_run
from workbench.choices import DEFAULT_RESAMPLES, DEFAULT_SEED
from workbench.metrics.agreement import MISSING
from workbench.metrics.triage_agreement import LabelMatrix, TriageAgreement, triage_agreement
from workbench.triage import TriageError
from workbench.triage.final import bits_for


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
    claim id, and each row's prediction id. Categories nobody used are left out."""
    categories = store.annotations.categories()
    bits = bits_for(store, categories, run_id)
    rows = store.triage.label_masks(run_id, bits)
    predictions = np.fromiter((r[0] for r in rows), np.int64, len(rows))
    claims = np.fromiter((r[1] for r in rows), np.int64, len(rows))
    masks = np.fromiter((r[3] for r in rows), np.int64, len(rows))
    names, column = np.unique(np.array([r[2] for r in rows], dtype=object), return_inverse=True)
    # A run answers a claim once: one row per claim (in id order) is one row per answer.
    claim_ids, row = np.unique(claims, return_inverse=True)
    prediction_of = np.zeros(len(claim_ids), np.int64)
    prediction_of[row] = predictions
    matrix = np.full((len(claim_ids), len(names)), MISSING, dtype=np.int64)
    matrix[row, column] = masks
    used = np.bitwise_or.reduce(masks) if len(masks) else 0
    decided = {c for a in store.triage.adjudications(run_id).values() for c in a.category_ids}
    by_bit = sorted(bits.items(), key=lambda pair: pair[1])
    keep = [bit for category_id, bit in by_bit if (int(used) >> bit) & 1 or category_id in decided]
    compact = np.zeros_like(matrix)
    for new_bit, bit in enumerate(keep):
        compact |= ((matrix >> bit) & 1) << new_bit
    compact[matrix == MISSING] = MISSING
    name_of = {c.id: c.name for c in categories}
    bit_to_id = {bit: category_id for category_id, bit in bits.items()}
    labels = LabelMatrix([str(n) for n in names], [name_of[bit_to_id[bit]] for bit in keep], compact, claim_ids)
    return labels, prediction_of


def run_agreement(
    store: Store, reference: str | int, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> RunAgreement:
    """Every agreement figure of a run's labels, with queue progress and adjudication counts."""
    run = store.runs.get(reference)
    if run is None or run.kind != "verdict":
        raise TriageError(no_run(store.runs, reference, fact_checking=True))
    try:
        matrix, prediction_ids = label_matrix(store, run.id)
    except ValueError as error:
        raise TriageError(str(error)) from None
    found = triage_agreement(matrix, resamples, seed)
    decided = store.triage.adjudications(run.id)
    return RunAgreement(
        run,
        found,
        store.assignments.progress_by_annotator(run.id),
        len(decided),
        awaiting(matrix.masks, prediction_ids, set(decided)),
    )


def awaiting(masks: np.ndarray, prediction_ids: np.ndarray, decided: set[int]) -> int:
    """Rows two or more people labelled differently whose answer nobody has decided."""
    if masks.size == 0:
        return 0
    given = masks != MISSING
    low = np.where(given, masks, np.iinfo(np.int64).max).min(axis=1)
    high = np.where(given, masks, -1).max(axis=1)
    disputed = (given.sum(axis=1) >= 2) & (low != high)
    return int(sum(1 for p in prediction_ids[disputed].tolist() if p not in decided))
