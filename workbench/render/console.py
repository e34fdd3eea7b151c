"""The console every command prints through.

Rich ends the process with status 1 when the reader of its output goes away; a closed pipe
(`workbench claims | head -1`) is not a failure, so ours raises BrokenPipeError instead, and
the command line's one handler (workbench/cli/__init__.py) ends quietly with 141, as a shell
ends any program that SIGPIPE stops.

Rich is imported when a command makes its console, not when its module is imported:
`workbench --help` and the commands that print only JSON never load it.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console


@functools.cache
def _pipe_aware_console_class():
    from rich.console import Console

    class PipeAwareConsole(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True  # nothing more is written to the closed pipe
            raise BrokenPipeError

    return PipeAwareConsole


def output_console(**options) -> Console:
    """A console for a command's output (no guessing of highlights in untrusted text)."""
    options.setdefault("highlight", False)
    return _pipe_aware_console_class()(**options)


def reading_console() -> Console:
    """The console of a command that reads and prints: a str is printed as written (no
    markup, no emoji codes: names and messages hold data), Text and tables as they are built."""
    return output_console(markup=False, emoji=False)
