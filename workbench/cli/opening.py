"""Opening the database a command works on."""

from __future__ import annotations

from workbench.cli import UserError, current_db_path


def open_store(create: bool = False):
    """The store for this invocation; reading commands refuse to create an empty file."""
    from store import Store
    from store.problems import check_path

    path = current_db_path()
    check_path(path)  # a folder, a missing folder, no permission: said before "no database"
    if not create and not path.exists():
        raise UserError(f"no database at {path}; import a file first (workbench import FILE) or pass --db")
    return Store.open(path)


def require_dataset(store, name: str):
    """The dataset called `name`, or one line naming the datasets there are (said before any
    heavy import or model load, so a misspelled name answers at once)."""
    found = store.datasets.get(name)
    if found is None:
        names = ", ".join(d.name for d in store.datasets.list()) or "none; import one first"
        raise UserError(f"no dataset {name!r}; datasets: {names}")
    return found
