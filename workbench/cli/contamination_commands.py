"""`workbench contamination ...`: find benchmark claims a model already knows.

run      the pipeline: article -> evidence extraction -> matching -> scores -> flags (its
         own module, contamination_run, registered here)
show     one claim: oracle and generated evidence side by side, the pair scores
summary  S (mean claim score) and the share flagged, per model and metric
combine  flag the intersection over models and/or metrics
mark     people's labels: contaminated, or checked and clean
sweep    agreement of the pipeline's flag with those labels for tau in [0, 1]
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from workbench.choices import CONTAMINATION_COMMAND
from workbench.cli import UserError, current_annotator, shared_options
from workbench.cli.contamination_run import run_command
from workbench.cli.opening import open_store, require_dataset
from workbench.render.console import output_console
from workbench.render.display import literal
from workbench.words import counted

console = output_console()


@click.group("contamination")
@shared_options
def contamination() -> None:
    """Find claims a model already knows (contamination), flag them, check the flags."""


contamination.add_command(run_command)  # the pipeline, in contamination_run


@contamination.command("show")
@click.argument("claim_ref", metavar="CLAIM")
@click.option("--model", help="Only this target model.")
@click.option("--metric", help="Only this metric.")
@click.option("--article", is_flag=True, help="Also print the target model's article.")
@click.option("--setting", metavar="claim|claim+image", help="Only the text-only or the with-image probe.")
@shared_options
def show_command(claim_ref: str, model: str | None, metric: str | None, article: bool, setting: str | None) -> None:
    """One claim: oracle and generated evidence side by side, matched pairs aligned (each
    probe, text only and with image, on its own)."""
    from workbench.contamination.probes import split_probe
    from workbench.render.contamination import claim_heading

    store = open_store()
    claim_id = store.claims.resolve(claim_ref)
    if claim_id is None:
        raise UserError(f"no claim {claim_ref!r} (use the id, or DATASET:EXTERNAL_ID)")
    image = _probe_of(setting)
    rows = [
        row
        for row in store.contamination.score_rows(
            _model_name(store, model), _metric_name(metric, setting), claim_id=claim_id
        )
        if image is None or split_probe(row.metric)[1] == image
    ]
    if not rows:
        raise UserError(
            f"claim {claim_ref} has no contamination score"
            + (" for that model/metric" if model or metric else "")
            + f"; run `{CONTAMINATION_COMMAND}` first"
        )
    claim = store.claims.get(claim_id)
    console.print(claim_heading(claim))
    for row in rows:
        _show_row(store, claim, row, article)


def _show_row(store, claim, row, article: bool) -> None:
    from workbench.contamination.flagging import CONTAMINATED, current_tau
    from workbench.contamination.pipeline_evidence import generated_side, oracle_side
    from workbench.contamination.probes import probe_label
    from workbench.render.contamination import article_block, evidence_table, score_line

    tau = current_tau(store, row.target_model, row.metric)
    flagged = claim.id in store.annotations.flagged_claim_ids(CONTAMINATED, row.target_model, row.metric, "pipeline")
    console.print()
    console.print(
        literal(
            f"model {row.target_model} · metric {row.metric} ({probe_label(row.metric)}) · extractor"
            f" {row.extractor_model}"
        ),
        style="bold",
    )
    oracle = oracle_side(store, claim, row.oracle_run_id)
    generated = generated_side(store, claim.id, row.article_run_id, row.generated_run_id)
    console.print(evidence_table(oracle, generated, row))
    console.print(score_line(row, tau, flagged))
    if article and row.article_run_id is not None:
        prediction = store.runs.prediction(row.article_run_id, claim.id)
        console.print(article_block(prediction.raw_output if prediction else None))


@contamination.command("summary")
@click.option("--model", help="Only this target model.")
@click.option("--metric", help="Only this metric (meteor covers meteor+image, the with-image probe, too).")
@click.option("--dataset", help="Only claims of this dataset.")
@click.option("--tau", type=float, help="Count flags at this tau instead of the stored flags' tau.")
@click.option("--by", "by", metavar="FIELD", help="Also per subset of claims: modality, domain, flag:KIND, cutoff, ...")
@click.option("--cutoff", metavar="DATE", help="With --by cutoff: the date that splits the claims.")
@click.option(
    "--resamples",
    type=click.IntRange(0),
    default=1000,
    show_default=True,
    help="Bootstrap resamples of the text-only / with-image test.",
)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@shared_options
def summary_command(model, metric, dataset, tau, by, cutoff, resamples, seed, as_json) -> None:
    """S (the mean claim score over scorable claims) and the share flagged, per model and metric.

    Where a model was probed both ways (--setting claim and claim+image), the two are
    compared over the image claims both scored: S with image minus S text only with a
    paired bootstrap interval and p, and the flags with McNemar's exact test.
    """
    store = open_store()
    claim_ids = None
    if dataset:
        require_dataset(store, dataset)
        claim_ids = set(store.claims.ids(f'dataset:"{dataset}"'))
    from workbench.contamination.overview import contamination_overview
    from workbench.contamination.probes import split_probe
    from workbench.render.contamination import combined_table, probe_table, slices_table, summary_table

    wanted = _metric_name(metric)
    groups = [
        g
        for g in store.contamination.score_groups(_model_name(store, model))
        if wanted is None or g.metric == wanted or split_probe(g.metric)[0] == wanted
    ]
    found = contamination_overview(store, groups, claim_ids, tau, by, cutoff, resamples, seed)
    if as_json:
        click.echo(json.dumps(found.to_dict(), indent=2, ensure_ascii=False))
        return
    if not found.summaries:
        raise UserError(
            "no contamination scores"
            + (" for that model/metric" if model or metric else "")
            + (f" in dataset {dataset!r}" if dataset else "")
            + f"; run `{CONTAMINATION_COMMAND}` first"
        )
    console.print(summary_table(found.summaries))
    if found.probes:
        console.print(probe_table(found.probes))
    if found.by:
        console.print(slices_table(found.by, found.sliced))
    if found.combined:
        console.print(combined_table(found.combined))


@contamination.command("combine")
@click.option("--model", "models", multiple=True, required=True, help="A target model (repeat for several).")
@click.option("--metric", "metrics", multiple=True, required=True, help="A metric (repeat for several).")
@shared_options
def combine_command(models, metrics) -> None:
    """Flag claims that every given model and metric flagged (model "A&B", metric "meteor&embedding")."""
    from workbench.contamination.flagging import combine_flags

    store = open_store()
    change, flags = combine_flags(store, [_model_name(store, m) for m in models], [_metric_name(x) for x in metrics])
    name = f"model {' & '.join(models)}, metric {' & '.join(metrics)}"
    console.print(
        f"{len(flags):,} claims flagged contaminated by every one of {name}"
        f" ({len(change.removed):,} earlier combined flags replaced)",
        markup=False,
    )


@contamination.command("mark")
@click.argument("claim_refs", nargs=-1, required=True, metavar="CLAIM...")
@click.option("--contaminated", "label", flag_value="contaminated", help="A person judged them contaminated.")
@click.option("--clean", "label", flag_value="clean", help="Checked by a person: not contaminated.")
@click.option("--clear", "label", flag_value="clear", help="Take both marks off.")
@click.option("--note", help="Why (stored on the flag).")
@shared_options
def mark_command(claim_refs, label, note) -> None:
    """Record your contamination labels (what `contamination sweep` checks tau against);
    each person's marks are their own (--annotator), and --clear takes off only yours."""
    from store import CHECKED_CLEAN
    from workbench.contamination.flagging import CONTAMINATED

    if label is None:
        raise UserError("say which mark: --contaminated, --clean or --clear")
    who = current_annotator()
    store = open_store()
    ids = _resolve_all(store, claim_refs)
    kind, other = (CONTAMINATED, CHECKED_CLEAN) if label == "contaminated" else (CHECKED_CLEAN, CONTAMINATED)
    store.annotations.unflag(ids, other, who=who)
    if label == "clear":
        store.annotations.unflag(ids, kind, who=who)
        console.print(f"{counted(len(ids), 'claim')} unmarked", markup=False)
        return
    change = store.annotations.flag(ids, kind, note=note, who=who)
    console.print(f"{counted(len(ids), 'claim')} marked {kind} ({len(change.added_ids):,} new)", markup=False)


