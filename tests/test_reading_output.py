"""Each command that reads and prints, run as a user runs it to a pipe (CliRunner: not a
terminal), prints exactly what Rich prints for it: the same command with its blocks drawn
by Rich ($WORKBENCH_PRINT_WITH_RICH) gives the same bytes and exit code, at several widths."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from tests.support.reading import READ_COMMANDS, demo_with_a_search  # noqa: F401 (the fixture)
from workbench.cli import main
from workbench.render.console import WITH_RICH

MORE = {
    "claims wide": ["claims", "--limit", "100", "--sort", "label"],
    "show with evidence": ["show", "demo-averitec:1"],
    "show realfact": ["show", "30"],
    "predictions all": ["predictions", "demo-checker", "--limit", "500"],
    "runs of a kind": ["runs", "--kind", "answer"],
    "no runs of a kind": ["runs", "--kind", "judge"],
    "search-stats by": ["search-stats", "demo-checker", "--by", "label"],
}


def run(db, args, **env):
    result = CliRunner().invoke(main, ["--db", str(db), *args], env=env)
    return result.exit_code, result.stdout


@pytest.mark.parametrize("columns", ["80", "43", "160"])
@pytest.mark.parametrize("name", sorted({**READ_COMMANDS, **MORE}))
def test_a_reading_command_prints_what_rich_prints(name, columns, demo_with_a_search):  # noqa: F811
    args = {**READ_COMMANDS, **MORE}[name]
    plain = run(demo_with_a_search, args, COLUMNS=columns)
    rich = run(demo_with_a_search, args, COLUMNS=columns, **{WITH_RICH: "1"})
    assert plain == rich
    assert plain[0] == 0 and plain[1].strip()
