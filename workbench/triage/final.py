"""Each answer's labels side by side, its final label, and the failure-category breakdown
the final labels feed (metrics, report).

An answer's final categories are the adjudicator's decision when there is one; else the
label everyone who labelled it agrees on (one person's label is final by itself); when
people disagree and nobody has decided, it has none yet and waits in the adjudication
queue. People's own labels are never changed by any of this.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from store import Adjudication, FailureCategory, Store

MAX_BITS = 62
"""Categories a run's labels may use at once (one bit each in a 64-bit integer)."""


@dataclass(frozen=True)
class ItemLabels:
    """One answer with every annotator's categories and the decision, if any."""

    prediction_id: int
    claim_id: int
    labels: dict[str, frozenset[int]]
    """annotator -> category ids, for those who labelled it."""
    adjudication: Adjudication | None = None

    @property
    def disputed(self) -> bool:
        """Two or more people labelled it, not all the same."""
        return len(set(self.labels.values())) > 1

    @property
    def final(self) -> frozenset[int] | None:
        if self.adjudication is not None:
            return self.adjudication.category_ids
        distinct = set(self.labels.values())
        return next(iter(distinct)) if len(distinct) == 1 else None

    @property
    def state(self) -> str:
        if self.adjudication is not None:
            return "adjudicated"
        if self.disputed:
            return "disputed"
        return "agreed" if len(self.labels) > 1 else "single"


@dataclass(frozen=True)
class FailureBreakdown:
    """How a run's wrong answers fall into failure categories, by their final labels."""

    run: str
    wrong: int
    """The run's wrong answers (wrong verdicts, abstentions and unreadable answers on scored claims)."""
    labelled: int
    """Wrong answers someone labelled."""
    final: int
    """Of those, answers with a final label."""
    adjudicated: int
    awaiting: int
    """People disagree and nobody has decided yet (not in the counts)."""
    counts: dict[str, int] = field(default_factory=dict)
    """Category name -> final labels that carry it (an answer may carry several)."""
    no_category: int = 0
    """Final labels with no category ("none of these")."""
    set_apart: dict[str, int] = field(default_factory=dict)
    """Labelled answers that are not wrong (made before labels were checked), by how the
    failure counts name them (answers.SET_APART): shown apart, never counted."""


def category_bits(categories: list[FailureCategory], used: set[int] | None = None) -> dict[int, int]:
    """Category id -> bit in display order, for every category (or those in `used`)."""
    ordered = [c.id for c in categories if used is None or c.id in used]
    if len(ordered) > MAX_BITS:
        raise ValueError(f"this run's labels use {len(ordered)} failure categories; at most {MAX_BITS} at once")
    return {category_id: bit for bit, category_id in enumerate(ordered)}


def bits_for(store: Store, categories: list[FailureCategory], run_id: int) -> dict[int, int]:
    """A bit for every category, or, past MAX_BITS of them, for those the run's labels use."""
    if len(categories) <= MAX_BITS:
        return category_bits(categories)
    return category_bits(categories, store.triage.used_categories(run_id))


def run_items(store: Store, run_id: int) -> list[ItemLabels]:
    """Every labelled answer of a run, by claim id, with its decision."""
    categories = store.annotations.categories()
    bits = bits_for(store, categories, run_id)
    ids_of_bit = {bit: category_id for category_id, bit in bits.items()}
    decided = store.triage.adjudications(run_id)
    grouped: dict[int, tuple[int, dict[str, frozenset[int]]]] = {}
    for prediction_id, claim_id, annotator, mask in store.triage.label_masks(run_id, bits):
        ids = frozenset(ids_of_bit[bit] for bit in range(MAX_BITS + 1) if (mask >> bit) & 1)
        grouped.setdefault(prediction_id, (claim_id, {}))[1][annotator] = ids
    items = [ItemLabels(p, claim_id, labels, decided.get(p)) for p, (claim_id, labels) in grouped.items()]
    return sorted(items, key=lambda item: item.claim_id)


def disagreements(store: Store, run_id: int, include_decided: bool = False) -> list[ItemLabels]:
    """The adjudication queue: wrong answers people labelled differently and nobody has
    decided (with include_decided, the decided ones too)."""
    apart = store.answer_outcomes.labelled_not_wrong(run_id)
    return [
        item
        for item in run_items(store, run_id)
        if item.disputed and (include_decided or item.adjudication is None) and item.prediction_id not in apart
    ]


def failure_breakdown(store: Store, run_id: int) -> FailureBreakdown | None:
    """The breakdown by final labels of wrong answers (labels on other answers are counted
    apart); None when nobody has labelled the run's answers."""
    from workbench.triage.answers import SET_APART

    apart = store.answer_outcomes.labelled_not_wrong(run_id)
    items = [item for item in run_items(store, run_id) if item.prediction_id not in apart]
    if not items and not apart:
        return None
    set_apart: dict[str, int] = {}
    for outcome in apart.values():
        name = SET_APART.get(outcome, outcome)
        set_apart[name] = set_apart.get(name, 0) + 1
    run = store.runs.get(run_id)
    names = {c.id: c.name for c in store.annotations.categories()}
    counts = dict.fromkeys(names.values(), 0)
    final, no_category = 0, 0
    for item in items:
        chosen = item.final
        if chosen is None:
            continue
        final += 1
        no_category += not chosen
        for category_id in chosen:
            counts[names[category_id]] += 1
    return FailureBreakdown(
        run.name,
        store.claims.count(f"run:{run_id} wrong"),
        len(items),
        final,
        sum(1 for item in items if item.adjudication is not None),
        sum(1 for item in items if item.final is None),
        counts,
        no_category,
        set_apart,
    )
