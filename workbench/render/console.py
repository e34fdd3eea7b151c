"""The console every command prints through.

Rich ends the process with status 1 when the reader of its output goes away; a closed pipe
(`workbench claims | head -1`) is not a failure, so ours raises BrokenPipeError instead, and
the command line's one handler (workbench/cli/__init__.py) ends quietly with 141, as a shell
ends any program that SIGPIPE stops.
"""

from __future__ import annotations

from rich.console import Console


class _PipeAwareConsole(Console):
    def on_broken_pipe(self) -> None:
        self.quiet = True  # nothing more is written to the closed pipe
        raise BrokenPipeError


def output_console(**options) -> Console:
    """A console for a command's output (no guessing of highlights in untrusted text)."""
    options.setdefault("highlight", False)
    return _PipeAwareConsole(**options)
