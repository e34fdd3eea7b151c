"""What the contamination screen reads, as plain data: each function opens its own Store
(it runs on a worker thread) and closes it. Nothing here touches a widget."""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from pathlib import Path

from store import Claim, Store
from store.contamination import ScoreGroup, ScoreRow
from workbench.contamination.flagging import CONTAMINATED, ContaminationError, current_tau, pick_group, write_flags
from workbench.contamination.pipeline_evidence import EvidenceSide, generated_side, oracle_side
from workbench.contamination.sweep import SweepResult, manual_labels, sweep

TOP_CLAIMS = 300  # the list shows the highest-scoring claims; the counts cover all of them


@dataclass
class Overview:
    """One (model, extractor, metric): its scores, the stored tau and flags, the sweep."""

    groups: list[ScoreGroup]
    group: ScoreGroup | None
    sorted_scores: list[float] = field(default_factory=list)
    """s of every scorable claim, ascending (counting s >= tau is one bisect)."""
    tau: float = 0.0
    flagged_now: int = 0
    top: list[ScoreRow] = field(default_factory=list)
    sweep: SweepResult | None = None
    labelled: int = 0

    def would_flag(self, tau: float) -> int:
        """How many scorable claims have s >= tau."""
        return len(self.sorted_scores) - bisect_left(self.sorted_scores, tau)

    @property
    def scorable(self) -> int:
        return len(self.sorted_scores)


@dataclass
class ClaimDetail:
    claim: Claim
    row: ScoreRow
    oracle: EvidenceSide
    generated: EvidenceSide
    flagged: bool


def read_overview(
    db_path: Path, model: str | None, metric: str | None, index: int | None = None, claim_id: int | None = None
) -> Overview:
    """The chosen group (by position `index`, else by model/metric, else the newest); the
    claim `claim_id` joins the top of the list when its score is lower."""
    store = Store.open(db_path)
    try:
        groups = store.contamination.score_groups()
        group = _choose(store, groups, model, metric, index)
        if group is None:
            return Overview(groups, None)
        scores = store.contamination.score_values(group.target_model, group.metric, group.extractor_model)
        flagged = store.annotations.flagged_claim_ids(CONTAMINATED, group.target_model, group.metric, "pipeline")
        labels = manual_labels(store)
        result = sweep(scores, labels.by_claim) if any(c in scores for c in labels.by_claim) else None
        top = store.contamination.score_rows(
            group.target_model, group.metric, group.extractor_model, scorable_only=True, limit=TOP_CLAIMS
        )
        if claim_id is not None and all(row.claim_id != claim_id for row in top):
            top = (
                store.contamination.score_rows(
                    group.target_model, group.metric, group.extractor_model, claim_id=claim_id
                )
                + top
            )
        return Overview(
            groups,
            group,
            sorted(scores.values()),
            current_tau(store, group.target_model, group.metric),
            len(flagged),
            top,
            result,
            sum(c in scores for c in labels.by_claim),
        )
    finally:
        store.close()


def _choose(store: Store, groups: list[ScoreGroup], model, metric, index) -> ScoreGroup | None:
    if index is not None and groups:
        return groups[index % len(groups)]
    if model or metric:
        try:
            return pick_group(store, model, metric)
        except ContaminationError:
            return None
    return groups[0] if groups else None


def read_claim(db_path: Path, group: ScoreGroup, claim_id: int) -> ClaimDetail | None:
    """One claim's evidence on both sides, its pairs and whether it is flagged now."""
    store = Store.open(db_path)
    try:
        rows = store.contamination.score_rows(
            group.target_model, group.metric, group.extractor_model, claim_id=claim_id
        )
        if not rows:
            return None
        row, claim = rows[0], store.claims.get(claim_id)
        flagged = claim_id in store.annotations.flagged_claim_ids(
            CONTAMINATED, group.target_model, group.metric, "pipeline"
        )
        return ClaimDetail(
            claim,
            row,
            oracle_side(store, claim, row.oracle_run_id),
            generated_side(store, claim_id, row.article_run_id, row.generated_run_id),
            flagged,
        )
    finally:
        store.close()


def accept_flags(db_path: Path, group: ScoreGroup, tau: float):
    """Write the pipeline flags at tau (replacing this model and metric's); the FlagChange."""
    store = Store.open(db_path)
    try:
        return write_flags(store, group, tau)
    finally:
        store.close()
