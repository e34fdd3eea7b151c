"""Commands the CLI suggests, written so that they work as typed.

A hint like "`workbench run --resume NAME` continues it" is copied into the same shell: it
must carry the --db (and --annotator) the user gave, quote names with spaces, and keep
every option that decides what the command does. Imports only click (cli/__init__ uses it).

    suggested("run", "--resume", name)   # 'workbench --db my.db run --resume NAME'
    this_command()                       # the command being run, as it could be typed again
    with_root_options(message)           # every `workbench ...` in a message gets the --db given
"""

from __future__ import annotations

import re
import shlex

import click

WITHOUT_DATABASE = ("nlp-data", "filter-help", "profiles", "prompts", "--help")
"""Commands that never open the database: their hints need no --db."""


def root_words() -> list[str]:
    """The options given before the command name that a suggested command needs too."""
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return []
    given = ctx.find_root().obj or {}
    words = ["--db", str(given["db_path"])] if given.get("db_given") else []
    if given.get("annotator") is not None:
        words += ["--annotator", str(given["annotator"])]
    return words


def suggested(*words: object) -> str:
    """A workbench command line to suggest: the root options the user gave, then `words`."""
    return shlex.join(["workbench", *root_words(), *(str(word) for word in words)])


def with_root_options(message: str) -> str:
    """`message` with the user's --db (and --annotator) in each backquoted workbench command."""
    words = root_words()
    if not words:
        return message
    given = shlex.join(words)
    skip = "|".join(map(re.escape, (given, *WITHOUT_DATABASE)))
    return re.sub(rf"`workbench (?!(?:{skip})[ `])", f"`workbench {given} ", message)


def this_command(drop: tuple[str, ...] = ()) -> str:
    """The command being run, as the user can type it again (options left at their defaults
    are left out, those named in `drop` too): for "the same command again continues"."""
    ctx = click.get_current_context()
    names, level = [], ctx
    while level.parent is not None:
        names.append(level.info_name)
        level = level.parent
    words = [*reversed(names)]
    for param in ctx.command.params:
        if param.name in drop or not param.expose_value:
            continue
        words += _param_words(param, ctx.params.get(param.name))
    return suggested(*words)


def _param_words(param: click.Parameter, value) -> list[str]:
    if isinstance(param, click.Argument):
        values = value if isinstance(value, (tuple, list)) else [value]
        return [str(v) for v in values if v is not None]
    if value is None or value is False or value == () or value == param.default:
        return []
    option = max(param.opts, key=len)  # the long spelling
    if getattr(param, "is_flag", False):
        return [option]
    if param.multiple:
        return [word for v in value for word in (option, str(v))]
    return [option, str(value)]
