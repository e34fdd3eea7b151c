"""Commands for scores: metrics, compare, report."""

from __future__ import annotations

import json
from pathlib import Path

import click

from workbench.choices import BREAKDOWN_FIELDS, DEFAULT_RESAMPLES, DEFAULT_SEED, REPORT_FORMATS
from workbench.cli import UserError, shared_options
from workbench.cli.opening import open_store
from workbench.render.console import output_console

_BY_HELP = f"Break scores down by a field (repeatable): {', '.join(BREAKDOWN_FIELDS)}."
_CUTOFF_HELP = (
    "A model's training cutoff: DATE for every run, or RUN=DATE per run (repeatable); a model's"
    " name for DATE is the day after its cutoff (`workbench cutoffs`), auto each run's own model's;"
    " adds the before/after breakdown."
)


_CLUSTER_HELP = (
    "Resample the claims that share this field together for intervals and paired tests"
    " (question, response, source, article_url, task, domain, attr.NAME): claims of one"
    " question are not independent. Default: the dataset profile's natural cluster (jsfactcheck:"
    " question), else none; `none` resamples claim by claim."
)


_JUDGE_HELP = (
    "The judge run (name, id or judge model) whose explanation scores to show;"
    " default: each run's newest (see `workbench judge`)."
)


def _scoring_options(f):
    """The options metrics and report share."""
    options = [
        click.option("--by", "by", multiple=True, metavar="FIELD", help=_BY_HELP),
        click.option(
            "--exclude-flag",
            metavar="KIND",
            help="Also score without the claims flagged KIND (e.g. contaminated, contaminated@MODEL, contaminated@run: each run's own model), side by side.",
        ),
        click.option("--cutoff", "cutoffs", multiple=True, metavar="DATE|RUN=DATE", help=_CUTOFF_HELP),
        click.option(
            "--resamples",
            type=click.IntRange(0),
            default=DEFAULT_RESAMPLES,
            show_default=True,
            help="Bootstrap resamples for the 95% intervals (0: none).",
        ),
        click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True, help="Bootstrap seed."),
        click.option("--judge", metavar="JUDGE_RUN", help=_JUDGE_HELP),
        click.option("--cluster", metavar="FIELD", help=_CLUSTER_HELP),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def _reports(runs, by, exclude_flag, cutoffs, resamples, seed, judge=None, cluster=None):
    from workbench.reports import ReportOptions, build_reports

    store = open_store()
    try:
        options = ReportOptions(tuple(by), exclude_flag, resamples=resamples, seed=seed, judge=judge, cluster=cluster)
        reports = build_reports(store, list(runs), options, list(cutoffs))
    finally:
        store.close()
    for report in reports:
        if report.cutoff_note:  # on stderr: stdout may be the report or JSON
            click.echo(f"note: {report.cutoff_note}", err=True)
    return reports


@click.command("metrics")
@click.argument("runs", nargs=-1, required=True, metavar="RUN [RUN ...]")
@_scoring_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON (every number, interval and count).")
@shared_options
def metrics_command(runs, by, exclude_flag, cutoffs, resamples, seed, judge, cluster, as_json) -> None:
    """Score runs: accuracy, macro-F1 with 95% CIs, per-class P/R/F1, MCC, Unknown Rate,
    parse-failure and error rates, coverage, confusion matrix, baselines, breakdowns.

    See docs/metrics.md for the exact definitions.
    """
    from workbench.render.reports import report_dict
    from workbench.render.scores import run_report

    reports = _reports(runs, by, exclude_flag, cutoffs, resamples, seed, judge, cluster)
    if as_json:
        click.echo(json.dumps({"runs": [report_dict(r) for r in reports]}, indent=2, ensure_ascii=False))
        return
    console = output_console()  # made per command: it reads the terminal's width (COLUMNS) now
    for report in reports:
        console.print(run_report(report))
        console.print()


@click.command("compare")
@click.argument("run_a", metavar="RUN_A")
@click.argument("run_b", metavar="RUN_B")
@click.option("--by", metavar="FIELD", help=f"Deltas per slice of a field: {', '.join(BREAKDOWN_FIELDS)}.")
@click.option(
    "--exclude-flag",
    metavar="KIND",
    help="Also compare without the claims flagged KIND (KIND@run: either run's own model).",
)
@click.option(
    "--cutoff",
    "cutoffs",
    multiple=True,
    metavar="DATE|RUN=DATE",
    help="Cutoff date(s) for --by cutoff (a model's name, or auto: see `workbench cutoffs`).",
)
@click.option(
    "--resamples",
    type=click.IntRange(0),
    default=DEFAULT_RESAMPLES,
    show_default=True,
    help="Paired bootstrap resamples (0: no paired test).",
)
@click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True, help="Bootstrap seed.")
@click.option(
    "--judge",
    metavar="JUDGE_RUN",
    help="Run A's judge run for the paired EQ (default: its newest); run B's must share its judge model and template.",
)
@click.option("--cluster", metavar="FIELD", help=_CLUSTER_HELP)
@click.option(
    "--varies",
    "varies",
    multiple=True,
    metavar="PART",
    help="What differs between the runs on purpose besides the model (template, setting, params,"
    " params.KEY, subset, dataset, claims, engine, versions, judge; repeatable or comma-separated):"
    " the comparison is like for like when nothing else differs.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON, with every flipped claim id.")
@shared_options
def compare_command(run_a, run_b, by, exclude_flag, cutoffs, resamples, seed, judge, cluster, varies, as_json) -> None:
    """Compare RUN_B against RUN_A on the claims both answered: deltas, paired bootstrap
    p-values, McNemar, the correction rate CoR, and the claims that flipped."""
    from workbench.render.reports import comparison_report_dict
    from workbench.render.scores import comparison_view
    from workbench.reports import build_comparison
    from workbench.runs.manifest import check_varies

    try:
        varies = check_varies(varies)
    except ValueError as error:
        raise UserError(str(error)) from None
    store = open_store()
    try:
        report = build_comparison(
            store, run_a, run_b, by, exclude_flag, cutoffs, resamples, seed, judge, cluster, varies
        )
    finally:
        store.close()
    full = report.scores.full
    if not full.shared:  # numbers over no items would read as real scores (0.000)
        raise UserError(
            f"runs {full.run_a.name!r} and {full.run_b.name!r} share no items (claims"
            " both answered whose gold label is scored): nothing to compare"
        )
    if as_json:
        click.echo(json.dumps(comparison_report_dict(report), indent=2, ensure_ascii=False))
        return
    output_console().print(comparison_view(report))


@click.command("report")
@click.argument("runs", nargs=-1, required=True, metavar="RUN [RUN ...]")
@click.option("--format", "format_", type=click.Choice(REPORT_FORMATS), default="md", show_default=True)
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="File to write (default: stdout)."
)
@_scoring_options
@shared_options
def report_command(runs, format_, output, by, exclude_flag, cutoffs, resamples, seed, judge, cluster) -> None:
    """Write a report to paste into a paper: Markdown tables with the definitions under
    them, JSON with everything, or CSV with one row per run x slice."""
    from workbench.render.reports import write_report

    reports = _reports(runs, by, exclude_flag, cutoffs, resamples, seed, judge, cluster)
    text = write_report(reports, format_)
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as error:
        raise UserError(f"cannot write {output}: {error.strerror}") from None
    output_console().print(f"wrote {format_} report of {len(reports)} run(s) to {output}", markup=False)
