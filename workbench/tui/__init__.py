"""The workbench's terminal UI (Textual). The only package that imports textual.

`run_workbench(db_path)` opens it; `python -m workbench.tui --db FILE` does the same
(and is what `textual serve "python -m workbench.tui --db FILE"` runs in a browser).
"""

from __future__ import annotations

from pathlib import Path


def run_workbench(db_path: str | Path) -> None:
    """Open the workbench on a database file (created and migrated if needed)."""
    from workbench.tui.app import WorkbenchApp

    WorkbenchApp(db_path).run()


__all__ = ["run_workbench"]
