"""The `workbench` command line.

Commands are loaded when they run (click's lazily loaded subcommands): the table below
names each command's module, and a module is imported only when its command is called or
its help is shown (`workbench --help` lists them from workbench/cli/summaries.py). Command
modules import only click and Rich at the top (the modules of the reading commands not even
Rich: they import it when they print); what a command uses (the store, models, numpy, scipy)
is imported inside it, so `workbench --help` starts in a few hundredths of a second however
many commands there are.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
from pathlib import Path

import click

from workbench.errors import WorkbenchError

DEFAULT_DB = "workbench.db"
COMMANDS = {
    "articles": "article_commands:articles",
    "averimatec": "averimatec_commands:averimatec_command",
    "batch": "batch_commands:batch",
    "claims": "data_commands:claims_command",
    "compare": "metrics_commands:compare_command",
    "contamination": "contamination_commands:contamination",
    "curate": "curation_commands:curate_command",
    "cutoffs": "curation_commands:cutoffs_command",
    "datasets": "data_commands:datasets_command",
    "demo": "data_commands:demo_command",
    "ev2r": "ev2r_commands:ev2r_command",
    "export": "data_commands:export_command",
    "export-croissant": "interchange_commands:export_croissant_command",
    "export-run": "interchange_commands:export_run_command",
    "export-submission": "submission_commands:export_submission_command",
    "filter-help": "data_commands:filter_help_command",
    "import": "import_commands:import_command",
    "import-averimatec": "averimatec_commands:import_averimatec_command",
    "import-knowledge": "search_commands:import_knowledge_command",
    "import-predictions": "import_commands:import_predictions_command",
    "import-run": "interchange_commands:import_run_command",
    "import-submission": "submission_commands:import_submission_command",
    "judge": "judge_commands:judge_command",
    "judge-agreement": "judge_commands:judge_agreement_command",
    "judge-consistency": "judge_commands:judge_consistency_command",
    "metrics": "metrics_commands:metrics_command",
    "models": "model_commands:models_command",
    "nlp-data": "nlp_commands:nlp_data",
    "predictions": "run_reading_commands:predictions_command",
    "profiles": "import_commands:profiles_command",
    "prompt": "prompt_commands:prompt_command",
    "prompts": "prompt_commands:prompts_command",
    "ratings": "curation_commands:ratings_command",
    "reformulations": "search_commands:reformulations_command",
    "report": "metrics_commands:report_command",
    "run": "run_commands:run_command",
    "runs": "run_reading_commands:runs_command",
    "score-evidence": "score_commands:score_evidence_command",
    "search-stats": "search_commands:search_stats_command",
    "serve": "serve_commands:serve_command",
    "show": "data_commands:show_command",
    "show-run": "run_reading_commands:show_run_command",
    "trajectory": "search_commands:trajectory_command",
    "triage": "triage_commands:triage",
    "tui": "tui_commands:tui_command",
}
"""Command name -> "module:attribute" in this package."""


def resolve_db_path(db: str | None) -> Path:
    """--db, else $WORKBENCH_DB, else workbench.db in the current directory."""
    return Path(db or os.environ.get("WORKBENCH_DB") or DEFAULT_DB)


class UserError(click.ClickException):
    """A problem the user can fix; printed without a traceback, exit status 1. A command it
    suggests in backquotes gets the --db the user gave, so it works as typed."""

    def __init__(self, message: str):
        from workbench.cli.hints import with_root_options  # only when there is something to say

        super().__init__(with_root_options(message))


class OneLineUsageError(click.UsageError):
    """A command typed wrong (an unknown option, a value not among the choices): one line
    with where to look, exit status 2 (as click, argparse and most command-line tools)."""

    def __init__(self, error: click.UsageError):
        super().__init__(_with_suggestion(error), error.ctx)

    def show(self, file=None) -> None:
        where = f" (see `{self.ctx.command_path} --help`)" if self.ctx is not None else ""
        click.echo(f"Error: {self.format_message()}{where}", file=file, err=file is None)


def _with_suggestion(error: click.UsageError) -> str:
    """click's message, an unknown option's suggestion made ours: the nearest of the
    command's long options, or none when none is near (click lists every one within its
    cutoff in alphabetical order, so `--wher` was offered `--help` before `--where`)."""
    if not isinstance(error, click.NoSuchOption) or error.ctx is None:
        return error.format_message()
    meant = nearest_option(error.ctx, error.option_name)
    return f"No such option {error.option_name!r}." + (f" Did you mean {meant}?" if meant else "")


def nearest_option(ctx: click.Context, typed: str) -> str | None:
    """The command's long option nearest `typed`, compared without the leading dashes
    (every option shares them, which made `--model` look near `--help`); None if none is."""
    from store.names import close_names

    options = [name for param in ctx.command.get_params(ctx) for name in (*param.opts, *param.secondary_opts)]
    bare = {name.lstrip("-"): name for name in options if name.startswith("--")}
    close = close_names(typed.lstrip("-"), list(bare), n=1)
    return bare[close[0]] if close else None


class LazyGroup(click.Group):
    """A group whose commands are imported on first use (see COMMANDS).

    Errors the domain raises for users to fix (WorkbenchError) become one-line messages.
    """

    def __init__(self, *args, lazy_commands: dict[str, str] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy_commands = lazy_commands or {}

    def __call__(self, *args, **kwargs):
        """The console script's entry (tests call `main.main` through CliRunner instead)."""
        from workbench.cli.process import whole_process

        return whole_process(lambda: super(LazyGroup, self).__call__(*args, **kwargs))

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy_commands})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.lazy_commands and name not in self.commands:
            module_name, attribute = self.lazy_commands[name].split(":")
            module = importlib.import_module(f"{__name__}.{module_name}")
            self.add_command(getattr(module, attribute), name)
        return super().get_command(ctx, name)

    def resolve_command(self, ctx: click.Context, args: list[str]):
        """click's, with the nearest command offered for a misspelled one (click offers only
        commands already imported, and this group imports them on first use)."""
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError:
            name = args[0] if args else ""
            if not name or name.startswith("-") or self.get_command(ctx, name) is not None:
                raise
            from store.names import did_you_mean

            meant = did_you_mean(name, self.list_commands(ctx)).removeprefix("; ")
            raise click.UsageError(
                f"No such command {name!r}." + (f" {meant[0].upper()}{meant[1:]}" if meant else ""), ctx
            ) from None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands and what each does, from workbench/cli/summaries.py: listing them
        imports none of their modules (one that is missing there is imported for it)."""
        from workbench.cli.summaries import SUMMARIES

        rows = []
        for name in self.list_commands(ctx):
            if name in SUMMARIES and name not in self.commands:
                rows.append((name, click.Command(name, help=SUMMARIES[name])))
                continue
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command))
        if rows:
            limit = formatter.width - 6 - max(len(name) for name, _ in rows)  # as click's own listing
            with formatter.section("Commands"):
                formatter.write_dl([(name, command.get_short_help_str(limit)) for name, command in rows])

    def make_context(self, info_name, args, parent=None, **extra) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.UsageError as error:
            raise OneLineUsageError(error) from None
        except BrokenPipeError:  # `workbench --help | head -1`: help is printed while parsing
            _quiet_closed_pipe()

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except WorkbenchError as error:
            raise UserError(str(error)) from None
        except click.UsageError as error:
            if isinstance(error, OneLineUsageError):
                raise
            raise OneLineUsageError(error) from None
        except BrokenPipeError:  # every command's output, through click.echo or our console
            _quiet_closed_pipe()
        except click.exceptions.Exit:  # `COMMAND --help` and ctx.exit(): nothing to look up
            raise
        except Exception as error:
            problem = _database_problem(error, ctx)
            if problem is None:
                raise
            raise UserError(problem) from None


def _quiet_closed_pipe() -> None:
    """The reader of our output went away (`workbench export | head -1`): stop without a
    word, with the status a shell gives a process that SIGPIPE ends (128 + 13)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())  # nothing more reaches the closed pipe at exit
    raise SystemExit(141)


