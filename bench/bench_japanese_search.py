"""Search inside Japanese text (issue 32) on 1,000,000 claims, a third of them Japanese.

The database is built once with the schema as it was before m018 (the word index only) and
kept under /tmp; a copy is then opened by the workbench, which upgrades it (m018, the trigram
index, with its progress lines) and is kept too. Printed: how long each took, the search
indexes' sizes before and after, and for each query the first page (50 claims, as the
browser and `workbench claims` read it) and the count (the browser's status line), median of
REPEATS runs, beside a bare SQL statement doing the same search on the same data.

Queries: a 2-character Japanese word (東京, in about 1 Japanese claim in 7), a 4-character one
(年金制度), an English word (vaccine, the baseline), and a rare 2-character word (鳥取, in
about 1 Japanese claim in 5,000: the worst case of the scan that answers two characters).
Goal: the Japanese first pages within 2x the English word's.

    .venv/bin/python bench/bench_japanese_search.py [--claims 1000000] [--folder /tmp/i32-search-bench]
"""

from __future__ import annotations

import argparse
import random
import shutil
import sqlite3
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.make_big_db import LABELS, claim_text  # noqa: E402 (after the path is set)
from store import PageRequest, Store  # noqa: E402

REPEATS = 15
BATCH = 50_000
JA_SUBJECTS = [
    "政府",
    "厚生労働省",
    "東京都",
    "大阪府",
    "首相",
    "国会議員",
    "研究チーム",
    "気象庁",
    "日本銀行",
    "文部科学省",
    "市議会",
    "警察庁",
    "専門家の会議",
    "地方自治体",
    "製薬会社",
]
JA_TOPICS = [
    "消費税",
    "年金制度",
    "新型コロナウイルス",
    "地震対策",
    "少子化",
    "電気料金",
    "最低賃金",
    "原子力発電所",
    "東京タワー",
    "オリンピック",
    "水道水",
    "マイナンバーカード",
]
JA_VERBS = [
    "を引き上げると発表した",
    "について調査を始めた",
    "の影響を否定した",
    "に関する報告書を公表した",
    "を見直す方針を示した",
    "は安全だと述べた",
    "の予算を増やした",
    "が原因だと主張した",
]
JA_TIMES = ["2024年", "昨年", "先月", "今年の春", "去年の秋", "10年前"]


def japanese(rng: random.Random, n: int) -> str:
    place = "鳥取県で" if rng.random() < 0.0002 else ""
    return (
        f"{rng.choice(JA_TIMES)}、{place}{rng.choice(JA_SUBJECTS)}は{rng.choice(JA_TOPICS)}"
        f"{rng.choice(JA_VERBS)}。数字は{rng.randint(2, 99)}%とされる（項目{n}）。"
    )


def english(rng: random.Random, n: int) -> str:
    """An English claim as the big database's (bench/make_big_db.py) are made."""
    return claim_text(rng, n)


def build_old(path: Path, claims: int) -> float:
    """The database as the previous version made it (no trigram index); seconds taken."""
    from store.connection import open_database
    from store.migrations import apply_migrations

    begun = time.perf_counter()
    db = open_database(path)
    apply_migrations(db, stop_before="m018_substring_search")
    db.close()
    conn = sqlite3.connect(path)
    conn.execute(
        "INSERT INTO datasets (id, name, source_format, label_space, labels, imported_at)"
        " VALUES (1, 'bench', 'jsonl', 'jsfactcheck', '[]', '2026-12-01')"
    )
    rng = random.Random(32)
    for start in range(1, claims + 1, BATCH):
        rows = [
            (n, f"b-{n:07d}", japanese(rng, n) if n % 3 == 0 else english(rng, n), LABELS[n % 3], f"h{n}")
            for n in range(start, min(start + BATCH, claims + 1))
        ]
        conn.executemany(
            "INSERT INTO claims (id, dataset_id, external_id, text, label, content_hash) VALUES (?, 1, ?, ?, ?, ?)",
            rows,
        )
        conn.commit()
    conn.execute("VACUUM")
    conn.close()
    return time.perf_counter() - begun


def index_sizes(path: Path) -> dict[str, int]:
    """Bytes of each search index's tables (FTS5 keeps an index in shadow tables name_*)."""
    conn = sqlite3.connect(path)
    sizes = {}
    for index in ("claims_fts", "claims_trigram"):
        row = conn.execute(
            "SELECT sum(pgsize) FROM dbstat WHERE name LIKE ? ESCAPE '\\'", [index.replace("_", "\\_") + "\\_%"]
        ).fetchone()
        sizes[index] = row[0] or 0
    conn.close()
    return sizes


def median_ms(action) -> float:
    action()  # warm the page cache
    times = []
    for _ in range(REPEATS):
        begun = time.perf_counter()
        action()
        times.append((time.perf_counter() - begun) * 1000)
    return statistics.median(times)


