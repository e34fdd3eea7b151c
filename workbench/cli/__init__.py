"""The `workbench` command line.

Commands are loaded when they run (click's lazily loaded subcommands): the table below
names each command's module, and a module is imported only when its command is called or
its help is shown. Command modules import only click and Rich at the top; what a command
uses (the store, models, numpy, scipy) is imported inside it, so `workbench --help`
starts in a few hundredths of a second however many commands there are.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import click

from workbench.errors import WorkbenchError

DEFAULT_DB = "workbench.db"
COMMANDS = {
    "batch": "batch_commands:batch",
    "claims": "data_commands:claims_command",
    "compare": "metrics_commands:compare_command",
    "contamination": "contamination_commands:contamination",
    "datasets": "data_commands:datasets_command",
    "demo": "data_commands:demo_command",
    "export": "data_commands:export_command",
    "filter-help": "data_commands:filter_help_command",
    "import": "data_commands:import_command",
    "metrics": "metrics_commands:metrics_command",
    "nlp-data": "nlp_commands:nlp_data",
    "predictions": "run_commands:predictions_command",
    "prompt": "prompt_commands:prompt_command",
    "prompts": "prompt_commands:prompts_command",
    "report": "metrics_commands:report_command",
    "run": "run_commands:run_command",
    "runs": "run_commands:runs_command",
    "score-evidence": "score_commands:score_evidence_command",
    "show": "data_commands:show_command",
    "tui": "tui_commands:tui_command",
}
"""Command name -> "module:attribute" in this package."""


def resolve_db_path(db: str | None) -> Path:
    """--db, else $WORKBENCH_DB, else workbench.db in the current directory."""
    return Path(db or os.environ.get("WORKBENCH_DB") or DEFAULT_DB)


class UserError(click.ClickException):
    """A problem the user can fix; printed without a traceback, exit status 1."""


class LazyGroup(click.Group):
    """A group whose commands are imported on first use (see COMMANDS).

    Errors the domain raises for users to fix (WorkbenchError) become one-line messages.
    """

    def __init__(self, *args, lazy_commands: dict[str, str] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy_commands = lazy_commands or {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy_commands})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.lazy_commands and name not in self.commands:
            module_name, attribute = self.lazy_commands[name].split(":")
            module = importlib.import_module(f"{__name__}.{module_name}")
            self.add_command(getattr(module, attribute), name)
        return super().get_command(ctx, name)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except WorkbenchError as error:
            raise UserError(str(error)) from None


@click.group(cls=LazyGroup, lazy_commands=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
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