def _database_problem(error: Exception, ctx: click.Context) -> str | None:
    """One line for what a database error says about the file (a lock held too long, a
    read-only file, ...); None for any other error."""
    from store.problems import as_problem

    problem = as_problem(error, (ctx.obj or {}).get("db_path") or "the database")
    return str(problem) if problem else None


@click.group(cls=LazyGroup, lazy_commands=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--db", "db", metavar="PATH", help="SQLite database file (default: $WORKBENCH_DB, else ./workbench.db).")
@click.option(
    "--annotator",
    metavar="NAME",
    help="Who you are on labels, notes and scores (default: `annotator` in the config, $WORKBENCH_ANNOTATOR,"
    " else your login name).",
)
@click.version_option(package_name="factcheck-workbench")
@click.pass_context
def main(ctx: click.Context, db: str | None, annotator: str | None) -> None:
    """Evaluate LLM fact-checkers: import benchmarks, run models, read verdicts, score."""
    ctx.ensure_object(dict)
    ctx.obj["db_path"] = resolve_db_path(db)
    ctx.obj["db_given"] = db is not None  # hints then name it: `workbench --db PATH ...`
    ctx.obj["annotator"] = annotator


READING_COMMANDS = frozenset(
    {
        "claims",
        "show",
        "runs",
        "datasets",
        "predictions",
        "profiles",
        "prompts",
        "filter-help",
        "trajectory",
        "search-stats",
        "show-run",
    }
)
"""Commands that only read and print: they check only the settings they read (workbench.config.
setting), so a config file costs them no pydantic unless it gives one of those."""


def shared_options(f):
    """What every command shares: --db after its name too (`workbench claims --db x.db`),
    and the config file checked before the command does anything (a broken one stops it
    with one line naming the file and the setting). A reading command checks only what it
    reads: validating the whole file takes longer than it takes to run."""

    @functools.wraps(f)
    def checked(*args, **kwargs):
        if click.get_current_context().info_name not in READING_COMMANDS:
            from workbench.config import load_settings

            load_settings()  # ConfigError (a WorkbenchError): one line, exit 1
        return f(*args, **kwargs)

    def remember(ctx: click.Context, _param, value):
        if value:
            ctx.ensure_object(dict)
            ctx.find_root().obj["db_path"] = Path(value)
            ctx.find_root().obj["db_given"] = True
        return value

    def remember_annotator(ctx: click.Context, _param, value):
        if value is not None:
            ctx.ensure_object(dict)
            ctx.find_root().obj["annotator"] = value
        return value

    with_annotator = click.option(
        "--annotator",
        "annotator_override",
        metavar="NAME",
        expose_value=False,
        callback=remember_annotator,
        is_eager=True,
        help="Who you are on labels, notes and scores.",
    )(checked)
    return click.option(
        "--db",
        "db_override",
        metavar="PATH",
        expose_value=False,
        callback=remember,
        is_eager=True,
        help="SQLite database file.",
    )(with_annotator)


def current_annotator() -> str:
    """Who is at the keyboard: --annotator, else the config's `annotator` (which
    $WORKBENCH_ANNOTATOR overrides, and which defaults to the login name)."""
    from workbench.config import load_settings
    from workbench.triage.people import check_annotator

    ctx = click.get_current_context()
    given = (ctx.find_root().obj or {}).get("annotator")
    return check_annotator(given if given is not None else load_settings().annotator)


def current_db_path() -> Path:
    """The database path chosen for this invocation."""
    ctx = click.get_current_context()
    return ctx.find_root().obj["db_path"]
