"""First page of claims under a filter on the 1,000,000-claim database: the store's
keyset page (filter language -> SQL, FTS5) vs a bare sqlite3 query for the same rows.
Target: under 100 ms.

    .venv/bin/python bench/bench_store.py [--claims N]
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from make_big_db import default_path, existing_claims  # noqa: E402

from store import PageRequest, Store  # noqa: E402

FILTERS = [
    ("label + text term", 'label:Refuted "vaccine"'),
    ("label + rare text", 'label:Supported "satellite" importance:Main'),
    ("text prefix", "rail*"),
    ("no filter", ""),
    ("label + count-heavy text", 'label:Refuted "reported"'),
]
BARE_SQL = (
    "SELECT c.id, c.external_id, c.label, c.importance, c.task, c.domain, substr(c.text, 1, 240)"
    " FROM claims c WHERE c.label = ? AND c.id IN (SELECT rowid FROM claims_fts WHERE claims_fts MATCH ?)"
    " ORDER BY c.id LIMIT 100"
)


def timed(fn, repeats: int = 7) -> float:
    """Median milliseconds of `repeats` calls (after one warm-up call)."""
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--claims", type=int, default=1_000_000)
    args = parser.parse_args()
    path = default_path(args.claims)
    if existing_claims(path) != args.claims:
        sys.exit(f"build the database first: .venv/bin/python bench/make_big_db.py --claims {args.claims}")
    store = Store.open(path)
    print(f"database: {path.name} ({args.claims:,} claims)")
    for name, text in FILTERS:
        ms = timed(lambda text=text: store.claims.page(PageRequest(filter=text, limit=100)))
        print(f"first page, {name:26s} {text!r:48s} {ms:7.1f} ms")
    bare = sqlite3.connect(path)
    bare_ms = timed(lambda: bare.execute(BARE_SQL, ["Refuted", '"vaccine"']).fetchall())
    ours_ms = timed(lambda: store.claims.page(PageRequest(filter='label:Refuted "vaccine"', limit=100)))
    print(
        f"bare sqlite3, same rows (label + text term): {bare_ms:.1f} ms;"
        f" workbench page {ours_ms:.1f} ms; ratio {ours_ms / bare_ms:.2f}x (target < 100 ms)"
    )
    count_ms = timed(lambda: store.claims.count('label:Refuted "vaccine"'), repeats=3)
    print(f"count for the same filter (done in a worker in the TUI): {count_ms:.1f} ms")


if __name__ == "__main__":
    main()
