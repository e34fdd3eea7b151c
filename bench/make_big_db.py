"""Generate a big workbench database for the benchmarks: N synthetic claims, one evidence
passage each, written straight through SQL in big transactions (FTS kept by the schema's
triggers), and optionally finished runs over the first claims. The file is cached under
bench/out/ and reused when it already holds what was asked for.

    python bench/make_big_db.py --claims 1000000
    python bench/make_big_db.py --claims 1000000 --runs 2 --predictions 300000 --accuracy 0.6

Runs are named big-a, big-b, ...; each answers its claims right with the chosen accuracy
(a wrong answer is one of the other labels), with 1% parse failures and 0.5% errors, each
run drawing on its own seed.
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
SUBJECTS = [
    "The city council",
    "A new study",
    "The central bank",
    "The vaccine trial",
    "The bridge",
    "The company",
    "The minister",
    "The marathon",
    "The satellite",
    "The river authority",
    "The school board",
    "The hospital",
    "The museum",
    "The railway",
    "The wind farm",
]
VERBS = ["reported", "announced", "denied", "confirmed", "estimated", "claimed", "revealed", "projected"]
OBJECTS = ["a rise of", "a fall of", "savings of", "losses of", "growth of", "a shortfall of"]
UNITS = ["percent", "million euros", "thousand people", "kilometres", "tonnes", "days"]


def default_path(claims: int) -> Path:
    return OUT / f"big-{claims}.db"


def claim_text(rng: random.Random, n: int) -> str:
    return (
        f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} {rng.randint(2, 99)}"
        f" {rng.choice(UNITS)} in {rng.randint(1990, 2025)} (item {n})"
    )


def rows(rng: random.Random, start: int, stop: int, dataset_id: int):
    claims, evidence = [], []
    for n in range(start, stop):
        text = claim_text(rng, n)
        claims.append(
            (
                n,
                dataset_id,
                f"b-{n:07d}",
                text,
                LABELS[n % 3],
                LABELS[n % 3],
                f"2024-{n % 12 + 1:02d}-{n % 28 + 1:02d}",
                IMPORTANCE[n % 3],
                TASKS[n % 3],
                DOMAINS[n % 7],
                "{}",
                f"h{n}",
            )
        )
        passage = f"According to the report, {text.lower()}. Officials said the figures were provisional."
        evidence.append((n, "passage", 0, f"https://example.org/{n}", f"Report {n}", passage, 1))
    return claims, evidence


def existing_claims(path: Path) -> int:
    try:
        with sqlite3.connect(path) as conn:
            return conn.execute("SELECT count(*) FROM claims").fetchone()[0]
    except sqlite3.Error:
        return -1


def run_names(runs: int) -> list[str]:
    return [f"big-{chr(ord('a') + n)}" for n in range(runs)]


def existing_runs(path: Path) -> dict[str, tuple[int, float]]:
    """name -> (predictions, params.accuracy) of the generated runs already there."""
    with sqlite3.connect(path) as conn:
        rows = conn.execute(
            "SELECT r.name, (SELECT count(*) FROM predictions p WHERE p.run_id = r.id),"
            " json_extract(r.params, '$.accuracy') FROM runs r WHERE r.name LIKE 'big-%'"
        )
        return {name: (n, accuracy) for name, n, accuracy in rows}


def add_runs(path: Path, runs: int, predictions: int, accuracy: float) -> None:
    """Replace the generated runs with `runs` finished runs over the first `predictions` claims."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute("PRAGMA cache_size = -200000")
    with conn:
        conn.execute("DELETE FROM runs WHERE name LIKE 'big-%'")
    dataset_id = conn.execute("SELECT id FROM datasets WHERE name = 'big'").fetchone()[0]
    claims = conn.execute("SELECT id, label FROM claims ORDER BY id LIMIT ?", [predictions]).fetchall()
    for n, name in enumerate(run_names(runs)):
        rng = random.Random(100 + n)
        started = time.perf_counter()
        with conn:
            run_id = conn.execute(
                "INSERT INTO runs (name, dataset_id, model, params, status, created_at, finished_at)"
                " VALUES (?, ?, 'synthetic', ?, 'finished', '2025-01-02T00:00:00Z', '2025-01-02T01:00:00Z')",
                [name, dataset_id, json.dumps({"accuracy": accuracy})],
            ).lastrowid
            conn.executemany(
                "INSERT INTO run_claims (run_id, claim_id, position) VALUES (?, ?, ?)",
                [(run_id, claim_id, i) for i, (claim_id, _) in enumerate(claims)],
            )
            conn.executemany(
                "INSERT INTO predictions (run_id, claim_id, status, verdict, raw_verdict, explanation, error,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (_answer(rng, run_id, claim_id, gold, accuracy, i) for i, (claim_id, gold) in enumerate(claims)),
            )
        print(f"  run {name}: {len(claims):,} predictions ({time.perf_counter() - started:.0f} s)", flush=True)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("ANALYZE")
    conn.close()


