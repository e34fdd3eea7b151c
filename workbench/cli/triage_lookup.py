"""What the triage commands look up from what a user typed: a run, categories."""

from __future__ import annotations

from store.names import no_run
from workbench.cli import UserError


def verdict_run(store, reference: str):
    """The fact-checking run a user named; UserError otherwise."""
    run = store.runs.get(reference)
    if run is None or run.kind != "verdict":
        raise UserError(no_run(store.runs, reference, fact_checking=True, listing=False))
    return run


def category_ids(store, text: str) -> frozenset[int]:
    """Category ids from 'slug;Name;...' (UserError naming the unknown ones)."""
    known = {}
    for category in store.annotations.categories():
        known[category.slug] = known[category.name.lower()] = category.id
    found, unknown = set(), []
    for name in (part.strip() for part in text.split(";")):
        if name:
            (found.add(known[name.lower()]) if name.lower() in known else unknown.append(name))
    if unknown:
        raise UserError(
            f"unknown categor{'y' if len(unknown) == 1 else 'ies'} {', '.join(map(repr, unknown))}"
            "; `workbench triage categories` lists them"
        )
    return frozenset(found)
