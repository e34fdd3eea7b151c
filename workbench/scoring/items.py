"""A run's items as numpy arrays: every claim in the run's subset is one item with its
gold label, its outcome (a predicted value, an API error, or missing) and its slice values.
workbench.scoring.reading reads them from the database."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from store import LabelSpace, Run
from store.scoring import OutcomeCodes
from workbench.metrics import NO_VALUE, OutcomeCoder
from workbench.scoring.fields import SliceField


@dataclass(frozen=True)
class FieldColumn:
    """One slice field's values for a set of items, as (item, value) membership pairs.

    A single-valued field has one pair per item; a list-valued one (claim types) may have
    several, so an item counts in each of its slices.
    """

    field: SliceField
    values: tuple[str, ...]
    members: np.ndarray
    """Item positions, one per pair."""
    codes: np.ndarray
    """Index into `values`, one per pair."""

    def items_with(self, value: str) -> np.ndarray:
        """Positions of the items in the slice `value`."""
        return self.members[self.codes == self.values.index(value)]


def outcome_codes(space: LabelSpace) -> OutcomeCodes:
    """Outcome codes as RunItems keeps them: the confusion columns (classes, abstain,
    parse failure), then API error, then missing. An abstention where the dataset has no
    abstain label has no column of its own: it counts as a parse failure (unreadable)."""
    coder = OutcomeCoder(space.labels, space.abstain)
    k, m = len(coder.classes), len(coder.columns)
    verdicts = {name: i for i, name in enumerate(space.labels)}
    if space.abstain is not None:
        verdicts[space.abstain] = k
    abstain = k if space.abstain is not None else m - 1
    return OutcomeCodes(verdicts, abstain, parse_failure=m - 1, error=m, missing=m + 1)


@dataclass(frozen=True)
class RunItems:
    """Every item of one run: claim ids (ascending), gold and outcome codes, slices.

    gold: 0..K-1 a scored class; K+j the dataset's j-th excluded label; K+E no usable label.
    outcome: 0..M-1 a confusion column (classes, abstain, parse failure); M an API error;
    M+1 missing (no answer recorded).
    """

    run: Run
    dataset: str
    space: LabelSpace
    claim_ids: np.ndarray
    gold: np.ndarray
    outcome: np.ndarray
    fields: dict[str, FieldColumn] = field(default_factory=dict)
    flagged: dict[str, np.ndarray] = field(default_factory=dict)
    """flag kind -> bool per item: the claim carries a flag of that kind."""
    cutoff: str | None = None
    last_seen: str | None = None
    """The newest prediction's created_at when these items were read."""
    settled: bool = False
    """Nothing changes these items any more (a live run's snapshot): derived arrays are kept."""
    cluster: str | None = None
    """The field whose claims are resampled together (--cluster), if any."""
    clusters: np.ndarray | None = None
    """Each item's cluster number (items without a value stand alone), with `cluster`."""

    @cached_property
    def coder(self) -> OutcomeCoder:
        return OutcomeCoder(self.space.labels, self.space.abstain)

    @property
    def error_code(self) -> int:
        return len(self.coder.columns)

    @property
    def missing_code(self) -> int:
        return len(self.coder.columns) + 1

    def __len__(self) -> int:
        return len(self.claim_ids)

    def slots(self) -> np.ndarray:
        """OutcomeCoder slot numbers per item (what the pure metrics count). Kept once made
        for items whose outcomes no longer change (a snapshot); made afresh otherwise."""
        found = self.__dict__.get("_slots")
        if found is not None:
            return found
        found = self._slots()
        if self.settled:
            self.__dict__["_slots"] = found
        return found

    def _slots(self) -> np.ndarray:
        coder = self.coder
        k, m = len(coder.classes), len(coder.columns)
        cells = self.gold.astype(np.int64) * m + np.minimum(self.outcome, m - 1)
        slots = np.where(self.outcome == m, coder.error_slot, cells)
        slots = np.where(self.outcome == m + 1, coder.missing_slot, slots)
        return np.where(self.gold >= k, coder.excluded_slot, slots)

    def excluded_by_label(self) -> dict[str, int]:
        """How many items each excluded gold label kept out of scoring (and unlabelled ones)."""
        k = len(self.space.labels)
        names = [*self.space.excluded, NO_VALUE]
        counts = np.bincount(self.gold[self.gold >= k] - k, minlength=len(names))
        return {name: int(n) for name, n in zip(names, counts) if n}

    def subset(self, keep: np.ndarray) -> RunItems:
        """The items where `keep` (bool per item) is true, slices and flags included."""
        keep = np.asarray(keep, dtype=bool)
        new_position = np.cumsum(keep) - 1
        fields = {}
        for name, column in self.fields.items():
            kept = keep[column.members]
            fields[name] = replace(column, members=new_position[column.members[kept]], codes=column.codes[kept])
        return replace(
            self,
            claim_ids=self.claim_ids[keep],
            gold=self.gold[keep],
            outcome=self.outcome[keep],
            fields=fields,
            flagged={kind: flags[keep] for kind, flags in self.flagged.items()},
            clusters=None if self.clusters is None else self.clusters[keep],
        )

    def clustered_by(self, name: str, keep_field: bool = False) -> RunItems:
        """These items with each one's cluster from the field `name` (read with them); an
        item without a value is a cluster of its own. ValueError if the field holds lists."""
        column = self.fields[name]
        if len(column.members) != len(self):  # a list-valued field puts an item in several slices
            raise ValueError(f"{name} holds lists for some claims; a cluster needs one value per claim")
        numbers = np.arange(len(self), dtype=np.int64) + len(column.values)  # alone by default
        named = np.array([value != NO_VALUE for value in column.values], dtype=bool)[column.codes]
        numbers[column.members[named]] = column.codes[named]
        fields = self.fields if keep_field else {k: v for k, v in self.fields.items() if k != name}
        return replace(self, fields=fields, cluster=name, clusters=numbers)

    def cluster_count(self, positions: np.ndarray | None = None) -> int:
        """How many clusters the items (at `positions`) fall in; 0 without clustering."""
        if self.clusters is None:
            return 0
        chosen = self.clusters if positions is None else self.clusters[positions]
        return int(np.count_nonzero(np.bincount(chosen))) if len(chosen) else 0
