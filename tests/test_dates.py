"""One date reader for ClaimReview imports and search results (workbench.dates): the cases
each caller read before, the ones they disagreed on, and dates in Spanish and German."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.claimreview_files import claim_review, write_json
from workbench.dates import utc_day
from workbench.importers import ImportRequest, run_import

NOW = dt.datetime(2025, 3, 10, 12, 0, tzinfo=dt.UTC)

BOTH_READ = [
    # What search results carry (Google's spellings, relative dates, ISO date-times).
    ("Mar 4, 2024", "2024-03-04"),
    ("4 March 2024", "2024-03-04"),
    ("2024-06-01T10:00:00Z", "2024-06-01"),
    ("3 days ago", "2025-03-07"),
    ("an hour ago", "2025-03-10"),
    ("2 weeks ago", "2025-02-24"),
    # What ClaimReview data carries (ISO days and date-times, RFC 2822, fact-checkers' spellings).
    ("2025-10-03", "2025-10-03"),
    ("2025-10-01T01:30:00+05:00", "2025-09-30"),
    ("Fri, 03 Oct 2025 22:00:00 -0700", "2025-10-04"),
    ("October 3, 2025", "2025-10-03"),
    ("Sept. 3, 2025", "2025-09-03"),
    ("3rd October 2025", "2025-10-03"),
    ("2025/10/03", "2025-10-03"),
    # Where the two readers disagreed, and what neither read.
    ("Friday, October 3, 2025", "2025-10-03"),
    ("2025-10-03T23:30:00-05:00", "2025-10-04"),
    ("3 de octubre de 2025", "2025-10-03"),
    ("3. Oktober 2025", "2025-10-03"),
]
NOT_A_DAY = ["Feb 30, 2024", "2024-02-30", "sometime", "soon", "October 2025", "", "   "]


@pytest.mark.parametrize("text, day", BOTH_READ)
def test_a_date_reads_as_its_utc_day(text, day):
    assert utc_day(text, NOW) == day


@pytest.mark.parametrize("text", NOT_A_DAY)
def test_text_naming_no_whole_day_reads_as_none(text):
    assert utc_day(text, NOW) is None


def test_an_hour_ago_just_after_midnight_is_the_day_before():
    # The old search reader counted hours as no days at all.
    assert utc_day("an hour ago", dt.datetime(2025, 3, 10, 0, 30, tzinfo=dt.UTC)) == "2025-03-09"


SPANISH = [
    "enero",
    "febrero",
    "marzo",
    "abril",
    "mayo",
    "junio",
    "julio",
    "agosto",
    "septiembre",
    "octubre",
    "noviembre",
    "diciembre",
]
GERMAN = [
    "Januar",
    "Februar",
    "März",
    "April",
    "Mai",
    "Juni",
    "Juli",
    "August",
    "September",
    "Oktober",
    "November",
    "Dezember",
]
ENGLISH = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
days = st.dates(min_value=dt.date(1990, 1, 1), max_value=dt.date(2035, 12, 31))


@settings(max_examples=60, deadline=None)
@given(day=days, style=st.sampled_from(["en", "en-day-first", "es", "de", "iso"]))
def test_any_day_spelled_in_a_supported_language_reads_back(day, style):
    spelled = {
        "en": f"{ENGLISH[day.month - 1]} {day.day}, {day.year}",
        "en-day-first": f"{day.day} {ENGLISH[day.month - 1]} {day.year}",
        "es": f"{day.day} de {SPANISH[day.month - 1]} de {day.year}",
        "de": f"{day.day}. {GERMAN[day.month - 1]} {day.year}",
        "iso": day.isoformat(),
    }[style]
    assert utc_day(spelled, NOW) == day.isoformat()


@settings(max_examples=60, deadline=None)
@given(
    moment=st.datetimes(min_value=dt.datetime(1990, 1, 1), max_value=dt.datetime(2035, 12, 31)),
    offset_minutes=st.integers(-12 * 60, 14 * 60).map(lambda m: m - m % 15),
)
def test_a_date_time_with_a_zone_is_the_utc_day_it_falls_on(moment, offset_minutes):
    zone = dt.timezone(dt.timedelta(minutes=offset_minutes))
    local = moment.replace(tzinfo=zone, microsecond=0)
    assert utc_day(local.isoformat(), NOW) == local.astimezone(dt.UTC).date().isoformat()


def test_the_claimreview_import_reads_the_same_days(store, tmp_path):
    spellings = {
        "a": "Friday, October 3, 2025",
        "b": "2025-10-03T23:30:00-05:00",
        "c": "3 de octubre de 2025",
        "d": "3. Oktober 2025",
        "e": "Mar 4, 2024",
        "f": "04/10/2025",
    }
    reviews = [
        claim_review(f"Claim {key}.", "False", f"https://a.example/{key}", day=day) for key, day in spellings.items()
    ]
    report = run_import(store, ImportRequest(write_json(tmp_path / "days.json", reviews)))
    found = {
        c.external_id.rsplit("/", 1)[1]: c.reference_time
        for c in map(store.claims.get, store.claims.ids("dataset:days"))
    }
    assert found == {key: utc_day(day) for key, day in spellings.items() if key != "f"} | {"f": None}
    assert found["b"] == "2025-10-04" and found["c"] == found["d"] == "2025-10-03"
    assert [w.message for w in report.warnings.items] == [
        "'04/10/2025' is ambiguous (day and month could be either way) (kept without a date)"
    ]
