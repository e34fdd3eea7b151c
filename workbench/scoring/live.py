"""A run's scores kept current while it is running, for live panels.

The run is read once (scoring_items); after that each poll reads only the predictions
written since the last one and records them in LiveMetrics, which replaces an item's
earlier outcome by claim id. Nothing here touches a UI: the TUI calls it from workers.

    live = load_live_run(store, "gpt4-js", fields, exclude_flag="contaminated")
    changed = live.poll(store)            # on PRAGMA data_version change
    live.summary(), live.breakdown("importance", filtered=True)
    report = live.snapshot()              # arrays for bootstrap intervals in a thread
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import replace
from datetime import datetime, timedelta

import numpy as np

from store import Store
from workbench.metrics import API_ERROR, MISSING, LiveMetrics, Memberships, MetricSummary
from workbench.scoring.fields import SliceField
from workbench.scoring.items import RunItems, outcome_codes
from workbench.scoring.reading import load_run_items
from workbench.scoring.runs import read_items, resolve_for_reading
from workbench.scoring.sides import likely_same_claims, read_claim_side, read_run_side

RECHECK_SECONDS = 2
"""How far before the newest seen timestamp each poll reads again. Timestamps have
seconds resolution and concurrent writers stamp an answer just before committing it,
so commits can land slightly out of stamp order; an item read again with the same
outcome is skipped."""


class LiveRun:
    """One run's counters, overall and per slice, with and without flagged claims."""

    def __init__(self, items: RunItems, exclude_flag: str | None = None):
        self.items = replace(items, outcome=items.outcome.copy())
        self.exclude_flag = exclude_flag
        self.last_seen = items.last_seen
        self.field_names = tuple(items.fields)
        space, coder = items.space, items.coder
        self._gold_names = [*space.labels, *space.excluded, None]
        self._outcome_names = [*coder.columns, API_ERROR, MISSING]
        self.metrics = LiveMetrics(space.labels, space.abstain, self.field_names)
        self.filtered: LiveMetrics | None = None
        """Counters without the flagged claims, counted when first asked for (then kept
        up to date): the first paint does not wait for them."""
        self._flagged = items.flagged[exclude_flag] if exclude_flag else None
        _load(self.metrics, self.items)

    @property
    def run(self):
        return self.items.run

    def _record(self, position: int) -> None:
        items = self.items
        args = (
            int(items.claim_ids[position]),
            self._gold_names[items.gold[position]],
            self._outcome_names[items.outcome[position]],
        )
        self.metrics.update(*args)
        if self.filtered is not None and not self._flagged[position]:
            self.filtered.update(*args)

    def apply(self, changes: Sequence[tuple[int, int]]) -> int:
        """Record (claim id, outcome code) pairs; returns how many items changed outcome."""
        changed = 0
        ids = self.items.claim_ids
        for claim_id, code in changes:
            position = int(np.searchsorted(ids, claim_id))
            if position >= len(ids) or ids[position] != claim_id:
                continue  # not one of the run's claims
            if self.items.outcome[position] == code:
                continue  # read again inside the recheck window: nothing to count
            changed += 1
            self.items.outcome[position] = code
            self._record(position)
        return changed

    def poll(self, store: Store) -> int:
        """Read the predictions written since the last poll; how many items changed."""
        changes, newest = changed_predictions(store, self.items, self.last_seen)
        if newest is not None and (self.last_seen is None or newest > self.last_seen):
            self.last_seen = newest
        return self.apply(changes)

    def summary(self, filtered: bool = False) -> MetricSummary:
        """Overall scores now (filtered: without the flagged claims)."""
        return self._metrics(filtered).summary()

    def breakdown(self, field: str, filtered: bool = False) -> dict[str, MetricSummary]:
        """Scores per slice value of `field` now, in reading order, slices with items only."""
        metrics = self._metrics(filtered)
        order = self.items.fields[field].values
        present = set(metrics.slice_values(field))
        result = {}
        for value in [v for v in order if v in present]:
            summary = metrics.summary(field, value)
            if summary.scored or summary.errors or summary.missing:
                result[value] = summary
        return result

    def snapshot(self) -> RunItems:
        """The items as they are now, safe to score in another thread."""
        return replace(self.items, outcome=self.items.outcome.copy(), last_seen=self.last_seen, settled=True)

    def _metrics(self, filtered: bool) -> LiveMetrics:
        if filtered:
            if self._flagged is None:
                raise ValueError("this live run was read without an exclude flag")
            if self.filtered is None:
                space = self.items.space
                self.filtered = LiveMetrics(space.labels, space.abstain, self.field_names)
                _load(self.filtered, self.items.subset(~self._flagged))
            return self.filtered
        return self.metrics


