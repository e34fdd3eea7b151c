"""The `workbench` command line.

Each `*_commands` module in this package adds its commands to `main`; all of them are
imported at the bottom of this file so `workbench --help` lists them all.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

DEFAULT_DB = "workbench.db"


def resolve_db_path(db: str | None) -> Path:
    """--db, else $WORKBENCH_DB, else workbench.db in the current directory."""
    return Path(db or os.environ.get("WORKBENCH_DB") or DEFAULT_DB)


class UserError(click.ClickException):
    """A problem the user can fix; printed without a traceback, exit status 1."""


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--db",
    "db",
    metavar="PATH",
    help="SQLite database file (default: $WORKBENCH_DB, else ./workbench.db).",
)
@click.version_option(package_name="factcheck-workbench")
@click.pass_context
def main(ctx: click.Context, db: str | None) -> None:
    """Evaluate LLM fact-checkers: import benchmarks, run models, read verdicts, score."""
    ctx.ensure_object(dict)
    ctx.obj["db_path"] = resolve_db_path(db)


def db_path_option(f):
    """Let a subcommand also take --db after its name (`workbench claims --db x.db`)."""

    def remember(ctx: click.Context, _param, value):
        if value:
            ctx.ensure_object(dict)
            ctx.find_root().obj["db_path"] = Path(value)
        return value

    return click.option(
        "--db",
        "db_override",
        metavar="PATH",
        expose_value=False,
        callback=remember,
        is_eager=True,
        help="SQLite database file.",
    )(f)


def current_db_path() -> Path:
    """The database path chosen for this invocation."""
    ctx = click.get_current_context()
    return ctx.find_root().obj["db_path"]


def _register_command_modules() -> None:
    """Import every `*_commands` module here; each adds its commands to `main`."""
    import importlib
    import pkgutil

    for module in pkgutil.iter_modules(__path__):
        if module.name.endswith("_commands"):
            importlib.import_module(f"{__name__}.{module.name}")


_register_command_modules()
