"""A search result's date as the leakage guards read it (YYYY-MM-DD), from what a backend
gives: an ISO date, Google's "Mar 4, 2024" / "4 Mar 2024", or a relative "3 days ago"
(counted back from the moment of the search, so a cached result keeps the day it had)."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone

_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_MONTHS = {name: n for n, name in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1)}
_MONTH_FIRST = re.compile(r"\b([A-Za-z]{3})[a-z]*\.?\s+(\d{1,2}),?\s+(\d{4})\b")
_DAY_FIRST = re.compile(r"\b(\d{1,2})\s+([A-Za-z]{3})[a-z]*\.?,?\s+(\d{4})\b")
_AGO = re.compile(r"\b(\d+|an?|one)\s+(minute|min|hour|hr|day|week|month|year)s?\s+ago\b", re.IGNORECASE)
_DAYS_PER = {"minute": 0, "min": 0, "hour": 0, "hr": 0, "day": 1, "week": 7, "month": 30, "year": 365}


def published_day(text: str | None, searched_at: datetime | None = None) -> str | None:
    """The day a result was published, as YYYY-MM-DD; None when the text gives none."""
    if not text or not isinstance(text, str):
        return None
    found = _ISO.search(text)
    if found:
        return _checked(*map(int, found.groups()))
    found = _MONTH_FIRST.search(text)
    if found and found.group(1).lower() in _MONTHS:
        return _checked(int(found.group(3)), _MONTHS[found.group(1).lower()], int(found.group(2)))
    found = _DAY_FIRST.search(text)
    if found and found.group(2).lower() in _MONTHS:
        return _checked(int(found.group(3)), _MONTHS[found.group(2).lower()], int(found.group(1)))
    found = _AGO.search(text)
    if found:
        amount = found.group(1).lower()
        count = 1 if amount in ("a", "an", "one") else int(amount)
        now = searched_at or datetime.now(timezone.utc)
        return (now.date() - timedelta(days=count * _DAYS_PER[found.group(2).lower()])).isoformat()
    return None


def _checked(year: int, month: int, day: int) -> str | None:
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return None
