"""A workbench command as a real process, and a store opened for a block."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from store import Store


def workbench_process(db_path, *args) -> subprocess.Popen:
    code = "import sys; from workbench.cli import main; sys.exit(main())"
    return subprocess.Popen(
        [sys.executable, "-c", code, "--db", str(db_path), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=dict(os.environ),
        cwd=os.getcwd(),
        preexec_fn=_ctrl_c_as_in_a_shell,
    )


def _ctrl_c_as_in_a_shell() -> None:
    """SIGINT at its default in the child, as a user's shell leaves it: a test session run in
    the background (a shell without job control) starts with it ignored, which exec keeps."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class opened_store:
    """A store opened for a block and closed after it."""

    def __init__(self, path):
        self.store = Store.open(path)

    def __enter__(self) -> Store:
        return self.store

    def __exit__(self, *exc) -> None:
        self.store.close()
