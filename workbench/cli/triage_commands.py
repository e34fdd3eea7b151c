"""`workbench triage ...`: triage as a team from the command line.

assign      hand a run's answers (any filter) to annotators, a share to two or more
queue       what is in my queue, what is left
label       label one answer from the shell
import      labels from a CSV/JSONL file (a spreadsheet, Label Studio, Argilla)
export      every label of a run, to a file
agreement   how far the annotators agree (--json)
adjudicate  the answers people disagree on; decide one
history     every change to a claim's labels
categories  the failure categories, their slugs and keys
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from workbench.cli import UserError, current_annotator, shared_options
from workbench.cli.opening import open_store
from workbench.cli.triage_lookup import category_ids, verdict_run
from workbench.render.console import output_console
from workbench.words import counted

console = output_console()


@click.group("triage")
@shared_options
def triage() -> None:
    """Triage as a team: assign answers, label, measure agreement, adjudicate."""


@triage.command("assign")
@click.option(
    "--where",
    "filter_text",
    required=True,
    metavar="FILTER",
    help="Which answers: a filter naming a run, e.g. 'run:NAME wrong' or 'run:NAME verdict:Supported"
    " label:Refuted' (a confusion cell).",
)
@click.option("--annotators", required=True, metavar="A,B,...", help="Who labels them (comma-separated).")
@click.option(
    "--overlap",
    type=float,
    default=0.0,
    show_default=True,
    help="The share of the answers labelled by --per-item people (what agreement is measured on).",
)
@click.option(
    "--per-item", type=click.IntRange(2), default=2, show_default=True, help="How many people label a shared answer."
)
@click.option("--seed", type=int, help="Shuffle seed (default: drawn, and recorded with the round).")
@click.option(
    "--open",
    "open_review",
    is_flag=True,
    help="Not blind: annotators see each other's labels before they have labelled an answer.",
)
@click.option("--run", "run_ref", help="The run whose answers are handed out (default: the first the filter names).")
@shared_options
def assign_command(filter_text, annotators, overlap, per_item, seed, open_review, run_ref) -> None:
    """Hand out a run's answers: each to the least loaded annotator, a share to several.

    Blind by default: in the TUI an annotator sees the others' labels of an answer only
    after marking it done. Running it again hands out only answers nobody has yet.
    """
    from workbench.render.display import literal, printable
    from workbench.triage.assign import AssignRequest, assign
    from workbench.triage.people import parse_annotators

    names = parse_annotators(annotators)
    store = open_store()
    try:
        result = assign(
            store,
            AssignRequest(filter_text, names, overlap, per_item, seed, not open_review, run_ref, current_annotator()),
        )
    finally:
        store.close()
    line = literal(f"run {result.run.name}: {result.matched:,} answers match")
    if result.without_answer:
        line.append(f" ({result.without_answer:,} matching claims have no answer from the run and are left out)")
    if result.already:
        line.append(f"; {result.already:,} were assigned before and stay as they were")
    console.print(line)
    if result.round is None:
        console.print("nothing new to assign", markup=False)
        return
    given = ", ".join(f"{printable(name)} {count:,}" for name, count in result.given.items())
    console.print(
        f"round {result.round.id} (seed {result.round.seed}, {'blind' if result.round.blind else 'open'}):"
        f" {given}; {result.shared:,} answers to {per_item} people",
        markup=False,
    )


@triage.command("queue")
@click.argument("run_ref", metavar="RUN")
@click.option("--all", "show_all", is_flag=True, help="Done items too.")
@click.option("--limit", type=click.IntRange(1), default=50, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@shared_options
def queue_command(run_ref, show_all, limit, as_json) -> None:
    """Your queue in RUN (--annotator NAME for someone else's): what is left, in order."""
    from workbench.render.display import literal

    annotator = current_annotator()
    store = open_store()
    try:
        run = verdict_run(store, run_ref)
        progress = store.assignments.progress(run.id, annotator)
        items = store.assignments.queue(run.id, annotator, limit=limit, only_left=not show_all)
        references = {item.claim_id: store.claims.reference(item.claim_id) for item in items}
    finally:
        store.close()
    if as_json:
        click.echo(
            json.dumps(
                {
                    "run": run.name,
                    "annotator": annotator,
                    "assigned": progress.assigned,
                    "done": progress.done,
                    "left": progress.left,
                    "items": [
                        {
                            "position": i.position,
                            "claim_id": i.claim_id,
                            "claim": f"{references[i.claim_id][2]}:{references[i.claim_id][0]}",
                            "done": i.done,
                            "blind": i.blind,
                        }
                        for i in items
                    ],
                },
                indent=2,
                ensure_ascii=False,
            )
        )
        return
    heading = literal(f"{annotator} in {run.name}: ", "bold")
    heading.append(f"{progress.assigned:,} assigned, {progress.done:,} done, {progress.left:,} left")
    console.print(heading)
    if not progress.assigned:
        console.print(
            "nothing assigned to you in this run (`workbench triage assign`); the TUI's triage screen walks"
            " the run's wrong answers",
            markup=False,
        )
    if items:
        from workbench.render.triage_queue import queue_listing

        console.print(queue_listing(items, references))


@triage.command("label")
@click.argument("run_ref", metavar="RUN")
@click.argument("claim_ref", metavar="CLAIM")
@click.option(
    "--categories", default="", metavar="A;B", help="Category slugs or names, ';'-separated (empty: none fits)."
)
@click.option("--note", help="A note on the answer.")
@click.option("--not-done", is_flag=True, help="Keep the label in progress (not marked done).")
@shared_options
def label_command(run_ref, claim_ref, categories, note, not_done) -> None:
    """Label RUN's answer to CLAIM as you (--annotator): its categories, a note, done."""
    from store import ImportedLabel
    from workbench.triage.answers import wrong_answer

    annotator = current_annotator()
    store = open_store()
    try:
        run = verdict_run(store, run_ref)
        claim_id = store.claims.resolve(claim_ref)
        if claim_id is None:
            raise UserError(f"no claim {claim_ref!r} (use the id, or DATASET:EXTERNAL_ID)")
        prediction_id = wrong_answer(store, run, claim_id, claim_ref)
        ids = category_ids(store, categories)
        counts = store.triage.import_labels(
            [ImportedLabel(prediction_id, annotator, ids, note, not not_done)], by=annotator, source="cli"
        )
    finally:
        store.close()
    console.print("unchanged" if counts.unchanged else "labelled", markup=False)


@triage.command("import")
@click.argument("path", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--run", "run_ref", help="The run whose answers the labels are of (when the file has no run column).")
@click.option("--dry-run", is_flag=True, help="Check every row, write nothing.")
@shared_options
def import_command(path, run_ref, dry_run) -> None:
    """Import labels from CSV/TSV or JSONL (columns: claim, annotator, categories, note, run).

    Every row is checked first; a claim, run or category that does not exist refuses the
    file with each such row, and nothing is written. The same file again changes nothing.
    Rows without an annotator column are labelled as --annotator.
    """
    from workbench.triage.labels_file import import_labels_file

    annotator = current_annotator()
    store = open_store()
    try:
        result = import_labels_file(store, path, run_ref, annotator, by=annotator, dry_run=dry_run)
    finally:
        store.close()
    if dry_run:
        console.print(f"{path}: {counted(result.rows, 'label')}, all good (nothing written)", markup=False)
        return
    c = result.counts
    console.print(
        f"{path}: {counted(result.rows, 'label')}: {c.added:,} new, {c.changed:,} changed, {c.unchanged:,} as they were",
        markup=False,
    )


@triage.command("export")
@click.argument("run_ref", metavar="RUN")
@click.option("--format", "format_", type=click.Choice(["csv", "jsonl"]), default="csv", show_default=True)
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False), help="File (default: stdout).")
@shared_options
def export_command(run_ref, format_, output) -> None:
    """Every label of RUN's answers (each annotator's), as `triage import` reads them."""
    from workbench.triage.labels_file import export_rows, write_labels

    store = open_store()
    try:
        rows = export_rows(store, verdict_run(store, run_ref).id)
    finally:
        store.close()
    text = write_labels(rows, format_)
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as error:
        raise UserError(f"cannot write {output}: {error.strerror or error}") from None
    console.print(f"wrote {counted(len(rows), 'label')} to {output}", markup=False)