def _resolve_all(store, refs) -> list[int]:
    ids, unknown = [], []
    for ref in refs:
        claim_id = store.claims.resolve(ref)
        (unknown.append(ref) if claim_id is None else ids.append(claim_id))
    if unknown:
        raise UserError(
            f"no claim {', '.join(map(repr, unknown))} (use the id, or DATASET:EXTERNAL_ID); nothing was marked"
        )
    return list(dict.fromkeys(ids))


@contamination.command("sweep")
@click.option("--model", help="The target model (needed when several have scores).")
@click.option("--metric", help="The metric (needed when several have scores).")
@click.option(
    "--setting",
    metavar="claim|claim+image",
    help="The text-only or the with-image probe (needed when both have scores).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON (every tau).")
@shared_options
def sweep_command(model, metric, setting, as_json) -> None:
    """Agreement of the pipeline's flag (s >= tau) with people's labels, tau from 0 to 1."""
    from workbench.contamination.flagging import pick_group
    from workbench.contamination.sweep import manual_labels, people_agreement, sweep
    from workbench.render.charts import as_text, draw_sweep
    from workbench.render.contamination import people_line, sweep_table, sweep_verdict

    store = open_store()
    group = pick_group(store, _model_name(store, model), _metric_name(metric), image=_probe_of(setting))
    labels = manual_labels(store)
    scores = store.contamination.score_values(group.target_model, group.metric, group.extractor_model)
    if not any(c in scores for c in labels.by_claim):
        raise UserError(
            f"none of the {len(labels.by_claim):,} claims people labelled has a score for"
            f" {group.target_model} / {group.metric}; label scored claims with"
            " `workbench contamination mark CLAIM --contaminated` or `--clean`"
        )
    result = sweep(scores, labels.by_claim)
    people = people_agreement(labels)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "model": group.target_model,
                    "metric": group.metric,
                    **result.to_dict(),
                    "conflicting_labels": labels.conflicting,
                    "people": _people_dict(people),
                },
                indent=2,
                ensure_ascii=False,
            )
        )
        return
    console.print(literal(f"model {group.target_model} · metric {group.metric} · extractor {group.extractor_model}"))
    console.print(sweep_table(result))
    console.print(
        as_text(draw_sweep, result.taus, result.agreement, result.best_tau, width=70, height=14),
        markup=False,
        highlight=False,
    )
    console.print(sweep_verdict(result))
    console.print(people_line(people))
    if labels.conflicting:
        console.print(
            f"{len(labels.conflicting)} claims carry both marks (people disagree) and were left out", markup=False
        )


