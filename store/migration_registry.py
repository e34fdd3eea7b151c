"""The list the numbered migrations register in (store/migrations.py, then
store/migrations_later.py), in the order they are defined and applied.

Registering needs nothing but this list: opening a database compares its applied migrations
with it using sqlite3 alone, and sqlite-utils' Migrations (which applies them and keeps the
`_sqlite_migrations` table) is made from it only when there is something to apply.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlite_utils import Migrations

from store.schema_check import MIGRATION_SET

REGISTERED: list[Callable] = []
KNOWN: list[str] = []
"""Every migration this version has, in order."""


def migration(function):
    """Register the next numbered migration (add a new one after the last registered)."""
    REGISTERED.append(function)
    KNOWN.append(function.__name__)
    return function


@functools.cache
def workbench_migrations() -> Migrations:
    """sqlite-utils' Migrations holding every registered migration, in order."""
    from sqlite_utils import Migrations

    migrations = Migrations(MIGRATION_SET)
    for function in REGISTERED:
        migrations()(function)
    return migrations
