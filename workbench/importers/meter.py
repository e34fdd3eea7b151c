"""How far an import has got, for a progress line: records and bytes read of the file's
size, and a cancel the reader obeys between records (so nothing is written).

The reader thread only adds to counters; whoever draws the line reads them when it
likes (a few times a second), so watching costs the import next to nothing.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from workbench.errors import WorkbenchError

T = TypeVar("T")
CANCELLED = "import cancelled: nothing written"


class ImportCancelled(WorkbenchError):
    """The user cancelled the import before it was written: nothing was."""


@dataclass
class ReadMeter:
    """Records and bytes read so far of `total_bytes`, since `started` (time.monotonic)."""

    total_bytes: int = 0
    bytes_read: int = 0
    files_bytes: int = 0
    """The size of the files read to their end (bytes_read counts on from there)."""
    records: int = 0
    phase: str = "reading"
    """reading (the claims), labels (a first pass for the label space), writing (the index)."""
    started: float = field(default_factory=time.monotonic)
    cancel: threading.Event = field(default_factory=threading.Event)

    def measure(self, files: list[Path]) -> None:
        """The files to be read: their size is what an ETA counts down."""
        self.total_bytes = sum(_size(path) for path in files)

    def start_pass(self, phase: str) -> None:
        """A (new) pass over the file: the counters start again."""
        self.phase, self.bytes_read, self.files_bytes, self.records = phase, 0, 0, 0
        self.started = time.monotonic()

    def read(self, nbytes: int) -> None:
        self.bytes_read += nbytes

    def record(self) -> None:
        """One record read; stops the import here when the user has cancelled."""
        self.records += 1
        if self.cancel.is_set():
            raise ImportCancelled(CANCELLED)

    def to_the_end(self, items: Iterator[T]) -> Iterator[T]:
        """`items`, then a last look at the cancel before the store writes its index and commits."""
        yield from items
        if self.cancel.is_set():
            raise ImportCancelled(CANCELLED)

    def file_read(self, path: Path) -> None:
        """A file read to its end (Parquet and Arrow files count here, a whole file at a time)."""
        self.files_bytes += _size(path)
        self.bytes_read = self.files_bytes

    def finished_reading(self) -> None:
        self.bytes_read, self.phase = max(self.bytes_read, self.total_bytes), "writing"

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def eta_seconds(self) -> float | None:
        """Seconds left, by the share of bytes read (None until a little has been read)."""
        elapsed = self.elapsed
        if self.phase == "writing" or not self.total_bytes or self.bytes_read < self.total_bytes / 100 or elapsed < 0.5:
            return None
        return elapsed * (self.total_bytes - self.bytes_read) / self.bytes_read


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
