"""Saying that a name is not there: the closest names ("did you mean"), and the names there
are, a long list cut with how many were left out. One place, for datasets, runs, fields and
commands alike (the filter language, the CLI, the domain's errors)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from store.runs import RunStore

LISTED = 8
"""Names a message lists before it says how many more there are."""


def close_names(value: str, names: Sequence[str], n: int = 3) -> list[str]:
    """The names nearest `value` (a typo's likely meaning), best first; [] when none is near."""
    import difflib  # only when something was mistyped

    found = difflib.get_close_matches(value, list(names), n=n)
    if not found:  # a different case ("Demo" for demo) is not a typo difflib sees
        lowered = {name.lower(): name for name in names}
        found = [lowered[m] for m in difflib.get_close_matches(value.lower(), list(lowered), n=n)]
    return found


def did_you_mean(value: str, names: Sequence[str], n: int = 3) -> str:
    """'; did you mean NAME?' for the names nearest `value`, else ''."""
    close = close_names(value, names, n)
    return f"; did you mean {', '.join(close)}?" if close else ""


def listed(names: Sequence[str], limit: int = LISTED) -> str:
    """'a, b, c' or, past `limit` names, 'a, ..., h and 5 more' (a cut list says it is cut)."""
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def no_such(kind: str, value: str, names: Sequence[str], hint: str | None = None) -> str:
    """'no KIND 'value'; did you mean X?' then the names there are, or `hint` instead (e.g.
    "`workbench runs` lists them")."""
    meant = did_you_mean(value, names)
    message, joint = f"no {kind} {value!r}{meant}", " " if meant else "; "  # not "?;"
    if hint is not None:
        return f"{message}{joint}{hint}"
    plural = kind.split()[-1] + "s"
    return f"{message}{joint}{plural}: {listed(names)}" if names else f"{message}; there are no {plural} yet"


def no_run(runs: RunStore, reference: str | int, fact_checking: bool = False, listing: bool = True) -> str:
    """The message for a run name (or id) that names no run: the closest run names, then
    the runs there are (`listing` False: where to see them; `fact_checking`: verdict runs only)."""
    names = [run.name for run in runs.list(kind="verdict" if fact_checking else None)]
    kind = "fact-checking run" if fact_checking else "run"
    return no_such(kind, str(reference), names, None if listing else "`workbench runs` lists them")
