"""Dates as ClaimReview data writes them: ISO days and date-times (any time zone), RFC 2822
(HTTP and feeds), and the spellings fact-checkers' pages use ("October 3, 2025",
"3 de octubre de 2025"), all read by workbench.dates.

Stored as the day in UTC (YYYY-MM-DD): a review published 2025-10-01T01:30+05:00 was
published on 2025-09-30 UTC, which is what a before/after cutoff compares. A numeric
03/10/2025 is read only when one of the two numbers cannot be a month: which of day and
month comes first differs by country, and the import does not guess.
"""

from __future__ import annotations

import datetime as dt
import re

from workbench.dates import utc_day
from workbench.importers.values import Where, absent

_SLASHED = re.compile(r"^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$")


def review_day(value, where: Where, field: str) -> str | None:
    """The UTC day of a date or date-time; a warning and None when it cannot be read."""
    if absent(value):
        return None
    if isinstance(value, dict):  # JSON-LD {"@value": "...", "@type": "Date"}
        value = value.get("@value")
    if isinstance(value, list):
        value = value[0] if value else None
    if absent(value) or isinstance(value, (bool, dict, list)):
        if not absent(value):
            where.warn(field, f"{value!r} is not a date (kept without a date)", "unreadable date")
        return None
    raw = str(value).strip()
    ambiguous = _ambiguous(raw)
    found = None if ambiguous else _slashed(raw) or utc_day(raw)
    if found is None:
        shown = raw if len(raw) <= 40 else raw[:39] + "…"
        reason = (
            "is ambiguous (day and month could be either way)" if ambiguous else "is not a date this import can read"
        )
        where.warn(field, f"{shown!r} {reason} (kept without a date)", "unreadable date")
    return found


def _slashed(raw: str) -> str | None:
    """03/10/2025 with one number that cannot be a month, as the day it is; else None."""
    found = _SLASHED.match(raw)
    if not found:
        return None
    first, second, year = (int(part) for part in found.groups())
    day, month = (first, second) if first == second or first > 12 else (second, first)
    try:
        return dt.date(year, month, day).isoformat()
    except ValueError:
        return None


def _ambiguous(raw: str) -> bool:
    found = _SLASHED.match(raw)
    return (
        bool(found)
        and int(found.group(1)) != int(found.group(2))
        and all(int(part) <= 12 for part in found.groups()[:2])
    )


__all__ = ["review_day"]
