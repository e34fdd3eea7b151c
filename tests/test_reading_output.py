"""Each command that reads and prints, run as a user runs it (CliRunner) at 43, 80 and 160
columns: to a pipe it prints plain text that Rich drew to the width (no line wider, no
escape code), and to a terminal the same characters with styles (read back with Rich's own
ANSI decoder): what a user reads does not depend on where the output goes."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner
from rich.cells import cell_len
from rich.text import Text

from tests.support.reading import READ_COMMANDS
from workbench.cli import main

MORE = {
    "claims wide": ["claims", "--limit", "100", "--sort", "label"],
    "show with evidence": ["show", "demo-averitec:1"],
    "show realfact": ["show", "30"],
    "predictions all": ["predictions", "demo-checker", "--limit", "500"],
    "runs of a kind": ["runs", "--kind", "imported"],
    "no runs of another kind": ["runs", "--kind", "answer"],
    "no runs of a kind": ["runs", "--kind", "judge"],
    "search-stats by": ["search-stats", "demo-checker", "--by", "label"],
}
ALL = {**READ_COMMANDS, **MORE}
UNWRAPPED = {"filter-help"}
"""Printed with click.echo as written (a help text of our own), not drawn to the width."""
STYLED = {"claims", "show", "runs", "datasets", "predictions", "trajectory", "search-stats by"}
"""Tables, panels and trajectories, which have styles (bold headers, dim, cyan) on a terminal."""
PIPE = {"NO_COLOR": None, "FORCE_COLOR": None, "TTY_COMPATIBLE": None}
TERMINAL = {
    "NO_COLOR": None,
    "TTY_COMPATIBLE": None,
    "FORCE_COLOR": "1",
    "TERM": "xterm-256color",
    "COLORTERM": "truecolor",
}
ESCAPE = re.compile("\x1b")


def run(db, args, columns: str, **env):
    result = CliRunner().invoke(main, ["--db", str(db), *args], env={"COLUMNS": columns, **env})
    return result.exit_code, result.stdout


@pytest.mark.parametrize("columns", ["80", "43", "160"])
@pytest.mark.parametrize("name", sorted(ALL))
def test_a_reading_command_prints_the_same_to_a_pipe_and_to_a_terminal(name, columns, demo_with_a_search):  # noqa: F811
    status, piped = run(demo_with_a_search, ALL[name], columns, **PIPE)
    assert status == 0 and piped.strip()
    assert not ESCAPE.search(piped)  # a pipe gets no styles
    if name not in UNWRAPPED:
        assert max(cell_len(line) for line in piped.splitlines()) <= int(columns)
    status, styled = run(demo_with_a_search, ALL[name], columns, **TERMINAL)
    assert status == 0
    assert name not in STYLED or ESCAPE.search(styled)  # a terminal gets the styles
    assert Text.from_ansi(styled).plain == Text.from_ansi(piped).plain


def test_a_table_narrows_its_columns_to_the_width(demo_with_a_search):  # noqa: F811
    """The claims listing at 43 columns keeps the ids whole and cuts the claim text."""
    _, narrow = run(demo_with_a_search, ["claims", "--limit", "5"], "43", **PIPE)
    _, wide = run(demo_with_a_search, ["claims", "--limit", "5"], "160", **PIPE)
    ids = [line.split()[0] for line in narrow.splitlines()[2:7]]
    assert ids == ["1", "2", "3", "4", "5"]
    assert "…" in narrow and max(map(len, wide.splitlines())) > 43
