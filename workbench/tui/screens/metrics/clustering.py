"""Which claims the metrics view's intervals and paired tests resample together: the field
the user named (`workbench tui --cluster FIELD|none`), else the natural cluster of the first
run's dataset profile, exactly as `workbench metrics --cluster` chooses and draws it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from workbench.reports.clusters import cluster_for
from workbench.scoring.fields import FieldError, SliceField, parse_cluster
from workbench.scoring.items import RunItems
from workbench.scoring.runs import ScoringError, resolve_run


@dataclass(frozen=True)
class Clustering:
    """The fields the runs are read with, and how their snapshots are clustered."""

    fields: tuple[SliceField, ...] = ()
    breakdown: str | None = None
    """The breakdown field's name (the cluster field is read beside it, not shown as one)."""
    name: str | None = None
    """The cluster field (None: claim by claim)."""
    declared_by: str | None = None
    """The profile whose natural cluster this is, when the user named none."""

    @classmethod
    def of(cls, store, config, fields: Sequence[SliceField]) -> Clustering:
        """The clustering `config` asks for (its `cluster`), reading `fields` for the breakdown.
        ScoringError for a field that cannot cluster claims."""
        breakdown = fields[0].name if fields else None
        if not config.run_ids:
            return cls(tuple(fields), breakdown)
        run, _, _ = resolve_run(store, config.run_ids[0])
        name, declared_by = cluster_for(store, run, config.cluster)
        if name is None:
            return cls(tuple(fields), breakdown)
        try:
            field = parse_cluster(name)
        except FieldError as error:
            raise ScoringError(str(error)) from None
        extra = () if any(f.name == field.name for f in fields) else (field,)
        return cls((*fields, *extra), breakdown, field.name, declared_by)

    def apply(self, items: RunItems) -> RunItems:
        """A run's snapshot with each claim's cluster (unchanged without clustering)."""
        if self.name is None:
            return items
        try:
            return items.clustered_by(self.name, keep_field=self.name == self.breakdown)
        except ValueError as error:
            raise ScoringError(str(error)) from None
