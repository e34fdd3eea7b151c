"""The date step: claims reviewed (or made) inside a window, such as after a model's cutoff.

    --after 2025-09-30       later than that day (2025-10-01 on)
    --after 2025-09          later than that month
    --after-cutoff gpt-4.1   later than the model's knowledge cutoff (several: the newest)
    --before 2026-01-01      earlier than that day (a month: than its first day)

The review date is the day the fact-check was published, what decides whether a model
could have read it; `--date-of claim` uses the day the claim was made instead. A claim
without that date is removed: nothing shows it falls inside the window.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from store import CurationRow
from workbench.curation import CurationError
from workbench.cutoffs import CutoffError, find_cutoff, first_day_after, split_date, unknown_model_message


@dataclass(frozen=True)
class Window:
    """Days from `start` (inclusive) to `end` (exclusive); either may be open."""

    start: str | None = None
    end: str | None = None
    date_of: str = "review"
    why: str = ""
    """How the window was asked for, for the funnel ("after the cutoff of gpt-4.1 (2024-06)")."""

    def settings(self) -> dict:
        return {"start": self.start, "end": self.end, "date_of": self.date_of, "why": self.why}


def window(
    after: str | None = None, before: str | None = None, after_cutoff: list[str] = (), date_of: str = "review"
) -> Window:
    """The window the options ask for; CurationError for a date or model that cannot be read."""
    if date_of not in ("review", "claim"):
        raise CurationError(f"--date-of takes review or claim, not {date_of!r}")
    starts, why = [], []
    if after:
        starts.append(_after(after))
        why.append(f"after {after}")
    for model in after_cutoff:
        day, text = _after_cutoff(model)
        starts.append(day)
        why.append(text)
    end = _before(before) if before else None
    if before:
        why.append(f"before {before}")
    start = max(starts) if starts else None
    if start and end and start >= end:
        raise CurationError(f"the window is empty: from {start} to before {end}")
    if start is None and end is None:
        raise CurationError("a date window needs --after, --before or --after-cutoff")
    return Window(start, end, date_of, ", ".join(why))


def _after(text: str) -> str:
    try:
        return first_day_after(text)
    except CutoffError:
        raise CurationError(f"--after {text!r}: a day (2025-09-30), month (2025-09) or year") from None


def _before(text: str) -> str:
    try:
        first_day_after(text)  # checks it
    except CutoffError:
        raise CurationError(f"--before {text!r}: a day (2026-01-01), month (2026-01) or year") from None
    parts = text.strip().split("-")
    return date(
        int(parts[0]), int(parts[1]) if len(parts) > 1 else 1, int(parts[2]) if len(parts) > 2 else 1
    ).isoformat()


def _after_cutoff(model: str) -> tuple[str, str]:
    found = find_cutoff(model)
    if found is not None:
        return found.first_day_after, f"after {found.model}'s cutoff {found.cutoff}"
    try:
        return split_date(model), f"after {model}"
    except CutoffError:
        raise CurationError("--after-cutoff " + unknown_model_message(model)) from None


def outside(rows: list[CurationRow], chosen: Window) -> dict[int, str]:
    """Claim id -> why, for the claims the window removes."""
    removed = {}
    for row in rows:
        day = (row.review_date if chosen.date_of == "review" else row.claim_date) or ""
        day = day[:10]
        if not day:
            removed[row.id] = f"no {chosen.date_of} date, so not shown to lie inside the window"
        elif chosen.start and day < chosen.start:
            removed[row.id] = f"{chosen.date_of} date {day} is before the window (from {chosen.start})"
        elif chosen.end and day >= chosen.end:
            removed[row.id] = f"{chosen.date_of} date {day} is after the window (before {chosen.end})"
    return removed


__all__ = ["Window", "outside", "window"]
