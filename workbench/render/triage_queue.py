"""An annotator's triage queue (`workbench triage queue`), laid out by the listing: the
position and claim id never cut, the claim's dataset:id whole on its first line (a review
URL is an id too), "done ✓" last."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from workbench.render.display import literal
from workbench.render.listing import Column, Listing


def queue_listing(items: Sequence, references: dict[int, tuple]) -> Listing:
    """A row per queued answer: its place in the queue, claim id, dataset:external id, done."""
    listing = Listing(
        Column("#", "id", justify="right"),
        Column("claim", "id", justify="right"),
        Column("dataset:id", "name"),
        Column("", "id"),  # done or not is what a queue is read for: never dropped
    )
    for item in items:
        external, _, dataset = references[item.claim_id]
        done = Text("done ✓", style="green") if item.done else Text("")
        listing.add_row(f"{item.position + 1}", f"{item.claim_id}", literal(f"{dataset}:{external}"), done)
    return listing
