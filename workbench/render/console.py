"""The consoles every command prints through.

Rich ends the process with status 1 when the reader of its output goes away; a closed pipe
(`workbench claims | head -1`) is not a failure, so ours raises BrokenPipeError instead, and
the command line's one handler (workbench/cli/__init__.py) ends quietly with 141, as a shell
ends any program that SIGPIPE stops.

The commands that read and print (claims, show, runs, ...) print blocks
(workbench/render/blocks.py) through reading_console(): to a file or a pipe, where Rich
would print no styles, it writes what Rich would write without importing Rich's console
(workbench/render/plain.py); to a terminal, Rich prints them.
"""

from __future__ import annotations

import builtins
import functools
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

WITH_RICH = "WORKBENCH_PRINT_WITH_RICH"
"""Set (to anything but empty) to print every block through Rich, as to a terminal but
without styles where Rich would print none (the tests compare the two ways)."""


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


def reading_console() -> ReadingConsole:
    return ReadingConsole()


class ReadingConsole:
    """console.print for blocks and str (as Rich's print(str, markup=False)), and .width:
    without Rich where the output is plain, else through an output_console()."""

    def __init__(self):
        self._rich: Console | None = None
        self._columns: str | None = None
        self._width: int | None = None  # set: this width, as Rich's console.width = N

    @property
    def rich(self) -> Console:
        """The Rich console (made when first needed: Rich reads $COLUMNS when it is made)."""
        if self._rich is None or self._columns != os.environ.get("COLUMNS"):
            self._rich, self._columns = output_console(), os.environ.get("COLUMNS")
            if self._width is not None:
                self._rich.width = self._width
        return self._rich

    @property
    def width(self) -> int:
        width = self._plain_width() if plain_output() else None
        return width if width is not None else self.rich.width

    @width.setter
    def width(self, width: int) -> None:
        self._width = width
        if self._rich is not None:
            self._rich.width = width

    def _plain_width(self) -> int | None:
        if self._width is not None:
            return self._width if self._width >= 1 else None
        return plain_width()

    def print(self, block, soft_wrap: bool = False) -> None:
        """Print a block, or a str literally (no markup): wrapped at the width unless soft_wrap."""
        text = self._plain(block, soft_wrap) if plain_output() else None
        if text is None:
            self._print_with_rich(block, soft_wrap)
        else:
            _write(text)

    def _plain(self, block, soft_wrap: bool) -> str | None:
        """What plain.py draws for `block`, or None where Rich is to print it."""
        from workbench.render import plain

        width = self._plain_width()
        if width is None or (soft_wrap and not isinstance(block, str)):
            return None
        try:
            return plain.render_str(block, width, soft_wrap) if isinstance(block, str) else plain.render(block, width)
        except plain.Unsupported:
            return None

    def _print_with_rich(self, block, soft_wrap: bool) -> None:
        if isinstance(block, str):
            self.rich.print(block, markup=False, soft_wrap=soft_wrap)
            return
        from workbench.render.rich_blocks import to_rich

        self.rich.print(to_rich(block), soft_wrap=soft_wrap)


def _write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()  # as Rich does after each print: a closed pipe shows here


def plain_output() -> bool:
    """Whether Rich would print to stdout without styles (not a terminal by its rules,
    rich/console.py is_terminal) in a way plain.py can match (a UTF encoding, as Rich's boxes
    need; not Jupyter or IDLE, not captured by a Live display)."""
    environ = os.environ
    file = sys.stdout
    if environ.get(WITH_RICH) or file is None or hasattr(file, "rich_proxied_file"):
        return False
    if hasattr(builtins, "get_ipython") or getattr(sys.stdin, "__module__", "").startswith("idlelib"):
        return False
    if not (getattr(file, "encoding", "utf-8") or "utf-8").lower().startswith("utf"):
        return False
    if environ.get("TTY_COMPATIBLE", "") in ("0", "1"):
        return environ["TTY_COMPATIBLE"] == "0"
    if environ.get("FORCE_COLOR") is not None:
        return environ["FORCE_COLOR"] == ""
    try:
        return not file.isatty()
    except (AttributeError, ValueError):
        return False  # let Rich decide what such a file is


def plain_width() -> int | None:
    """The width Rich's console takes (rich/console.py size): $COLUMNS, else the first std
    stream that is a terminal, else 80; None where Rich would take a width below 1."""
    columns = os.environ.get("COLUMNS")
    if columns is not None and columns.isdigit():
        return int(columns) if int(columns) >= 1 else None
    width = None
    for descriptor in (0, 1, 2):
        try:
            width = os.get_terminal_size(descriptor).columns
        except (AttributeError, ValueError, OSError):
            continue
        break
    return width or 80
