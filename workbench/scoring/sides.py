"""Reading several runs over the same claims: the claims' side of the items (gold and slice
fields, the costly join) once, and each run's own side (outcomes, flags) without claims.

The metrics view opens two 300,000-item runs this way on two threads: the claims, the first
run's side and the second run's side are three reads of about the same size instead of two
whole reads, so the view waits for ~2/3 of the work.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from store import LabelSpace, Run, Store
from workbench.scoring.fields import SliceField
from workbench.scoring.items import FieldColumn, RunItems, outcome_codes
from workbench.scoring.reading import ClaimPlan, flag_kinds_of, members_of, outcomes_of, parse_ints, with_flag_columns


@dataclass
class ClaimSide:
    """The claims of a run as its items see them: ids (ascending), gold codes, fields."""

    dataset_id: int | None
    space: LabelSpace
    claim_ids: np.ndarray
    gold: np.ndarray
    columns: dict[str, FieldColumn]
    cutoff: str | None


@dataclass
class RunSide:
    """A run's own side of its items: claim ids, outcome codes, flags, newest answer."""

    run: Run
    dataset: str
    space: LabelSpace
    claim_ids: np.ndarray
    outcome: np.ndarray
    flagged: dict[str, np.ndarray]
    last_seen: str | None

    def beside(self, claims: ClaimSide, fields: Sequence[SliceField]) -> RunItems | None:
        """The run's items over `claims`; None unless the run covers exactly those claims."""
        if (
            claims.dataset_id != self.run.dataset_id
            or claims.space != self.space
            or not np.array_equal(self.claim_ids, claims.claim_ids)
        ):
            return None
        return RunItems(
            self.run,
            self.dataset,
            self.space,
            self.claim_ids,
            claims.gold,
            self.outcome,
            with_flag_columns(fields, claims.columns, self.flagged),
            self.flagged,
            claims.cutoff,
            self.last_seen,
        )


def read_claim_side(
    store: Store, run: Run, space: LabelSpace, fields: Sequence[SliceField] = (), cutoff: str | None = None
) -> ClaimSide:
    plan = ClaimPlan.of(store, space, fields)
    read = store.scoring.read_claim_side(run.id, space, plan.columns, plan.sources)
    claim_ids, gold, columns, _ = plan.decode(store, run, read, cutoff)
    return ClaimSide(run.dataset_id, space, claim_ids, gold, columns, cutoff)


def read_run_side(
    store: Store,
    run: Run,
    dataset: str,
    space: LabelSpace,
    fields: Sequence[SliceField] = (),
    flag_kinds: Sequence[str] = (),
    with_last_seen: bool = False,
) -> RunSide:
    """One statement of index ranges; the claim ids come from the answers when every claim
    has one (a second statement reads them otherwise)."""
    kinds = flag_kinds_of(fields, flag_kinds)
    codes = outcome_codes(space)
    read = store.scoring.read_run_side(run.id, codes, kinds, with_last_seen)
    answered = [parse_ints(text) for text in read.outcome_ids]
    count = int(read.packed or 0)
    # Each claim has one answer at most: as many answers as claims means these are the
    # claims, and sorting them brings their outcome codes along (each range comes sorted).
    if answered and sum(len(ids) for ids in answered) == count:
        listed = np.concatenate(answered)
        order = np.argsort(listed, kind="stable")
        claim_ids = listed[order]
        outcome = np.repeat(np.asarray(read.outcome_codes, dtype=np.int64), [len(ids) for ids in answered])[order]
    else:
        claim_ids = parse_ints(store.scoring.run_claim_ids(run.id))
        outcome = outcomes_of(claim_ids, read.outcome_ids, read.outcome_codes, codes.missing)
    flagged = {kind: members_of(claim_ids, parse_ints(text)) for kind, text in zip(kinds, read.flagged_ids)}
    return RunSide(run, dataset, space, claim_ids, outcome, flagged, read.last_seen or None)


def likely_same_claims(store: Store, first: Run, other: Run) -> bool:
    """The same dataset and the same lowest and highest claim id (checked in full later)."""
    return first.dataset_id == other.dataset_id and store.runs.claim_span(first.id) == store.runs.claim_span(other.id)
