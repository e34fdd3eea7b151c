"""The curation funnel of a dataset: how many claims each step removed, in order.

A claim flagged by several steps counts under the first of them, so the rows add up:
every claim is either kept or counted once. Flags of other `curated-out:` kinds (a
person's, say) come last, as "by hand".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from store import Dataset, StepRecord, Store, step_kind
from workbench.curation.steps import STEPS

BY_HAND = "by hand"


@dataclass
class FunnelRow:
    step: str
    ran: bool
    settings: str
    """What the step was asked, in words."""
    entering: int
    removed: int
    left: int
    note: str = ""
    ran_at: str | None = None


@dataclass
class Funnel:
    dataset: str
    total: int
    kept: int
    rows: list[FunnelRow] = field(default_factory=list)

    @property
    def curated(self) -> bool:
        return any(row.ran or row.removed for row in self.rows)


def dataset_funnel(store: Store, dataset: Dataset) -> Funnel:
    """The funnel as the flags stand now."""
    records = store.curation.steps(dataset.id)
    kinds = [step_kind(step) for step in STEPS]
    first = store.curation.first_removals(dataset.id, kinds)
    funnel = Funnel(dataset.name, dataset.claim_count, store.curation.kept_count(dataset.id))
    entering = dataset.claim_count
    for step, kind in zip(STEPS, kinds):
        record = records.get(step)
        removed = first.get(kind, 0)
        note = _note(store, dataset, step, record) if record else ""
        funnel.rows.append(
            FunnelRow(
                step,
                record is not None,
                describe(step, record) if record else "not run",
                entering,
                removed,
                entering - removed,
                note,
                record.ran_at if record else None,
            )
        )
        entering -= removed
    other = sum(count for kind, count in first.items() if kind not in kinds)
    if other:
        funnel.rows.append(
            FunnelRow(BY_HAND, True, "curated-out flags set by people", entering, other, entering - other)
        )
    return funnel


def describe(step: str, record: StepRecord) -> str:
    """A step's settings in words."""
    settings = record.settings
    if step == "date":
        span = " to ".join(
            filter(
                None,
                [
                    f"from {settings['start']}" if settings.get("start") else None,
                    f"before {settings['end']}" if settings.get("end") else None,
                ],
            )
        )
        return f"{settings.get('date_of', 'review')} date {span}" + (
            f", {settings['why']}" if settings.get("why") else ""
        )
    if step == "language":
        return ", ".join(settings.get("languages") or [])
    if step == "publisher":
        name = str(settings.get("allow_list", "")).rsplit("/", 1)[-1]
        return f"allow-list {name} ({settings.get('entries', 0):,} publishers)"
    if step == "duplicate":
        return f"{settings.get('method')} similarity ≥ {settings.get('threshold')}"
    return f"{settings.get('model')} (run {settings.get('run')})"


def _note(store: Store, dataset: Dataset, step: str, record: StepRecord) -> str:
    settings = record.settings
    if step == "language" and settings.get("unclear"):
        return f"{settings['unclear']:,} kept: language unclear"
    if step == "publisher" and settings.get("unmatched"):
        return f"{len(settings['unmatched']):,} allow-list entries matched nothing"
    if step == "duplicate":
        groups = settings.get("groups", 0)
        return f"{groups:,} claim{'s' if groups != 1 else ''} reviewed more than once"
    if step == "screen":
        return _screen_note(store, dataset, record)
    return ""


def _screen_note(store: Store, dataset: Dataset, record: StepRecord) -> str:
    from workbench.curation.screening import LABELS

    labels = record.settings.get("labels") or {}
    parts = [f"{label} {labels[label]:,}" for label in LABELS if labels.get(label) and label != "ok"]
    if record.settings.get("unreadable"):
        parts.append(f"{record.settings['unreadable']:,} unreadable (kept)")
    if record.run_id is not None:
        earlier = [step_kind(step) for step in STEPS if step != "screen"]
        waiting = store.curation.unanswered(dataset.id, earlier, record.run_id)
        if waiting:
            parts.append(f"{waiting:,} not screened yet")
    return ", ".join(parts)


__all__ = ["BY_HAND", "Funnel", "FunnelRow", "dataset_funnel", "describe"]
