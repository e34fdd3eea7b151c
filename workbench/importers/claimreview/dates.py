"""Dates as ClaimReview data writes them: ISO days and date-times (any time zone), RFC 2822
(HTTP and feeds), and the spellings fact-checkers' pages use ("October 3, 2025").

Stored as the day in UTC (YYYY-MM-DD): a review published 2025-10-01T01:30+05:00 was
published on 2025-09-30 UTC, which is what a before/after cutoff compares.
"""

from __future__ import annotations

import datetime as dt
import re
from email.utils import parsedate_to_datetime

from workbench.importers.values import Where, absent

_TEXT_FORMATS = ("%B %d, %Y", "%b %d, %Y", "%d %B %Y", "%d %b %Y", "%B %d %Y", "%b %d %Y", "%Y/%m/%d",
                 "%Y.%m.%d", "%d %B, %Y", "%b. %d, %Y")
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
    found = _read(raw)
    if found is None:
        shown = raw if len(raw) <= 40 else raw[:39] + "…"
        reason = "is ambiguous (day and month could be either way)" if _ambiguous(raw) else "is not a date this import can read"
        where.warn(field, f"{shown!r} {reason} (kept without a date)", "unreadable date")
    return found


def _read(raw: str) -> str | None:
    for reader in (_iso, _rfc2822, _spelled, _slashed):
        found = reader(raw)
        if found is not None:
            return found
    return None


def _utc_day(moment: dt.datetime) -> str:
    if moment.tzinfo is not None:
        moment = moment.astimezone(dt.timezone.utc)
    return moment.date().isoformat()


def _iso(raw: str) -> str | None:
    try:
        if len(raw) == 10:
            return dt.date.fromisoformat(raw).isoformat()
        return _utc_day(dt.datetime.fromisoformat(raw.replace("Z", "+00:00").replace(" ", "T", 1)))
    except ValueError:
        return None


def _rfc2822(raw: str) -> str | None:
    if "," not in raw and ":" not in raw:
        return None
    try:
        return _utc_day(parsedate_to_datetime(raw))
    except (TypeError, ValueError, IndexError):
        return None


def _spelled(raw: str) -> str | None:
    cleaned = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", raw.replace("Sept.", "Sep.").replace("Sept ", "Sep "))
    for fmt in _TEXT_FORMATS:
        try:
            return dt.datetime.strptime(cleaned, fmt).date().isoformat()
        except ValueError:
            continue
    return None


def _slashed(raw: str) -> str | None:
    """03/10/2025: read only when one of the two numbers cannot be a month."""
    found = _SLASHED.match(raw)
    if not found:
        return None
    first, second, year = (int(part) for part in found.groups())
    if first == second or first > 12 >= second:
        day, month = first, second
    elif second > 12 >= first:
        month, day = first, second
    else:
        return None
    try:
        return dt.date(year, month, day).isoformat()
    except ValueError:
        return None


def _ambiguous(raw: str) -> bool:
    found = _SLASHED.match(raw)
    return bool(found) and int(found.group(1)) != int(found.group(2)) and all(int(part) <= 12 for part in found.groups()[:2])


__all__ = ["review_day"]
