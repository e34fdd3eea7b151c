"""`workbench tui`: open the terminal UI on the database."""

from __future__ import annotations

import click

from workbench.cli import UserError, current_annotator, current_db_path, shared_options


@click.command("tui")
@click.option(
    "--compare",
    nargs=2,
    metavar="BASE OTHER",
    help="Open on the flips view: every claim whose verdict flips between run BASE and run OTHER.",
)
@click.option("--where", "where", default="", metavar="FILTER", help="With --compare: only the flips matching FILTER.")
@click.option(
    "--cluster",
    metavar="FIELD",
    help="What the metrics view's intervals and paired tests resample together, as `metrics --cluster`"
    " (default: the dataset profile's natural cluster; `none`: claim by claim).",
)
@shared_options
def tui_command(compare: tuple[str, str] | None, where: str, cluster: str | None) -> None:
    """Open the workbench TUI: browse claims and evidence, run models, flag, triage.

    Keys: ? for help, ctrl+p for the command palette, q to quit. The same runs in a browser
    with `workbench serve`.
    """
    from store.problems import check_path, missing_database_text

    path = current_db_path()
    check_path(path)
    if not path.exists():
        raise UserError(missing_database_text(path))
    if where and not compare:
        raise UserError("--where goes with --compare BASE OTHER (the claims browser has its own filter bar: /)")
    if compare:
        _check_runs(path, compare, where)
    if cluster is not None:
        _check_cluster(cluster)
    from workbench.tui import run_workbench

    status = run_workbench(
        path, current_annotator(), compare=(*compare, where) if compare else None, cluster=cluster
    )  # a DatabaseProblem is printed in one line by the group
    if status:
        raise SystemExit(status)


def _check_runs(path, compare: tuple[str, str], where: str) -> None:
    """Refuse unknown runs or a bad filter before the terminal is taken over."""
    from store import Store
    from workbench.errors import WorkbenchError
    from workbench.scoring.flips import read_flips

    store = Store.open(path)
    try:
        read_flips(store, compare[0], compare[1], where)
    except WorkbenchError as error:
        raise UserError(str(error)) from None
    finally:
        store.close()


def _check_cluster(cluster: str) -> None:
    """Refuse a field that cannot cluster claims before the terminal is taken over."""
    from workbench.reports.clusters import NO_CLUSTER
    from workbench.scoring.fields import FieldError, parse_cluster

    if cluster.strip().lower() == NO_CLUSTER:
        return
    try:
        parse_cluster(cluster)
    except FieldError as error:
        raise UserError(f"--cluster: {error}") from None
