"""Scores broken down by an item field (importance, domain, contamination, cutoff)."""

from __future__ import annotations

import calendar
import re
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from operator import itemgetter

import numpy as np

from workbench.metrics.confusion import Confusion, OutcomeCoder
from workbench.metrics.summary import MetricSummary, summarise_slot_counts, summarise_slot_tallies

NO_VALUE = "(none)"
IMPORTANCE_LEVELS = ("Main", "Sub", "Irrelevant")
"""Importance in its meaning (store.records.Importance; metrics import no store)."""


def in_meaning_order(values: Iterable[Hashable]) -> list:
    """Values sorted: importance levels by meaning (none first, as the browser's sort puts
    it, then Main, Sub, Irrelevant) when every value is one of them, else by their text."""
    values = set(values)
    order = (NO_VALUE, *IMPORTANCE_LEVELS)
    if values <= set(order):
        return sorted(values, key=order.index)
    return sorted(values, key=str)


"""The slice value of an item that has no value for a field."""

_YEAR = re.compile(r"^\d{4}$")
_YEAR_MONTH = re.compile(r"^(\d{4})-(\d{2})$")


def _date_span(text: str) -> tuple[date, date] | None:
    """First and last day an ISO date (or just a year, or year-month) may mean."""
    text = text.strip()
    if _YEAR.match(text):
        year = int(text)
        return date(year, 1, 1), date(year, 12, 31)
    month = _YEAR_MONTH.match(text)
    try:
        if month:
            year, mon = int(month[1]), int(month[2])
            return date(year, mon, 1), date(year, mon, calendar.monthrange(year, mon)[1])
        day = datetime.fromisoformat(text).date()
    except ValueError:
        return None
    return day, day


def cutoff_bucket(claim_date: str | None, cutoff: str) -> str:
    """ "before" or "after" a model's training cutoff, or "unknown".

    A claim dated on or after the cutoff is "after". A claim with no readable date, or
    one given only as a year or month that straddles the cutoff, is "unknown".
    """
    try:
        cutoff_day = date.fromisoformat(cutoff.strip())
    except ValueError:
        raise ValueError(f"cutoff {cutoff!r} is not an ISO date (YYYY-MM-DD)") from None
    span = _date_span(claim_date) if claim_date else None
    if span is None:
        return "unknown"
    first, last = span
    if first >= cutoff_day:
        return "after"
    if last < cutoff_day:
        return "before"
    return "unknown"


def _tallies_by_key(slots: np.ndarray, keys: Sequence[Hashable], coder: OutcomeCoder) -> dict[Hashable, np.ndarray]:
    """One slot tally per key, keys in order (in_meaning_order; NO_VALUE for None)."""
    name_of = {key: NO_VALUE if key is None else key for key in set(keys)}
    distinct = in_meaning_order(name_of.values())
    index = {name: i for i, name in enumerate(distinct)}
    code_of = {key: index[name] for key, name in name_of.items()}
    groups = np.fromiter(map(code_of.__getitem__, keys), dtype=np.int64, count=len(keys))
    width = coder.slot_count
    flat = np.bincount(groups * width + slots, minlength=len(distinct) * width)
    return dict(zip(distinct, flat.reshape(len(distinct), width)))


def breakdown(
    gold: Sequence[str],
    predicted: Sequence[str],
    keys: Sequence[Hashable],
    classes: Sequence[str],
    abstain_label: str | None = None,
) -> dict[Hashable, MetricSummary]:
    """Scores per distinct key (one key per item), sorted by key.

    Predictions may include API_ERROR and MISSING; gold labels outside the classes
    count as excluded, as in `summarise`.
    """
    if len(keys) != len(gold):
        raise ValueError(f"{len(keys)} keys but {len(gold)} gold labels")
    coder = OutcomeCoder(classes, abstain_label)
    slots = coder.slots(gold, predicted)
    return _scored(_tallies_by_key(slots, keys, coder), coder)


@dataclass(frozen=True)
class Panel:
    """Everything a scores panel shows: overall, one breakdown per slice field."""

    overall: MetricSummary
    breakdowns: dict[str, dict[Hashable, MetricSummary]]

    @property
    def confusion(self) -> Confusion:
        """The overall confusion counts."""
        return self.overall.confusion


def panel_from_rows(
    rows: Iterable[tuple[str, str, Mapping[str, str | None]]],
    classes: Sequence[str],
    abstain_label: str | None = None,
    slice_fields: Sequence[str] = (),
) -> Panel:
    """Recompute a whole panel from (gold, outcome, slice values) rows in one pass.

    This is the batch twin of LiveMetrics: same counting, from scratch (e.g. from the
    database after a restart). Outcomes may be API_ERROR or MISSING.
    """
    rows = rows if isinstance(rows, list) else list(rows)
    gold, outcomes, slice_rows = (list(map(itemgetter(i), rows)) for i in range(3))
    coder = OutcomeCoder(classes, abstain_label)
    slots = coder.slots(gold, outcomes)
    overall = summarise_slot_counts(np.bincount(slots, minlength=coder.slot_count), coder)
    breakdowns = {}
    for field in slice_fields:
        keys = [values.get(field) for values in slice_rows]
        breakdowns[field] = _scored(_tallies_by_key(slots, keys, coder), coder)
    return Panel(overall, breakdowns)


def _scored(tallies: dict[Hashable, np.ndarray], coder: OutcomeCoder) -> dict[Hashable, MetricSummary]:
    """A summary per key, every tally scored at once."""
    if not tallies:
        return {}
    return dict(zip(tallies, summarise_slot_tallies(np.stack(list(tallies.values())), coder)))
