"""A dataset's curation funnel and its fetched articles, for the CLI and the TUI (every name,
setting and cause shown literally)."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from workbench.render.display import literal
from workbench.render.listing import Column, FirstThatKeeps, Listing

CURATED_FILTER = "-flagged:curated-out"


def dataset_filter(dataset: str) -> str:
    """The filter term of a dataset's claims (quoted when its name needs it)."""
    if any(ch.isspace() or ch in '"\\' for ch in dataset):
        return 'dataset:"' + dataset.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return f"dataset:{dataset}"


def curated_filter(dataset: str) -> str:
    """The filter of a dataset's curated claims (what the funnel keeps)."""
    return f"{dataset_filter(dataset)} {CURATED_FILTER}"


def funnel_table(funnel, width: int = 80) -> Group:
    """One row per step: what it was asked, the claims going in, removed, left, a note (laid
    out by the listing at the width it is drawn in; `width` is kept for older callers): what
    a step was asked gets the room first where the screen allows."""
    layouts = (_funnel_listing(funnel, readable) for readable in (30, 14))
    kept = literal(f"kept {funnel.kept:,} of {funnel.total:,} claims: ", "bold")
    kept.append_text(literal(curated_filter(funnel.dataset)))
    return Group(literal(f"curation of {funnel.dataset}", "bold"), FirstThatKeeps(*layouts, priority=5), kept)


def _funnel_listing(funnel, readable: int) -> Listing:
    table = Listing(
        Column("step", "name"),
        Column("asked", "label", priority=10, readable=readable),  # "not run" says more than a count
        Column("in", "number", priority=8, justify="right"),
        Column("out", "number", priority=9, justify="right"),
        Column("left", "number", priority=9, justify="right"),
        Column("note", "label", priority=5, readable=12),
    )
    table.add_row("imported", Text(""), "", "", f"{funnel.total:,}", Text(""))
    for row in funnel.rows:
        style = "" if row.ran else "dim"
        table.add_row(
            Text(row.step, style=style),
            literal(row.settings, style),
            f"{row.entering:,}" if row.ran else "",
            f"{row.removed:,}" if row.ran or row.removed else "",
            f"{row.left:,}" if row.ran else "",
            literal(row.note, style),
        )
    return table


def funnel_dict(funnel) -> dict:
    return {
        "dataset": funnel.dataset,
        "claims": funnel.total,
        "kept": funnel.kept,
        "filter": curated_filter(funnel.dataset),
        "steps": [
            {
                "step": r.step,
                "ran": r.ran,
                "asked": r.settings,
                "in": r.entering,
                "removed": r.removed,
                "left": r.left,
                "note": r.note,
                "ran_at": r.ran_at,
            }
            for r in funnel.rows
        ],
    }


def articles_table(counts, failures: list) -> Group:
    """How the claims' articles stand, and the first failures with their causes."""
    line = literal(
        f"{counts.claims:,} claims, {counts.with_url:,} with an article address: {counts.fetched:,}"
        f" fetched, {counts.failed:,} failed, {counts.missing:,} not tried yet"
    )
    parts: list = [line]
    if counts.causes:
        causes = Listing(Column("cause", "name"), Column("claims", "number", priority=9, justify="right"))
        for cause, count in sorted(counts.causes.items(), key=lambda item: -item[1]):
            causes.add_row(literal(cause), f"{count:,}")
        parts.append(causes)
    if failures:
        failed = Listing(
            Column("claim", "id", justify="right"),
            Column("cause", "name"),
            Column("address and detail", "text", priority=9, readable=20),  # an address folds
        )
        for claim_id, record in failures:
            detail = literal(record.url)
            if record.detail:
                detail.append_text(literal(f" — {record.detail}", "dim"))
            failed.add_row(str(claim_id), literal(record.cause or ""), detail)
        parts.append(failed)
    return Group(*parts)


__all__ = ["CURATED_FILTER", "articles_table", "curated_filter", "dataset_filter", "funnel_dict", "funnel_table"]