@triage.command("agreement")
@click.argument("run_ref", metavar="RUN")
@click.option(
    "--resamples",
    type=click.IntRange(0),
    default=1000,
    show_default=True,
    help="Bootstrap resamples for the 95% intervals (0: none).",
)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON (undefined figures null, with the reason).")
@shared_options
def agreement_command(run_ref, resamples, seed, as_json) -> None:
    """Agreement of RUN's annotators: per category and over whole sets (Cohen's or Fleiss'
    kappa, Krippendorff's alpha, MASI alpha, exact agreement), per pair, the confusion of
    two annotators' categories, per-annotator counts and progress."""
    from workbench.render.triage import agreement_dict, agreement_view
    from workbench.triage.agreement import run_agreement

    store = open_store()
    try:
        found = run_agreement(store, run_ref, resamples, seed)
    finally:
        store.close()
    if as_json:
        click.echo(json.dumps(agreement_dict(found), indent=2, ensure_ascii=False))
        return
    console.print(agreement_view(found))


@triage.command("adjudicate")
@click.argument("run_ref", metavar="RUN")
@click.argument("claim_ref", metavar="CLAIM", required=False)
@click.option("--categories", metavar="A;B", help="The final categories (';'-separated; empty: none fits).")
@click.option("--note", help="Why.")
@click.option("--over", type=int, metavar="N", help="Replace decision N (as `adjudicate RUN` shows it).")
@click.option("--all", "show_all", is_flag=True, help="List decided answers too.")
@click.option("--json", "as_json", is_flag=True, help="Print the queue as JSON.")
@shared_options
def adjudicate_command(run_ref, claim_ref, categories, note, over, show_all, as_json) -> None:
    """Without CLAIM: the answers people labelled differently, every label side by side.
    With CLAIM and --categories: record the final categories as you (--annotator).

    An answer someone already decided is not decided again unless you pass --over N with
    the decision you have seen: two adjudicators never overwrite each other unawares.
    """
    from workbench.cli.triage_adjudicate import decide, show_queue

    if claim_ref is None:
        show_queue(run_ref, show_all, as_json, console)
        return
    if categories is None:
        raise UserError("say the final categories: --categories 'knowledge-error;flawed-reasoning' (or '' for none)")
    decide(run_ref, claim_ref, categories, note, over, current_annotator(), console)


@triage.command("history")
@click.argument("claim_ref", metavar="CLAIM")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@shared_options
def history_command(claim_ref, as_json) -> None:
    """Every change to CLAIM's labels: triage, notes, scores, flags, decisions (who, when, old, new)."""
    from workbench.render.triage_items import history_dicts, history_table

    store = open_store()
    try:
        claim_id = store.claims.resolve(claim_ref)
        if claim_id is None:
            raise UserError(f"no claim {claim_ref!r} (use the id, or DATASET:EXTERNAL_ID)")
        entries = store.triage.history(claim_id)
    finally:
        store.close()
    if as_json:
        click.echo(json.dumps(history_dicts(entries), indent=2, ensure_ascii=False))
        return
    console.print(history_table(entries))


@triage.command("categories")
@shared_options
def categories_command() -> None:
    """The failure categories: key, slug (for files and filters), name."""
    from workbench.render.display import literal

    store = open_store()
    try:
        categories = store.annotations.categories()
    finally:
        store.close()
    for category in categories:
        line = literal(f"{category.key or ' '}  {category.slug:<28} ")
        line.append_text(literal(category.name, "bold"))
        console.print(line)
