"""`workbench tui`: open the terminal UI on the database."""

from __future__ import annotations

import click

from workbench.cli import UserError, current_annotator, current_db_path, shared_options


@click.command("tui")
@shared_options
def tui_command() -> None:
    """Open the workbench TUI: browse claims and evidence, run models, flag, triage.

    Keys: ? for help, ctrl+p for the command palette, q to quit. The same runs in a browser
    with `workbench serve`.
    """
    from store.problems import check_path, missing_database_text

    path = current_db_path()
    check_path(path)
    if not path.exists():
        raise UserError(missing_database_text(path))
    from workbench.tui import run_workbench

    status = run_workbench(path, current_annotator())  # a DatabaseProblem is printed in one line by the group
    if status:
        raise SystemExit(status)
