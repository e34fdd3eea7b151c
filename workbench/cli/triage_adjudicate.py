"""`workbench triage adjudicate`: the queue of disagreements, and one decision.

Kept out of triage_commands so that module stays click and Rich at its top; this one is
imported only when adjudicate runs.
"""

from __future__ import annotations

import json

import click

from workbench.cli import UserError
from workbench.cli.opening import open_store
from workbench.cli.triage_lookup import category_ids, verdict_run
from workbench.words import counted


def show_queue(run_ref: str, show_all: bool, as_json: bool, console) -> None:
    """Every answer people labelled differently (with --all, decided ones too)."""
    from workbench.render.display import literal
    from workbench.render.triage_items import item_line
    from workbench.triage.final import disagreements

    store = open_store()
    try:
        run = verdict_run(store, run_ref)
        items = disagreements(store, run.id, include_decided=show_all)
        names = {c.id: c.name for c in store.annotations.categories()}
        slugs = {c.id: c.slug for c in store.annotations.categories()}
        references = {item.claim_id: store.claims.reference(item.claim_id) for item in items}
    finally:
        store.close()
    if as_json:
        click.echo(
            json.dumps(
                [_item_dict(item, slugs, references[item.claim_id]) for item in items], indent=2, ensure_ascii=False
            )
        )
        return
    waiting = sum(1 for item in items if item.adjudication is None)
    heading = literal(f"{run.name}: ", "bold")
    heading.append(
        f"{counted(waiting, 'answer')} labelled differently {'waits' if waiting == 1 else 'wait'} for a decision"
    )
    console.print(heading)
    for item in items:
        external, _, dataset = references[item.claim_id]
        console.print(item_line(item, names, f"{dataset}:{external}"))
    if items:
        console.print(
            f"decide one: workbench triage adjudicate {run_ref} CLAIM --categories 'SLUG;SLUG' --note WHY", markup=False
        )


def _item_dict(item, slugs: dict[int, str], reference) -> dict:
    external, _, dataset = reference
    decision = item.adjudication
    return {
        "claim_id": item.claim_id,
        "claim": f"{dataset}:{external}",
        "state": item.state,
        "labels": {name: sorted(slugs[i] for i in ids) for name, ids in item.labels.items()},
        "decision": None
        if decision is None
        else {
            "version": decision.version,
            "adjudicator": decision.adjudicator,
            "note": decision.note,
            "categories": sorted(slugs[i] for i in decision.category_ids),
            "decided_at": decision.decided_at,
        },
    }


def decide(
    run_ref: str, claim_ref: str, categories: str, note: str | None, over: int | None, adjudicator: str, console
) -> None:
    """Record the final categories of one answer; refuse to overwrite a decision unseen."""
    from store import AdjudicationConflict
    from workbench.render.display import literal
    from workbench.triage.answers import wrong_answer

    store = open_store()
    try:
        run = verdict_run(store, run_ref)
        claim_id = store.claims.resolve(claim_ref)
        if claim_id is None:
            raise UserError(f"no claim {claim_ref!r} (use the id, or DATASET:EXTERNAL_ID)")
        prediction_id = wrong_answer(store, run, claim_id, claim_ref)
        ids = category_ids(store, categories)
        try:
            decision = store.triage.adjudicate(prediction_id, ids, note, adjudicator, over, source="cli")
        except AdjudicationConflict as conflict:
            current = conflict.current
            names = {c.id: c.name for c in store.annotations.categories()}
            if current is None:
                raise UserError(
                    f"claim {claim_ref!r} has no decision {over} to replace: nobody has decided it"
                    " yet; leave out --over"
                ) from None
            chosen = "; ".join(names[i] for i in sorted(current.category_ids)) or "(none fits)"
            raise UserError(
                f"{current.adjudicator} decided claim {claim_ref!r} on {current.decided_at}"
                f" (decision {current.version}: {chosen}"
                f"{'; ' + current.note if current.note else ''}); to decide again,"
                f" pass --over {current.version}"
            ) from None
    finally:
        store.close()
    line = literal(f"decision {decision.version} on claim {claim_id} by {adjudicator}")
    console.print(line)