def load_live_run(
    store: Store,
    reference: str | int,
    fields: Sequence[SliceField] = (),
    cutoff: str | None = None,
    exclude_flag: str | None = None,
) -> LiveRun:
    """Read a run once and start counting (the only full read a live panel makes)."""
    kinds = [exclude_flag] if exclude_flag else []
    return LiveRun(read_items(store, reference, fields, cutoff, kinds, with_last_seen=True), exclude_flag)


def load_live_runs(
    store: Store,
    open_store: Callable[[], Store],
    pool: Executor,
    run_ids: Sequence[int],
    fields: Sequence[SliceField] = (),
    cutoff: str | None = None,
    exclude_flag: str | None = None,
) -> list[LiveRun]:
    """Read several runs side by side on `pool` (its threads open their stores with
    `open_store`; `store` is the caller's). Runs over the same claims as the first share
    one read of the claims (scoring.sides); any other run is read whole."""
    kinds = [exclude_flag] if exclude_flag else []
    found = [resolve_for_reading(store, run_id, fields, cutoff, kinds) for run_id in run_ids]
    lead = found[0][0]
    alike = [i for i, (run, _, _) in enumerate(found) if i == 0 or likely_same_claims(store, lead, run)]

    def whole(i: int) -> LiveRun:
        run, dataset, space = found[i]
        return LiveRun(load_run_items(open_store(), run, dataset, space, fields, cutoff, kinds, True), exclude_flag)

    if len(alike) < 2:
        return list(pool.map(whole, range(len(found))))
    claims = pool.submit(lambda: read_claim_side(open_store(), lead, found[0][2], fields, cutoff))
    sides = {i: pool.submit(lambda i=i: read_run_side(open_store(), *found[i], fields, kinds, True)) for i in alike[1:]}
    others = {i: pool.submit(whole, i) for i in range(len(found)) if i not in alike}
    lead_side = read_run_side(store, *found[0], fields, kinds, True)  # this thread would only wait
    claim_side = claims.result()

    def counted(i: int, side) -> LiveRun:  # counting 300,000 items takes ~20 ms
        items = side.beside(claim_side, fields)
        return LiveRun(items, exclude_flag) if items is not None else whole(i)  # same span, other claims

    lives = {i: pool.submit(lambda i=i: counted(i, sides[i].result())) for i in alike[1:]}
    first = counted(0, lead_side)
    return [first if i == 0 else (lives.get(i) or others[i]).result() for i in range(len(found))]


def changed_predictions(store: Store, items: RunItems, since: str | None) -> tuple[list[tuple[int, int]], str | None]:
    """(claim id, outcome code) of the run's predictions written at or after `since`
    (less RECHECK_SECONDS), and the newest created_at among them."""
    rows = store.scoring.outcomes_since(
        items.run.id, outcome_codes(items.space), _earlier(since, RECHECK_SECONDS) if since else None
    )
    newest = max((row[2] for row in rows), default=None)
    return [(row[0], row[1]) for row in rows], newest


def flag_signature(store: Store, kind: str | None) -> tuple:
    """Changes whenever a flag of `kind` is added or removed (live panels then re-read)."""
    return store.scoring.flag_signature(kind) if kind else ()


def _earlier(stamp: str, seconds: int) -> str:
    """An ISO timestamp as stored ("2025-01-01T10:00:00Z"), `seconds` earlier, same format."""
    try:
        moment = datetime.fromisoformat(stamp.rstrip("Z"))
    except ValueError:
        return stamp
    return (moment - timedelta(seconds=seconds)).isoformat() + ("Z" if stamp.endswith("Z") else "")


def _load(metrics: LiveMetrics, items: RunItems) -> None:
    """The first count of every item, in bulk."""
    slices = {name: Memberships(column.values, column.members, column.codes) for name, column in items.fields.items()}
    metrics.load(items.claim_ids, items.slots(), slices)
