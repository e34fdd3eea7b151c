"""The one date reader of the workbench: the day (YYYY-MM-DD, in UTC) a piece of outside
text names, for ClaimReview review and claim dates and for search results' publication dates.

Machine forms are read by the standard library (ISO 8601 days and date-times in any time
zone, RFC 2822 as HTTP and feeds write it); everything people write ("Friday, October 3,
2025", "3 de octubre de 2025", "3. Oktober 2025", "3 days ago") by dateparser, in the
languages asked for. A date-time with a zone is the UTC day it falls on: a review published
2025-10-03T23:30-05:00 was published on 2025-10-04 UTC, which is what a cutoff compares.
A text naming no whole day ("October 2025", "soon") reads as None.
"""

from __future__ import annotations

import datetime as dt
import functools
from email.utils import parsedate_to_datetime

LANGUAGES = ("en", "es", "de", "fr", "pt", "it", "nl")
"""The languages read when a caller names none: fact-checkers' most common ones."""


def utc_day(text: str | None, now: dt.datetime | None = None, languages: tuple[str, ...] = LANGUAGES) -> str | None:
    """The UTC day `text` names, as YYYY-MM-DD; None when it names no whole day. `now`: the
    moment relative dates ("3 days ago") count back from (default: the present)."""
    if not isinstance(text, str) or not text.strip():
        return None
    text = " ".join(text.split())
    for reader in (_iso, _rfc2822):
        found = reader(text)
        if found is not None:
            return _day(found)
    found = _spelled(text, now, languages)
    return _day(found) if found is not None else None


def _day(moment: dt.date | dt.datetime) -> str:
    if isinstance(moment, dt.datetime):
        if moment.tzinfo is not None:
            moment = moment.astimezone(dt.UTC)
        return moment.date().isoformat()
    return moment.isoformat()


def _iso(text: str) -> dt.date | dt.datetime | None:
    if not text[:4].isdigit():
        return None
    try:
        if len(text) == 10:
            return dt.date.fromisoformat(text)
        return dt.datetime.fromisoformat(text.replace(" ", "T", 1))
    except ValueError:
        return None


def _rfc2822(text: str) -> dt.datetime | None:
    if "," not in text and ":" not in text:
        return None
    try:
        return parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None


def _spelled(text: str, now: dt.datetime | None, languages: tuple[str, ...]) -> dt.datetime | None:
    base = None
    if now is not None:
        base = now.astimezone(dt.UTC).replace(tzinfo=None) if now.tzinfo is not None else now
    return _spelled_once(text, base, languages)


@functools.lru_cache(maxsize=8192)
def _spelled_once(text: str, base: dt.datetime | None, languages: tuple[str, ...]) -> dt.datetime | None:
    """dateparser's reading, remembered: a data set repeats its few hundred days thousands of
    times, and dateparser takes milliseconds a date."""
    try:
        return _parser(base, languages).get_date_data(text).date_obj
    except (ValueError, OverflowError, TypeError):
        return None


@functools.lru_cache(maxsize=16)
def _parser(base: dt.datetime | None, languages: tuple[str, ...]):
    from dateparser.date import DateDataParser  # slow to import (~0.3 s): only for a spelled date

    settings = {
        "REQUIRE_PARTS": ["day", "month", "year"],
        "TIMEZONE": "UTC",
        "TO_TIMEZONE": "UTC",
        "RETURN_AS_TIMEZONE_AWARE": False,
        "PREFER_DATES_FROM": "past",
    }
    if base is not None:  # else relative dates count back from the moment they are read
        settings["RELATIVE_BASE"] = base
    return DateDataParser(languages=list(languages), settings=settings)


__all__ = ["LANGUAGES", "utc_day"]
