"""Commands that read runs back: runs, predictions, show-run."""

from __future__ import annotations

import json

import click

from store.names import no_run
from workbench.choices import RUN_KINDS
from workbench.cli import UserError, shared_options
from workbench.cli.opening import open_store
from workbench.render.console import reading_console
from workbench.render.display import literal, one_line


@click.command("runs")
@click.option(
    "--kind",
    "kinds",
    multiple=True,
    metavar="KIND",
    help=f"Only runs of this kind (repeatable): {', '.join(RUN_KINDS)}.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@shared_options
def runs_command(kinds: tuple[str, ...], as_json: bool) -> None:
    """List every run (answers, imported answers, judges, labellers, the contamination
    pipeline's steps) with its kind, status, counts, tokens, speed, time per claim and cost."""
    from workbench.runs.kinds import kind_of
    from workbench.usage.prices import price_table

    store = open_store()
    runs = store.runs.list(kind=None)
    if kinds:
        known = set(RUN_KINDS) | {kind_of(run) for run in runs}
        unknown = [kind for kind in kinds if kind not in known]
        if unknown:
            raise UserError(f"no kind of run {unknown[0]!r}; kinds: {', '.join(sorted(known))}")
        runs = [run for run in runs if kind_of(run) in kinds]
    prices = price_table() if runs else None
    rows = [_run_summary(store, run, prices) for run in runs]
    if as_json:
        from workbench.runs.manifest import run_manifest

        for run, row in zip(runs, rows):
            row.pop("_usage_line")
            row["manifest"] = run_manifest(store, run)
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    console = reading_console()
    if not rows:
        from workbench.cli.hints import suggested

        console.print(
            f"no {' or '.join(kinds)} runs" if kinds else f"no runs yet: `{suggested('run')}` starts one",
            soft_wrap=True,
        )
        return
    runs_listing(rows).print(console)


def runs_listing(rows: list[dict]):
    """The runs as a listing: id and name never cut, the counts giving way from the right
    (it/s, cache, ...) on a narrow terminal, the details under each name wrapped at words."""
    from workbench.render.listing import Column, Listing

    counts = [("total", "total", 80), ("ok", "ok", 70), ("err", "error", 60), ("abst", "abstain", 50)]
    counts += [("unpar", "parse_failure", 40), ("miss", "missing", 30), ("cache", "cached", 20)]
    listing = Listing(
        Column("id", "id", 100),
        Column("run", "name", 90, readable=36),
        *(Column(header, "number", priority, "right") for header, _, priority in counts),
        Column("it/s", "number", 10, "right"),
    )
    for r in rows:
        rate = f"{r['items_per_second']:.1f}" if r["items_per_second"] else ""
        label = literal(r["name"])
        label.append(f" {r['status']}", style="bold")
        kind = r["kind"] + (f" of #{r['of_run']}" if r["of_run"] is not None else "")
        parts = [
            kind,
            r["model"],
            r["prompt"],
            r["setting"],
            f"tokens {_short(r['tokens_in'])} in / {_short(r['tokens_out'])} out",
        ]
        label.append("\n" + one_line(" · ".join(str(part) for part in parts if part)), style="dim")
        label.append("\n" + one_line(r.pop("_usage_line")), style="dim")
        listing.add_row(str(r["id"]), label, *(f"{r[key]:,}" for _, key, _ in counts), rate)
    return listing


def _short(count: int) -> str:
    return f"{count / 1000:.1f}k" if count >= 10_000 else str(count)


def _run_summary(store, run, prices) -> dict:
    from workbench.render.usage import usage_dict, usage_summary
    from workbench.runs.kinds import kind_of
    from workbench.runs.speed import items_per_second
    from workbench.usage.summary import run_usage

    p = store.runs.progress(run.id)
    usage = run_usage(store, run, prices)
    return {
        "id": run.id,
        "name": run.name,
        "kind": kind_of(run),
        "of_run": run.target_run_id,
        "status": run.status,
        "model": run.model,
        "prompt": run.prompt_name,
        "setting": run.setting,
        "total": p.total,
        "ok": p.ok,
        "abstain": p.abstain,
        "parse_failure": p.parse_failure,
        "error": p.error,
        "missing": p.missing,
        "cached": p.cached,
        "tokens_in": p.tokens_in,
        "tokens_out": p.tokens_out,
        "latency_s": round(p.latency_s, 3),
        "mean_latency_s": round(p.latency_s / max(p.done - p.cached, 1), 3),
        "items_per_second": items_per_second(p.done + p.error, run.started_at, run.finished_at),
        "created_at": run.created_at,
        "started_at": run.started_at,
        "finished_at": run.finished_at,
        "engine": run.engine,
        "usage": usage_dict(usage),
        "_usage_line": usage_summary(usage),
    }


@click.command("predictions")
@click.argument("run_ref", metavar="RUN")
@click.option("--wrong", is_flag=True, help="Only answers that miss the gold label (as the filter `wrong`).")
@click.option("--limit", default=100, show_default=True, type=click.IntRange(1))
@click.option("--json", "as_json", is_flag=True, help="Print JSON lines (every field, raw output included).")
@shared_options
def predictions_command(run_ref: str, wrong: bool, limit: int, as_json: bool) -> None:
    """A run's answers beside the gold labels."""
    store = open_store()
    run = store.runs.get(run_ref)
    if run is None:
        raise UserError(no_run(store.runs, run_ref, listing=False))
    compiled = store.claims.compile(f"run:{run.id}" + (" wrong" if wrong else ""))
    predictions = store.runs.predictions(run.id, compiled.where, list(compiled.params))
    shown = predictions[:limit]
    claims = store.claims.ids_and_labels([p.claim_id for p in shown])  # (external id, gold label)
    if as_json:
        from store import as_dict

        for p in shown:
            external_id, gold = claims[p.claim_id]
            record = {
                "claim_id": p.claim_id,
                "external_id": external_id,
                "gold": gold,
                **as_dict(p, exclude={"id", "run_id", "claim_id"}),
            }
            click.echo(json.dumps(record, ensure_ascii=False))
        return
    listing = predictions_listing(shown, claims)
    console = reading_console()
    listing.print(console)
    console.print(f"{len(shown):,} shown of {len(predictions):,}")


def predictions_listing(shown: list, claims: dict):
    """A run's answers: claim id and external id whole, gold and verdict, the explanation (or
    error) wrapped at words; `claims` maps a claim id to (external id, gold label)."""
    from workbench.render.listing import Column, Listing

    listing = Listing(
        Column("claim", "id", 100),
        Column("ext id", "whole", 90),
        Column("gold", "label", 80),
        Column("verdict", "label", 85),
        Column("status", "label", 70),
        Column("explanation / error", "text", 60, readable=24),
    )
    for p in shown:
        external_id, gold = claims[p.claim_id]
        note = p.error if p.status == "error" else p.explanation or p.raw_output
        listing.add_row(
            str(p.claim_id),
            literal(one_line(external_id)),
            literal(one_line(gold or "")),
            literal(one_line(p.verdict or p.raw_verdict or "")),
            p.status + (" (cached)" if p.cached else ""),
            literal(one_line(note, 200)),
        )
    return listing


@click.command("show-run")
@click.argument("run_ref", metavar="RUN")
@click.option("--json", "as_json", is_flag=True, help="Print the manifest as JSON.")
@shared_options
def show_run_command(run_ref: str, as_json: bool) -> None:
    """A run's manifest: the data (its content hash), subset, template, setting, parameters,
    engine, model file or API model, package versions; what `compare` checks is like for like."""
    from workbench.render.console import output_console
    from workbench.render.manifest import manifest_view
    from workbench.runs.manifest import run_manifest

    store = open_store()
    run = store.runs.get(run_ref)
    if run is None:
        raise UserError(no_run(store.runs, run_ref, listing=False))
    manifest = run_manifest(store, run)
    if as_json:
        click.echo(json.dumps({"run": run.name, "id": run.id, "manifest": manifest}, indent=2, ensure_ascii=False))
        return
    output_console().print(manifest_view(run.name, manifest))
