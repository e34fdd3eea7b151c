"""Import throughput: `workbench import` of 100,000 JSONL claims vs a bare sqlite-utils
insert_all of the same rows, in the same run. Target: at least 0.5 of the bare speed.

    .venv/bin/python bench/bench_import.py [--claims N]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

import sqlite_utils

from store import Store
from workbench.importers import import_file

LABELS = ["Supported", "Refuted", "NotEnoughInfo"]
WORDS = (
    "harbour ferry council vaccine bridge tide budget stadium rocket river school clinic "
    "festival railway museum drought satellite election"
).split()


def make_file(path: Path, n: int) -> None:
    rng = random.Random(7)
    with path.open("w", encoding="utf-8") as out:
        out.write(json.dumps({"_dataset": {"name": "bench", "label_space": "jsfactcheck"}}) + "\n")
        for i in range(n):
            words = " ".join(rng.choice(WORDS) for _ in range(14))
            record = {
                "id": f"c{i}",
                "claim": f"Claim {i}: the {words}.",
                "label": rng.choice(LABELS),
                "importance": rng.choice(["Main", "Sub", "Irrelevant"]),
                "domain": rng.choice(WORDS),
                "claim_date": f"20{rng.randint(10, 25)}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}",
                "evidence": [{"kind": "passage", "url": f"https://example.org/{i}", "text": words * 3}],
            }
            out.write(json.dumps(record) + "\n")


def stored_rows(db_path: Path) -> tuple[list[dict], list[dict]]:
    """The claim and evidence rows exactly as the workbench stored them."""
    db = sqlite_utils.Database(db_path)
    rows = list(db["claims"].rows), list(db["evidence"].rows)
    db.close()
    return rows


def bare_insert(claims: list[dict], evidence: list[dict], db_path: Path, schema: bool) -> float:
    """sqlite-utils insert_all of the same rows: into plain tables, or into our schema."""
    if schema:  # the same tables, indexes and FTS triggers, plus the dataset row
        store = Store.open(db_path)
        store.db.execute(
            "INSERT INTO datasets (id, name, source_format, label_space, labels, imported_at)"
            " VALUES (1, 'bench', 'jsonl', 'jsfactcheck', '[]', 'now')"
        )
        store.db.conn.commit()
        store.close()
    start = time.perf_counter()
    db = sqlite_utils.Database(db_path)
    with db.conn:
        db["claims"].insert_all(claims, batch_size=2000)
        db["evidence"].insert_all(evidence, batch_size=2000)
    db.close()
    return time.perf_counter() - start


def workbench_import(path: Path, db_path: Path) -> float:
    start = time.perf_counter()
    store = Store.open(db_path)
    import_file(store, path)
    store.close()
    return time.perf_counter() - start


def import_with_progress_drawn(path: Path, db_path: Path) -> float:
    """The same import as `workbench import` runs it in a terminal: read in a helper thread,
    the progress line updated and drawn (to a terminal-like buffer) as the command does."""
    import io

    from rich.console import Console

    import workbench.cli.import_progress as progress
    from workbench.importers import ImportRequest, run_import

    terminal = Console(file=io.StringIO(), force_terminal=True, width=80)

    def work(meter):
        store = Store.open(db_path)
        try:
            return run_import(store, ImportRequest(path), meter)
        finally:
            store.close()

    start = time.perf_counter()
    progress.import_with_progress(work, path.name, terminal)
    elapsed = time.perf_counter() - start
    assert "rows read" in terminal.file.getvalue()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--claims", type=int, default=100_000)
    parser.add_argument(
        "--rounds", type=int, default=3, help="Imports with and without the progress line, interleaved."
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        source = folder / "claims.jsonl"
        make_file(source, args.claims)
        ours = workbench_import(source, folder / "ours.db")
        ratios, cpu_ratios = [], []
        for round_ in range(args.rounds):  # interleaved: the machine's load drifts
            cpu = time.process_time()
            quiet = workbench_import(source, folder / f"quiet{round_}.db")
            cpu, quiet_cpu = time.process_time(), time.process_time() - cpu
            shown = import_with_progress_drawn(source, folder / f"shown{round_}.db")
            shown_cpu = time.process_time() - cpu
            ratios.append(shown / quiet)
            cpu_ratios.append(shown_cpu / quiet_cpu)
        claims, evidence = stored_rows(folder / "ours.db")
        plain = bare_insert(claims, evidence, folder / "plain.db", schema=False)
        schema = bare_insert(claims, evidence, folder / "schema.db", schema=True)
    n = args.claims
    print(f"claims: {n:,}, each with one evidence passage")
    print(f"workbench import (parse, validate, normalise, write, FTS): {ours:6.2f} s  {n / ours:8,.0f} claims/s")
    print(f"bare insert_all of the same rows, plain tables:            {plain:6.2f} s  {n / plain:8,.0f} claims/s")
    print(f"bare insert_all of the same rows, workbench schema + FTS:  {schema:6.2f} s  {n / schema:8,.0f} claims/s")
    print(f"ratio vs plain tables:       {plain / ours:.2f}  (target >= 0.5)")
    print(f"ratio vs the same schema:    {schema / ours:.2f}")
    ratio = statistics.median(ratios)
    cpu_ratio = statistics.median(cpu_ratios)
    print(
        "  the same in CPU time (all threads of this process; steadier when the machine is shared): "
        + ", ".join(f"{r:.3f}" for r in cpu_ratios)
    )
    print(f"progress cost in CPU time (median): {(cpu_ratio - 1) * 100:+.1f}%")
    print(
        f"import with its progress line drawn / without, {args.rounds} interleaved rounds: "
        + ", ".join(f"{r:.3f}" for r in ratios)
    )
    print(f"progress cost (median): {(ratio - 1) * 100:+.1f}% of the import's time  (target < 3%)")


if __name__ == "__main__":
    main()
