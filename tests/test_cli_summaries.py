"""`workbench --help` lists the commands from workbench/cli/summaries.py without importing
them: the list must say what the commands' own docstrings say, at every width."""

from __future__ import annotations

import json
import subprocess
import sys

import click
import pytest

from workbench.cli import COMMANDS, main
from workbench.cli.summaries import SUMMARIES


def test_every_command_has_its_own_first_sentence():
    """A command added to COMMANDS (or a docstring changed) without its line in summaries.py
    fails here: copy what this assertion shows."""
    ctx = click.Context(main)
    actual = {name: main.get_command(ctx, name).get_short_help_str(10**6) for name in sorted(COMMANDS)}
    assert SUMMARIES == actual


def fresh_help(width: int) -> str:
    """`workbench --help` in a new process: no command module loaded before it."""
    code = (
        "import sys\nfrom click.testing import CliRunner\nfrom workbench.cli import main\n"
        f"result = CliRunner().invoke(main, ['--help'], terminal_width={width})\n"
        "assert result.exit_code == 0 and 'workbench.cli.data_commands' not in sys.modules\n"
        "sys.stdout.write(result.output)"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize("width", [60, 80, 200])
def test_the_listing_is_what_click_prints_from_the_commands_themselves(width):
    fast = fresh_help(width)
    ctx = click.Context(main, terminal_width=width)
    formatter = ctx.make_formatter()
    for name in COMMANDS:  # every command loaded: click's own listing of them
        main.get_command(ctx, name)
    click.Group.format_commands(main, ctx, formatter)
    listing = formatter.getvalue()
    assert "Commands:" in listing and fast.endswith(listing)


def test_help_imports_no_command_module():
    code = (
        "import json, sys\nfrom click.testing import CliRunner\nfrom workbench.cli import main\n"
        "assert CliRunner().invoke(main, ['--help']).exit_code == 0\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = json.loads(result.stdout.splitlines()[-1])
    assert [m for m in loaded if m.startswith("workbench.cli.") and m != "workbench.cli.summaries"] == []
    assert not any(m == "rich" or m.startswith("rich.") for m in loaded)
