"""Which process runs a run: `host:pid` of the process that marked it running, and whether
that process (on this machine) is gone."""

from __future__ import annotations

import os


def this_process() -> str:
    """This process as a run's owner: host:pid."""
    return f"{_host()}:{os.getpid()}"


def _host() -> str:
    import socket  # only for runs marked running: listing finished runs needs no socket module

    return socket.gethostname()


def owner_gone(owner: str | None) -> bool:
    """True when the process that marked a run running, on this machine, no longer exists.

    A run owned by another machine (a shared file) is taken at its word.
    """
    if not owner:
        return False
    host, _, pid = owner.rpartition(":")
    if host != _host() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, someone else's
        return False
    return False