def _people_dict(found) -> dict:
    """People's agreement on contamination labels for --json."""
    from workbench.render.triage import estimate_dict

    category = found.categories[0] if found.categories else None
    return {
        "unavailable": found.unavailable,
        "compared": found.compared,
        "single": found.single,
        "annotators": [c.annotator for c in found.annotators if c.labelled],
        "kappa_name": found.kappa_name,
        "agreement": estimate_dict(category.observed) if category else None,
        "kappa": estimate_dict(category.kappa) if category else None,
        "alpha": estimate_dict(category.alpha) if category else None,
    }


def _model_name(store, text: str | None) -> str | None:
    """A model as stored: as typed if scores know it, else with a gguf path made absolute
    (as `contamination run` stores it)."""
    from workbench.backends import ModelSpecError, parse_model_spec
    from workbench.runs.run_record import stored_model_text

    if not text or "&" in text:
        return text
    known = {g.target_model for g in store.contamination.score_groups()}
    if text in known:
        return text
    try:
        normal = stored_model_text(parse_model_spec(text))
    except ModelSpecError:
        return text
    return normal if normal in known else text


def _metric_name(text: str | None, setting: str | None = None) -> str | None:
    """A metric as stored: embedding:PATH with the folder made absolute, `+image` kept (or
    added by --setting claim+image)."""
    from workbench.contamination.probes import probe_metric, split_probe

    if not text:
        return text
    base, image = split_probe(text)
    if base.startswith("embedding:"):
        base = "embedding:" + str(Path(base.split(":", 1)[1]).expanduser().resolve())
    if setting is not None:
        image = _probe_of(setting)
    return probe_metric(base, image)


def _probe_of(setting: str | None) -> bool | None:
    """--setting claim / claim+image as the probe it picks (None: either)."""
    from workbench.contamination.probes import ARTICLE_SETTINGS, parse_article_setting

    if setting is None:
        return None
    image = parse_article_setting(setting)
    if image is None:
        raise UserError(f"--setting {setting!r}: articles are written in {' or '.join(ARTICLE_SETTINGS)}")
    return image
