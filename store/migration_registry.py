"""The list the numbered migrations register in (store/migrations.py, then
store/migrations_later.py), in the order they are defined and applied."""

from __future__ import annotations

from sqlite_utils import Migrations

migrations = Migrations("workbench")
KNOWN: list[str] = []
"""Every migration this version has, in order."""


def migration(function):
    """Register the next numbered migration (and add its name to store/migration_names.py)."""
    KNOWN.append(function.__name__)
    return migrations()(function)