QUERIES = [
    # name, filter, the bare page, the bare count (same search, plain SQL)
    (
        "English word",
        "vaccine",
        (
            "SELECT id, text FROM claims WHERE id IN (SELECT rowid FROM claims_fts WHERE claims_fts MATCH '\"vaccine\"')"
            " ORDER BY id LIMIT 50"
        ),
        "SELECT count(*) FROM claims_fts WHERE claims_fts MATCH '\"vaccine\"'",
    ),
    (
        "Japanese, 2 characters",
        "東京",
        "SELECT id, text FROM claims WHERE text LIKE '%東京%' ORDER BY id LIMIT 50",
        "SELECT count(*) FROM claims WHERE text LIKE '%東京%'",
    ),
    (
        "Japanese, 4 characters",
        "年金制度",
        "SELECT id, text FROM claims WHERE text LIKE '%年金制度%' ORDER BY id LIMIT 50",
        "SELECT count(*) FROM claims WHERE text LIKE '%年金制度%'",
    ),
    (
        "Japanese, 2 characters, rare",
        "鳥取",
        "SELECT id, text FROM claims WHERE text LIKE '%鳥取%' ORDER BY id LIMIT 50",
        "SELECT count(*) FROM claims WHERE text LIKE '%鳥取%'",
    ),
]


def measure(path: Path) -> None:
    store = Store.open(path)
    bare = sqlite3.connect(path)
    print(
        f"{'query':32} {'matches':>8} {'page ms':>8} {'bare ms':>8} {'ratio':>6}"
        f" {'count ms':>9} {'bare ms':>8} {'ratio':>6} {'page / English':>15}"
    )
    english_page = None
    for name, text, page_sql, count_sql in QUERIES:
        rows = store.claims.page(PageRequest(filter=text, limit=50))
        assert [r.id for r in rows] == [r[0] for r in bare.execute(page_sql)], name
        matches = store.claims.count(text)
        assert matches == bare.execute(count_sql).fetchone()[0], name
        page = median_ms(lambda text=text: store.claims.page(PageRequest(filter=text, limit=50)))
        bare_page = median_ms(lambda sql=page_sql: bare.execute(sql).fetchall())
        count = median_ms(lambda text=text: store.claims.count(text))
        bare_count = median_ms(lambda sql=count_sql: bare.execute(sql).fetchone())
        english_page = english_page or page
        print(
            f"{name + ' ' + text:32} {matches:8,} {page:8.2f} {bare_page:8.2f} {page / bare_page:6.2f}"
            f" {count:9.1f} {bare_count:8.1f} {count / bare_count:6.2f} {page / english_page:14.2f}x"
        )
    # The 4-character query as the trigram index answers it, bare: what the workbench does.
    trigram = (
        "SELECT id, text FROM claims WHERE id IN (SELECT rowid FROM claims_trigram"
        " WHERE claims_trigram MATCH '\"年金制度\"') ORDER BY id LIMIT 50"
    )
    print(f"bare trigram page for 年金制度: {median_ms(lambda: bare.execute(trigram).fetchall()):.2f} ms")
    store.close()
    bare.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=1_000_000)
    parser.add_argument("--folder", type=Path, default=Path("/tmp/i32-search-bench"))
    args = parser.parse_args()
    args.folder.mkdir(parents=True, exist_ok=True)
    old, new = args.folder / f"old-{args.claims}.db", args.folder / f"new-{args.claims}.db"
    if not old.exists():
        seconds = build_old(old.with_suffix(".part"), args.claims)
        old.with_suffix(".part").rename(old)
        print(f"built {old} ({args.claims:,} claims, a third Japanese) in {seconds:.1f} s")
    else:
        print(f"reusing {old}")
    if not new.exists():
        shutil.copy(old, new.with_suffix(".part"))
        begun = time.perf_counter()
        Store.open(new.with_suffix(".part")).close()  # the upgrade, m018, says how far it has got
        new.with_suffix(".part").rename(new)
        print(f"upgraded a copy (m018, the trigram index) in {time.perf_counter() - begun:.1f} s")
    else:
        print(f"reusing {new}")
    before, after = index_sizes(old), index_sizes(new)
    print(f"file size: before {old.stat().st_size / 2**20:,.0f} MiB, after {new.stat().st_size / 2**20:,.0f} MiB")
    print(
        f"word index (claims_fts): {before['claims_fts'] / 2**20:,.0f} MiB; trigram index (claims_trigram):"
        f" before {before['claims_trigram'] / 2**20:,.0f} MiB, after {after['claims_trigram'] / 2**20:,.0f} MiB"
    )
    measure(new)


if __name__ == "__main__":
    main()
