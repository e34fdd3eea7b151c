"""Generate a big workbench database for the TUI benchmark: N synthetic claims, one evidence
passage each, written straight through SQL in big transactions (FTS kept by the schema's
triggers). The file is cached under bench/out/ and reused when it already holds N claims.

    python bench/make_big_db.py --claims 1000000
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from store import Store  # noqa: E402

OUT = ROOT / "bench" / "out"
BATCH = 50_000
LABELS = ["Supported", "Refuted", "NotEnoughInfo"]
IMPORTANCE = ["Main", "Sub", "Irrelevant"]
TASKS = ["KV", "RD", "EV"]
DOMAINS = ["health", "politics", "science", "sports", "technology", "economy", "climate"]
SUBJECTS = ["The city council", "A new study", "The central bank", "The vaccine trial", "The bridge",
            "The company", "The minister", "The marathon", "The satellite", "The river authority",
            "The school board", "The hospital", "The museum", "The railway", "The wind farm"]
VERBS = ["reported", "announced", "denied", "confirmed", "estimated", "claimed", "revealed", "projected"]
OBJECTS = ["a rise of", "a fall of", "savings of", "losses of", "growth of", "a shortfall of"]
UNITS = ["percent", "million euros", "thousand people", "kilometres", "tonnes", "days"]


def default_path(claims: int) -> Path:
    return OUT / f"big-{claims}.db"


def claim_text(rng: random.Random, n: int) -> str:
    return (f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} {rng.randint(2, 99)}"
            f" {rng.choice(UNITS)} in {rng.randint(1990, 2025)} (item {n})")


def rows(rng: random.Random, start: int, stop: int, dataset_id: int):
    claims, evidence = [], []
    for n in range(start, stop):
        text = claim_text(rng, n)
        claims.append((n, dataset_id, f"b-{n:07d}", text, LABELS[n % 3], LABELS[n % 3],
                       f"2024-{n % 12 + 1:02d}-{n % 28 + 1:02d}", IMPORTANCE[n % 3], TASKS[n % 3],
                       DOMAINS[n % 7], "{}", f"h{n}"))
        passage = f"According to the report, {text.lower()}. Officials said the figures were provisional."
        evidence.append((n, "passage", 0, f"https://example.org/{n}", f"Report {n}", passage, 1))
    return claims, evidence


def existing_claims(path: Path) -> int:
    try:
        with sqlite3.connect(path) as conn:
            return conn.execute("SELECT count(*) FROM claims").fetchone()[0]
    except sqlite3.Error:
        return -1


def build(path: Path, total: int, seed: int = 7) -> None:
    """Write `total` claims into a fresh database at `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    Store.open(path).close()  # the schema, by the real migrations
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute("PRAGMA cache_size = -200000")
    dataset_id = conn.execute(
        "INSERT INTO datasets (name, source_format, label_space, labels, excluded_labels, imported_at)"
        " VALUES ('big', 'jsonl', 'jsfactcheck', ?, '[]', '2025-01-01T00:00:00Z')",
        [json.dumps(LABELS)]).lastrowid
    conn.commit()
    rng = random.Random(seed)
    started = time.perf_counter()
    for start in range(1, total + 1, BATCH):
        stop = min(start + BATCH, total + 1)
        claims, evidence = rows(rng, start, stop, dataset_id)
        with conn:
            conn.executemany(
                "INSERT INTO claims (id, dataset_id, external_id, text, label, raw_label, claim_date,"
                " importance, task, domain, attributes, content_hash) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", claims)
            conn.executemany(
                "INSERT INTO evidence (claim_id, kind, rank, url, title, text, is_cited)"
                " VALUES (?,?,?,?,?,?,?)", evidence)
        print(f"  {stop - 1:,} claims ({time.perf_counter() - started:.0f} s)", flush=True)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("ANALYZE")
    conn.close()


def ensure(claims: int, path: Path | None = None) -> Path:
    """The cached database with `claims` claims, built if missing."""
    path = path or default_path(claims)
    if existing_claims(path) == claims:
        return path
    print(f"building {path} with {claims:,} claims…", flush=True)
    started = time.perf_counter()
    build(path, claims)
    print(f"built in {time.perf_counter() - started:.0f} s", flush=True)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=1_000_000)
    parser.add_argument("--out", type=Path, default=None, help="database file (default bench/out/big-N.db)")
    args = parser.parse_args()
    print(ensure(args.claims, args.out))


if __name__ == "__main__":
    main()
