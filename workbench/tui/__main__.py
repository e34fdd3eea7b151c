"""`python -m workbench.tui --db FILE`: the workbench without the CLI (what `workbench serve` runs in each browser tab)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from workbench.tui import run_workbench


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m workbench.tui", description=__doc__)
    parser.add_argument(
        "--db",
        default=os.environ.get("WORKBENCH_DB") or "workbench.db",
        help="SQLite database file (default: $WORKBENCH_DB, else ./workbench.db)",
    )
    parser.add_argument(
        "--annotator", help="Who you are on labels (default: the config's annotator, else your login name)"
    )
    args = parser.parse_args(argv)
    from store import DatabaseProblem
    from store.problems import check_path, missing_database_text
    from workbench.errors import WorkbenchError

    path = Path(args.db)
    try:
        check_path(path)  # as `workbench tui`: a missing file is refused, never created
        if not path.exists():
            parser.exit(1, f"Error: {missing_database_text(path)}\n")
        status = run_workbench(path, args.annotator)
    except (DatabaseProblem, WorkbenchError) as problem:
        parser.exit(1, f"Error: {problem}\n")
    raise SystemExit(status)


if __name__ == "__main__":
    main()
