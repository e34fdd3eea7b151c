"""The interchange formats' libraries live in a venv of their own (.venv-interchange, made by
`make test`): inspect-ai caps packages below the main venv's versions, and mlcroissant brings
pandas, which sqlite-utils then imports on every command. Tests run the workbench and the
formats' own readers there, as processes."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
INTERCHANGE_PYTHON = REPO / ".venv-interchange" / "bin" / "python"

needs_interchange_venv = pytest.mark.skipif(
    not INTERCHANGE_PYTHON.exists(),
    reason=f"{INTERCHANGE_PYTHON.parent.parent} is absent (`make test` creates it: the inspect and croissant extras)",
)


def interchange_run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """`python ARGS` in the interchange venv, with this checkout first on the path."""
    env = dict(os.environ, PYTHONPATH=str(REPO), NO_COLOR="1", COLUMNS="200")
    return subprocess.run(
        [str(INTERCHANGE_PYTHON), *args], input=stdin, capture_output=True, text=True, env=env, timeout=300
    )


def interchange_process(*args) -> subprocess.Popen:
    """`python ARGS` in the interchange venv, running on: stdout and stderr together, as text."""
    env = dict(os.environ, PYTHONPATH=str(REPO), NO_COLOR="1", PYTHONUNBUFFERED="1")
    command = [str(INTERCHANGE_PYTHON), *map(str, args)]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)


def workbench_there(db: Path, *args: str) -> subprocess.CompletedProcess:
    """A workbench command run in the interchange venv."""
    code = "import sys; from workbench.cli import main; sys.argv[0] = 'workbench'; sys.exit(main())"
    return interchange_run("-c", code, "--db", str(db), *map(str, args))


def python_there(code: str, *args: str) -> object:
    """Run `code` in the interchange venv; it prints one JSON value, returned here."""
    done = interchange_run("-c", code, *map(str, args))
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)
