"""Imports of files in other shapes, through a field mapping, at scale (issue 12):

1. 1,000,000 rows from JSONL and from Parquet, mapped on the command line's way
   (--map id=uid --map claim=statement ...), as a ratio to a bare sqlite-utils insert_all of
   the same rows into plain tables, in the same run                     [target >= 0.5]
2. peak RSS of a whole process importing a 1 GB JSONL file               [target < 500 MB]
3. 100,000 predictions imported as a run                                 [target < 10 s]

  .venv/bin/python bench/bench_import_formats.py [--rows 1000000] [--gigabytes 1.0]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import sqlite_utils

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from store import Store  # noqa: E402
from workbench.importers import ImportRequest, run_import  # noqa: E402
from workbench.importers.predictions import PredictionRequest, import_predictions  # noqa: E402

MAPS = [
    "id=uid",
    "claim=statement",
    "label=verdict",
    "domain=meta.topic",
    "claim_date=meta.date",
    "evidence=sources[]",
    "evidence.url=link",
    "evidence.text=snippet",
]
VERDICTS = ["Supported", "Refuted", "NotEnoughInfo"]
WORDS = (
    "harbour ferry council vaccine bridge tide budget stadium rocket river school clinic festival railway "
    "museum drought satellite election"
).split()


def record(i: int, rng: random.Random, padding: int = 0) -> dict:
    words = " ".join(rng.choice(WORDS) for _ in range(14))
    return {
        "uid": f"u{i}",
        "statement": f"Statement {i}: the {words}.",
        "verdict": rng.choice(VERDICTS),
        "meta": {
            "topic": rng.choice(WORDS),
            "date": f"20{rng.randint(10, 25)}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}",
        },
        "sources": [{"link": f"https://example.org/{i}", "snippet": (words + " ") * (3 + padding)}],
    }


def write_jsonl(path: Path, rows: int, padding: int = 0) -> None:
    rng = random.Random(11)
    with path.open("w", encoding="utf-8") as out:
        for i in range(rows):
            out.write(json.dumps(record(i, rng, padding)) + "\n")


def write_parquet(path: Path, rows: int) -> None:
    rng = random.Random(11)
    writer = None
    for start in range(0, rows, 100_000):
        table = pa.Table.from_pylist([record(i, rng) for i in range(start, min(rows, start + 100_000))])
        writer = writer or pq.ParquetWriter(path, table.schema)
        writer.write_table(table)
    writer.close()


def timed_import(path: Path, db_path: Path) -> float:
    store = Store.open(db_path)
    started = time.perf_counter()
    run_import(store, ImportRequest(path, maps=list(MAPS), label_space="jsfactcheck", dataset="bench"))
    elapsed = time.perf_counter() - started
    store.close()
    return elapsed


def bare_insert(db_path: Path, folder: Path) -> float:
    """sqlite-utils insert_all of the rows the workbench stored, into plain tables."""
    db = sqlite_utils.Database(db_path)
    claims, evidence = list(db["claims"].rows), list(db["evidence"].rows)
    db.close()
    target = sqlite_utils.Database(folder / "bare.db")
    started = time.perf_counter()
    with target.conn:
        target["claims"].insert_all(claims, batch_size=2000)
        target["evidence"].insert_all(evidence, batch_size=2000)
    elapsed = time.perf_counter() - started
    target.close()
    (folder / "bare.db").unlink()
    return elapsed


# The child's peak is read by a small process of its own: a child forked from this one (which
# holds a million rows by now) would count this process's pages in its own peak.
_PEAK_OF_CHILD = (
    "import os, subprocess, sys; child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL);"
    " _, status, usage = os.wait4(child.pid, 0); print(status, usage.ru_maxrss)"
)


def peak_rss_of_import(path: Path, db_path: Path) -> tuple[float, float]:
    """(seconds, peak RSS in MB) of `workbench import` of `path` as its own process."""
    command = [
        str(Path(sys.executable).with_name("workbench")),
        "--db",
        str(db_path),
        "import",
        str(path),
        "--label-space",
        "jsfactcheck",
        *[arg for pair in MAPS for arg in ("--map", pair)],
    ]
    started = time.perf_counter()
    output = subprocess.run(
        [sys.executable, "-c", _PEAK_OF_CHILD, *command], capture_output=True, text=True, check=True
    ).stdout
    status, peak_kb = map(int, output.split())
    if status != 0:
        raise RuntimeError(f"the import failed (status {status})")
    return time.perf_counter() - started, peak_kb / 1024


def predictions_import(folder: Path, db_path: Path, count: int) -> float:
    rng = random.Random(5)
    path = folder / "predictions.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for i in range(count):
            out.write(json.dumps({"id": f"u{i}", "prediction": rng.choice(VERDICTS), "rationale": "Because."}) + "\n")
    store = Store.open(db_path)
    started = time.perf_counter()
    report = import_predictions(store, PredictionRequest(path, "bench"))
    elapsed = time.perf_counter() - started
    assert report.matched == count
    store.close()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--gigabytes", type=float, default=1.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=ROOT / "bench") as name:
        folder = Path(name)
        for kind, writer in (("jsonl", write_jsonl), ("parquet", write_parquet)):
            source = folder / f"rows.{kind}"
            writer(source, args.rows)
            ours = timed_import(source, folder / f"{kind}.db")
            bare = bare_insert(folder / f"{kind}.db", folder)
            print(
                f"{kind:8} {args.rows:,} rows through a mapping: {ours:6.1f} s; bare insert_all of the same rows"
                f" {bare:6.1f} s; ratio {bare / ours:.2f}  [target >= 0.5]"
            )
            if kind == "jsonl":
                seconds = predictions_import(folder, folder / "jsonl.db", min(100_000, args.rows))
                print(f"predictions: {min(100_000, args.rows):,} imported as a run in {seconds:.1f} s  [target < 10 s]")
            (folder / f"{kind}.db").unlink()
            source.unlink()
        big = folder / "big.jsonl"
        rows = int(args.gigabytes * 1024**3 / 1100)
        write_jsonl(big, rows, padding=6)
        size = big.stat().st_size / 1024**3
        seconds, rss = peak_rss_of_import(big, folder / "big.db")
        print(
            f"a {size:.2f} GB JSONL ({rows:,} rows) imported by `workbench import` in {seconds:.0f} s,"
            f" peak RSS {rss:.0f} MB  [target < 500 MB]"
        )


if __name__ == "__main__":
    main()