def _answer(rng: random.Random, run_id: int, claim_id: int, gold: str, accuracy: float, i: int) -> tuple:
    stamp = f"2025-01-02T00:{i // 60_000 % 60:02d}:{i // 1000 % 60:02d}.{i % 1000:03d}Z"
    draw = rng.random()
    if draw < 0.005:
        return (run_id, claim_id, "error", None, None, None, "HTTP 500 from the server", stamp)
    if draw < 0.015:
        return (run_id, claim_id, "parse_failure", None, "perhaps", None, None, stamp)
    verdict = gold if rng.random() < accuracy else rng.choice([label for label in LABELS if label != gold])
    return (run_id, claim_id, "ok", verdict, verdict, f"Because the report says so ({claim_id}).", None, stamp)


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
        [json.dumps(LABELS)],
    ).lastrowid
    conn.commit()
    rng = random.Random(seed)
    started = time.perf_counter()
    for start in range(1, total + 1, BATCH):
        stop = min(start + BATCH, total + 1)
        claims, evidence = rows(rng, start, stop, dataset_id)
        with conn:
            conn.executemany(
                "INSERT INTO claims (id, dataset_id, external_id, text, label, raw_label, claim_date,"
                " importance, task, domain, attributes, content_hash) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                claims,
            )
            conn.executemany(
                "INSERT INTO evidence (claim_id, kind, rank, url, title, text, is_cited) VALUES (?,?,?,?,?,?,?)",
                evidence,
            )
        print(f"  {stop - 1:,} claims ({time.perf_counter() - started:.0f} s)", flush=True)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("ANALYZE")
    conn.close()


def ensure(claims: int, path: Path | None = None, runs: int = 0, predictions: int = 0, accuracy: float = 0.6) -> Path:
    """The cached database with `claims` claims (and `runs` generated runs of `predictions`
    answers each), built or completed if missing."""
    path = path or default_path(claims)
    if existing_claims(path) != claims:
        print(f"building {path} with {claims:,} claims…", flush=True)
        started = time.perf_counter()
        build(path, claims)
        print(f"built in {time.perf_counter() - started:.0f} s", flush=True)
    wanted = {name: (min(predictions, claims), accuracy) for name in run_names(runs)}
    if runs and existing_runs(path) != wanted:
        print(f"adding {runs} runs of {min(predictions, claims):,} predictions…", flush=True)
        add_runs(path, runs, min(predictions, claims), accuracy)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=1_000_000)
    parser.add_argument("--out", type=Path, default=None, help="database file (default bench/out/big-N.db)")
    parser.add_argument("--runs", type=int, default=0, help="finished runs to add (big-a, big-b, ...)")
    parser.add_argument("--predictions", type=int, default=300_000, help="answers per run (the first claims)")
    parser.add_argument("--accuracy", type=float, default=0.6, help="share of right answers per run")
    args = parser.parse_args()
    print(ensure(args.claims, args.out, args.runs, args.predictions, args.accuracy))


if __name__ == "__main__":
    main()
