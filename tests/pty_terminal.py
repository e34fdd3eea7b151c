"""Running a workbench command in a pseudo-terminal, as a person sees it (no tests here).

The command runs in its own pty (80x24), so Rich draws its live status lines and progress
bars as on a real terminal. `first_import` makes the child write a marker the moment a
module is first imported: what the terminal showed before that marker was shown before the
slow import began (a deterministic stand-in for "within 0.2 s").
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios
import time

from tests.conftest import REPO

_CHILD = """\
import importlib.abc, sys
watched = set(sys.argv[1].split(",")) if sys.argv[1] else set()

class Marker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name in watched:
            watched.discard(name)
            sys.stderr.write(f"\\n<<importing {name}>>\\n")
            sys.stderr.flush()
        return None

sys.meta_path.insert(0, Marker())
from workbench.cli import main
main(sys.argv[2:], prog_name="workbench")
"""


def marker(module: str) -> bytes:
    return f"<<importing {module}>>".encode()


def run_in_terminal(
    args: list[str], watch: tuple[str, ...] = (), timeout: float = 300, interrupt_at: bytes | None = None
) -> tuple[int, bytes]:
    """(exit status, every byte the terminal received) for `workbench ARGS`; with
    `interrupt_at`, a Ctrl-C (SIGINT) is sent once the terminal has shown those bytes."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the pty is its terminal
        # Ctrl-C acts as in a user's shell even when the tests run in the background (where
        # a shell without job control starts them with SIGINT ignored, which exec keeps).
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        env = {**os.environ, "PYTHONPATH": str(REPO), "TERM": "xterm-256color", "COLUMNS": "80", "LINES": "24"}
        os.execve(sys.executable, [sys.executable, "-c", _CHILD, ",".join(watch), *args], env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    output, started = b"", time.monotonic()
    # poll, not select: a long test session may hold more than 1024 descriptors
    waiting = select.poll()
    waiting.register(fd, select.POLLIN | select.POLLHUP)
    while True:
        if waiting.poll(1000):
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the child has closed the terminal
                chunk = b""
            if not chunk:
                break
            output += chunk
            if interrupt_at is not None and interrupt_at in output:
                os.kill(pid, signal.SIGINT)
                interrupt_at = None
        if time.monotonic() - started > timeout:
            os.kill(pid, 9)
            raise AssertionError(f"still running after {timeout} s:\n{output[-2000:]!r}")
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), output
