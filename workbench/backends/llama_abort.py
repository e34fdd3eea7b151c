"""Stopping llama.cpp mid-computation when a run is cancelled.

Cancelling the asyncio task of a local model's call cannot stop its thread: llama.cpp goes
on reading the prompt and writing the answer (10-20 s for a long one here), and a process
ending on Ctrl-C waits for that thread. llama.cpp checks an abort callback between the
steps (graph nodes) of every computation, the prompt's and each token's alike: once it
says stop, llama_decode returns 2 within milliseconds (llama-cpp-python raises
RuntimeError), the context drops the half-computed batch, and the model serves the next
call as before.

The callback is a C function, not a Python one: llama.cpp calls it hundreds of times per
token, and a Python callback would need the GIL each time (a busy UI thread would slow
generation to a crawl). libc's strlen does the job: on a two-byte buffer (flag, NUL) it
gives 0 until the flag is set, then 1, which is the bool llama.cpp reads.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
from contextlib import contextmanager
from typing import Any

_LLAMA_LOG = logging.getLogger("llama-cpp-python")
_reader: list = []  # [callback or None], made once: the C function pointer must stay alive


class AbortFlag:
    """One run's stop sign, read by llama.cpp itself (no Python in between)."""

    def __init__(self):
        self._byte = ctypes.create_string_buffer(2)
        self._log_level: int | None = None

    def set(self) -> None:
        # llama.cpp logs the dropped batch at error level; llama-cpp-python prints that on
        # stderr, under the progress bar or over the TUI. A cancelled call has nothing to say.
        if self._log_level is None:
            self._log_level = _LLAMA_LOG.level
            _LLAMA_LOG.setLevel(logging.CRITICAL)
        self._byte[0] = b"\x01"

    def call_ended(self) -> None:
        """The aborted call has returned: llama.cpp's own messages may show again."""
        if self._log_level is not None:
            _LLAMA_LOG.setLevel(self._log_level)

    @property
    def is_set(self) -> bool:
        return self._byte[0] != b"\x00"

    @property
    def address(self) -> int:
        return ctypes.addressof(self._byte)


@contextmanager
def abortable(model: Any, flag: AbortFlag):
    """While one call runs on `model` (a llama_cpp.Llama; its lock held): llama.cpp stops
    within a step once `flag` is set. Without a C library to read the flag, calls run whole."""
    import llama_cpp

    reader = _flag_reader()
    if reader is None:
        yield
        return
    llama_cpp.llama_set_abort_callback(model._ctx.ctx, reader, flag.address)
    try:
        yield
    finally:
        llama_cpp.llama_set_abort_callback(model._ctx.ctx, llama_cpp.ggml_abort_callback(0), None)
        flag.call_ended()


def _flag_reader():
    """strlen as a ggml_abort_callback (see the module's docstring), or None."""
    if not _reader:
        import llama_cpp

        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c"))
            _reader.append(ctypes.cast(libc.strlen, llama_cpp.ggml_abort_callback))
        except (OSError, AttributeError, TypeError):
            _reader.append(None)
    return _reader[0]
