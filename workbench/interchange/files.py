"""Files the interchange exporters write whole under a temporary name, then move in."""

from __future__ import annotations

import os
from pathlib import Path


def as_a_new_file(path: Path | str) -> None:
    """Give `path` the mode a newly created file gets (0666 less the umask), as the other
    exporters' files have: mkstemp makes its files 0600, readable by their owner alone."""
    mask = os.umask(0)  # reading the umask means setting it: put it straight back
    os.umask(mask)
    os.chmod(path, 0o666 & ~mask)
