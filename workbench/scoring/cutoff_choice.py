"""--cutoff as typed: a date, a model's name or auto for every run, or RUN=DATE per run,
and why auto found no date for a run (it is then scored without the cutoff split)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from store import Run
from workbench.errors import WorkbenchError
from workbench.scoring.fields import FieldError, check_cutoff


class ScoringError(WorkbenchError, ValueError):
    """A run, field, date or pairing that cannot be scored; the message names it (raised
    here first: a --cutoff typed wrong; workbench.scoring.runs is where callers import it)."""


AUTO_CUTOFF = "auto"
"""--cutoff auto: each run's own model's cutoff, from the table `workbench cutoffs` lists."""


def parse_cutoffs(values: Sequence[str]) -> Callable[[Run], str | None]:
    """--cutoff values: one DATE (or model name, or auto) for every run, or RUN=DATE per run
    (the last one wins). A model name is the day after its knowledge cutoff; auto is each
    run's own model's. Returns a lookup from run to its cutoff date (None when it has none)."""
    chosen_for = chosen_cutoffs(values)

    def cutoff_for(run: Run) -> str | None:
        chosen = chosen_for(run)
        return _own_cutoff(run) if chosen == AUTO_CUTOFF else chosen

    return cutoff_for


def chosen_cutoffs(values: Sequence[str]) -> Callable[[Run], str | None]:
    """Each run's --cutoff as given: a date, auto, or None."""
    default: str | None = None
    per_run: dict[str, str] = {}
    for value in values:
        name, equals, day = value.rpartition("=")
        try:
            if equals:
                per_run[name.strip()] = day.strip() if day.strip() == AUTO_CUTOFF else check_cutoff(day)
            else:
                default = value.strip() if value.strip() == AUTO_CUTOFF else check_cutoff(value)
        except FieldError as error:
            raise ScoringError(str(error)) from None
    return lambda run: per_run.get(run.name, per_run.get(str(run.id), default))


def _own_cutoff(run: Run) -> str | None:
    from workbench.cutoffs import find_cutoff

    found = find_cutoff(run.model)
    return None if found is None else found.first_day_after


def no_own_cutoff(run: Run) -> str:
    """Why --cutoff auto found no date for a run (an imported run's model is a file's name)."""
    origin = "an imported run's model" if run.kind == "verdict" and run.model.startswith("imported") else "its model"
    return (
        f"run {run.name} has no cutoff: {origin} {run.model} has no knowledge cutoff the workbench knows"
        f" (`workbench cutoffs` lists them); scored without the before/after split (--cutoff {run.name}=DATE gives one)"
    )
