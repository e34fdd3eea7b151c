"""`python -m workbench.tui --db FILE`: the workbench without the CLI (what `workbench serve` runs in each browser tab)."""

from __future__ import annotations

import argparse
import os

from workbench.tui import run_workbench


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m workbench.tui", description=__doc__)
    parser.add_argument("--db", default=os.environ.get("WORKBENCH_DB") or "workbench.db",
                        help="SQLite database file (default: $WORKBENCH_DB, else ./workbench.db)")
    parser.add_argument("--annotator", help="Who you are on labels (default: the config's annotator, else your"
                                            " login name)")
    args = parser.parse_args(argv)
    from store import DatabaseProblem
    from workbench.errors import WorkbenchError

    try:
        status = run_workbench(args.db, args.annotator)
    except (DatabaseProblem, WorkbenchError) as problem:
        parser.exit(1, f"Error: {problem}\n")
    raise SystemExit(status)


if __name__ == "__main__":
    main()
