"""Big runs at full scale (issue 15): 1,000,000 claims and two finished runs of 300,000
predictions each (bench/make_big_db.py --runs 2 --predictions 300000), every figure beside
a bare baseline measured in the same run.

  CLI, excluding start-up: a fresh process runs the command once (interpreter, imports,
  first connection: the start-up), then again on the clock; the whole process is shown too:
    workbench metrics big-a (1,000 resamples)             [< 300 ms]  vs the item-level bootstrap
    workbench compare big-a big-b                         [< 500 ms]  vs the item-level paired bootstrap
    a run's spending (time and tokens summed)                         vs the two queries before m019
    metrics and compare with --cluster question           [<= 1.5x]   vs the same commands unclustered
                                                                      (about 45,000 questions of 22 claims)
    a run's cluster numbers, texts coded once per value               vs SQL grouping the items by question
    workbench claims --where 'run:big-a wrong label:Refuted' --limit 100
                                                          [< 200 ms]  vs bare SQL for the page and count
  TUI in a real terminal (tmux, 100x30), keystroke to frame:
    filter `run:big-a wrong`, Enter to the first page     [< 200 ms]  vs the tmux floor, bare SQL
    `m` to the metrics of both runs with intervals        [< 300 ms]  vs the tmux floor, bare SQL
  Live update per arriving answer on a loaded 300,000-item run  [unchanged: 4-9 us]

    .venv/bin/python bench/bench_big_runs.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.make_big_db import ensure  # noqa: E402

WORKBENCH = str(Path(sys.executable).with_name("workbench"))
SESSION = "bench-big-runs"
WRONG = "('wrong', 'abstain', 'parse_failure')"
TIMED_COMMAND = """
import contextlib, io, sys, time
from workbench.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    main(sys.argv[1:], standalone_mode=False)  # start-up: everything the command imports
    started = time.{clock}()
    main(sys.argv[1:], standalone_mode=False)
print(time.{clock}() - started, file=sys.stderr)
"""


# A user's processes write and read bytecode caches, whatever this shell says.
def user_env() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


CLOCK = {"name": "perf_counter"}
"""--cpu: the commands' and the in-process figures' processor time (time.process_time, with
one BLAS thread), not the wall clock, which on a shared machine counts waiting for a core."""


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        clock = getattr(time, CLOCK["name"])
        started = clock()
        fn()
        times.append(clock() - started)
    return min(times)


# ---- the command line ---------------------------------------------------------------------


def command_seconds(db: Path, args: list[str], repeat: int) -> tuple[float, float]:
    """(median seconds of the command after start-up, median seconds of `workbench ...` as a
    whole process)."""
    inside, whole = [], []
    for _ in range(repeat):
        result = subprocess.run(
            [sys.executable, "-c", TIMED_COMMAND.format(clock=CLOCK["name"]), "--db", str(db), *args],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
            env=user_env(),
        )
        inside.append(float(result.stderr.strip().splitlines()[-1]))
        started = time.perf_counter()
        subprocess.run([WORKBENCH, "--db", str(db), *args], stdout=subprocess.DEVNULL, check=True, env=user_env())
        whole.append(time.perf_counter() - started)
    return statistics.median(inside), statistics.median(whole)


def item_level_bootstraps(db: Path, repeat: int) -> tuple[float, float]:
    """Seconds of the item-level bootstrap (1,000 resamples of accuracy and macro-F1) of
    big-a, and of the item-level paired bootstrap of big-a and big-b, alone."""
    from store import Store
    from workbench.metrics import accuracy, macro_f1, resampled_confusions_by_items
    from workbench.scoring.compare import _pairs
    from workbench.scoring.runs import read_items, scored_cells

    store = Store.open(db)
    a, b = read_items(store, "big-a"), read_items(store, "big-b")
    shape = (len(a.coder.classes), len(a.coder.columns))
    cells = scored_cells(a)

    def single():
        stack = resampled_confusions_by_items(cells, shape, 1000, 0)
        accuracy(stack), macro_f1(stack)

    pairs = _pairs(a, b)
    size = shape[0] * shape[1]
    joint = a.slots()[pairs.in_a] * size + b.slots()[pairs.in_b]

    def paired():  # the shared items resampled once, both runs counted on the draw
        stack = resampled_confusions_by_items(joint, (size, size), 1000, 0)
        for metric in (accuracy, macro_f1):
            metric(stack.sum(axis=2).reshape(1000, *shape)), metric(stack.sum(axis=1).reshape(1000, *shape))

    result = best(single, min(repeat, 2)), best(paired, min(repeat, 2))
    store.close()
    return result


def ensure_questions(conn: sqlite3.Connection, per_question: int = 22) -> int:
    """Give the big database's claims a question each (22 claims a question, as many a
    JSFactCheckBench question has), once: what --cluster question resamples."""
    if conn.execute("SELECT 1 FROM claims WHERE question IS NULL LIMIT 1").fetchone():
        with conn:
            conn.execute("UPDATE claims SET question = 'Question ' || (id / ?)", [per_question])
    return conn.execute("SELECT count(DISTINCT question) FROM claims").fetchone()[0]


SPENDING_BEFORE = (
    "SELECT count(*) FILTER (WHERE NOT cached), count(*) FILTER (WHERE cached),"
    " count(latency_s) FILTER (WHERE NOT cached), total(latency_s) FILTER (WHERE NOT cached),"
    " total(prompt_eval_tokens), total(prompt_eval_ms), total(eval_tokens), total(eval_ms)"
    " FROM predictions INDEXED BY predictions_run_outcome WHERE {answered}",
    "SELECT batched, total(tokens_in), total(tokens_out), total(tokens_cached)"
    " FROM predictions INDEXED BY predictions_run_outcome WHERE {answered} AND NOT cached GROUP BY batched",
)
"""A run's spending as it was summed before m019: two passes over the answers' rows."""


def spending_figure(db: Path, repeat: int) -> None:
    """store.usage.spending (one pass over the covering index) against the two queries it
    replaced, on big-a, in the same process."""
    from store import Store

    store = Store.open(db)
    run_id = store.runs.get("big-a").id
    answered = "run_id = ? AND status IN ('ok', 'abstain', 'parse_failure')"

    def before() -> None:
        for query in SPENDING_BEFORE:
            store.conn.execute(query.format(answered=answered), [run_id]).fetchall()

    old = best(before, repeat)
    new = best(lambda: store.usage.spending(run_id), repeat)
    store.close()
    print(
        f"spending of big-a (time and tokens)   {new * 1000:6.0f} ms   the two queries before m019 {old * 1000:6.0f} ms"
        f"   ratio {new / old:4.2f}x"
    )


def clustered_figures(db: Path, conn: sqlite3.Connection, repeat: int) -> None:
    """metrics and compare with --cluster question against the same commands unclustered."""
    questions = ensure_questions(conn)
    for args in (["metrics", "big-a"], ["compare", "big-a", "big-b"]):
        plain, clustered = [], []
        for _ in range(repeat):  # alternately, so that both sides of the ratio meet the same load
            plain.append(command_seconds(db, args, 1)[0])
            clustered.append(command_seconds(db, [*args, "--cluster", "question"], 1)[0])
        plain, clustered = statistics.median(plain), statistics.median(clustered)
        print(
            f"{' '.join(args):<18} --cluster question ({questions:,} questions)  {clustered * 1000:6.0f} ms"
            f"   unclustered {plain * 1000:6.0f} ms   ratio {clustered / plain:4.2f}x   [<= 1.5x]"
        )


def cluster_coding_figure(conn: sqlite3.Connection, run_id: int, repeat: int) -> None:
    """Big-a's items numbered by question as --cluster does it (the texts sent with the
    claims, coded once per distinct value) against the statement alone that would have SQL
    group the items by question and send each question once with its claim ids."""
    from workbench.scoring.cluster_codes import cluster_numbers_of
    from workbench.scoring.fields import parse_cluster

    field, join = (
        parse_cluster("question"),
        "FROM run_claims rc JOIN claims c ON c.id = rc.claim_id WHERE rc.run_id = ?",
    )

    def by_texts():
        text = conn.execute(f"SELECT group_concat(ifnull(c.question, ''), '\x1f') {join}", [run_id]).fetchone()[0]
        return cluster_numbers_of(field, text.split("\x1f"))

    def grouped():
        sql = f"SELECT c.question, count(*), group_concat(rc.claim_id) {join} GROUP BY c.question"
        return conn.execute(sql, [run_id]).fetchall()

    texts, groups = best(by_texts, repeat), best(grouped, repeat)
    print(
        f"big-a's cluster numbers from the texts {texts * 1000:5.0f} ms   the GROUP BY statement alone"
        f" {groups * 1000:5.0f} ms   ratio {texts / groups:4.2f}x"
    )


def bare_claims_page(conn: sqlite3.Connection, run_id: int) -> None:
    where = (
        f"c.id IN (SELECT p.claim_id FROM predictions p WHERE p.run_id = ? AND p.outcome IN {WRONG})"
        " AND c.label = 'Refuted'"
    )
    conn.execute(
        f"SELECT c.id, c.external_id, c.label, c.text FROM claims c WHERE {where} ORDER BY c.id LIMIT 100", [run_id]
    ).fetchall()
    conn.execute(f"SELECT count(*) FROM claims c WHERE {where}", [run_id]).fetchone()


# ---- the TUI in tmux ------------------------------------------------------------------------


def pane() -> str:
    return subprocess.run(["tmux", "capture-pane", "-p", "-t", SESSION], capture_output=True, text=True).stdout


def keys(*sequence: str, literal: bool = False) -> None:
    subprocess.run(["tmux", "send-keys", "-t", SESSION, *(["-l"] if literal else []), *sequence], check=True)


def wait_for(shown, limit: float = 60.0) -> float:
    started = time.perf_counter()
    while not shown(pane()):
        if time.perf_counter() - started > limit:
            raise RuntimeError(f"not shown after {limit} s:\n{pane()}")
        time.sleep(0.003)
    return time.perf_counter() - started


def first_row_id(text: str) -> int | None:
    for line in text.splitlines()[2:]:
        found = re.match(r"^\s+(\d+) \S", line)
        if found:
            return int(found.group(1))
    return None


def metrics_ready(text: str) -> bool:
    """Both runs' columns with accuracy and macro-F1 intervals, nothing still updating."""
    return (
        "macro-F1" in text
        and "updating" not in text
        and "big-b" in text
        and len(re.findall(r"\[\d\.\d{3}, \d\.\d{3}\]", text)) >= 4
    )


def tmux_floor(repeat: int) -> float:
    """A keystroke to its echo in a plain shell pane: what the harness itself costs."""
    subprocess.run(["tmux", "kill-session", "-t", SESSION], stderr=subprocess.DEVNULL)
    subprocess.run(["tmux", "new-session", "-d", "-s", SESSION, "-x", "100", "-y", "30", "cat"], check=True)
    times = []
    for n in range(repeat):
        keys(f"x{n}y", literal=True)
        started = time.perf_counter()
        keys("Enter")
        times.append(started - started + wait_for(lambda text, n=n: f"x{n}y" in text))
    subprocess.run(["tmux", "kill-session", "-t", SESSION], stderr=subprocess.DEVNULL)
    return statistics.median(times)


def tui_figures(db: Path, repeat: int) -> tuple[list[float], list[float]]:
    """(filter Enter -> first page, m -> metrics with intervals) keystroke-to-frame seconds."""
    subprocess.run(["tmux", "kill-session", "-t", SESSION], stderr=subprocess.DEVNULL)
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", SESSION, "-x", "100", "-y", "30", f"{WORKBENCH} --db {db} tui"], check=True
    )
    try:
        wait_for(lambda text: re.search(r"[\d,]+ of [\d,]+ claims", text) is not None)
        filters, metrics = [], []
        for n in range(repeat + 1):  # the first round warms the page cache
            for text, first in (("", 1), ("run:big-a wrong", 2)):
                keys("/")
                time.sleep(0.3)  # the filter bar takes focus
                keys("C-u")
                if text:
                    keys(text, literal=True)
                started = time.perf_counter()
                keys("Enter")
                wait_for(lambda screen, first=first: first_row_id(screen) == first)
                if text and n:
                    filters.append(time.perf_counter() - started)
            keys("Escape")  # leave the filter bar for the table
            time.sleep(0.3)
            started = time.perf_counter()
            keys("m")
            wait_for(metrics_ready)
            if n:
                metrics.append(time.perf_counter() - started)
            keys("Escape")
            wait_for(lambda screen: "filter›" in screen)
            time.sleep(0.3)
        return filters, metrics
    finally:
        subprocess.run(["tmux", "kill-session", "-t", SESSION], stderr=subprocess.DEVNULL)


def bare_grouped_counts(conn: sqlite3.Connection, run_ids: list[int]) -> None:
    for run_id in run_ids:
        conn.execute(
            "SELECT c.label, c.importance, p.status, p.verdict, count(*) FROM predictions p"
            " JOIN claims c ON c.id = p.claim_id WHERE p.run_id = ? GROUP BY 1, 2, 3, 4",
            [run_id],
        ).fetchall()


# ---- live updates ---------------------------------------------------------------------------


def live_update_microseconds(db: Path) -> tuple[float, float]:
    """(µs per arriving answer on a run loaded in bulk, µs per record on counters built
    one record at a time, the way every update was counted before)."""
    from store import Store
    from workbench.metrics import LiveMetrics
    from workbench.scoring.live import LiveRun
    from workbench.scoring.runs import parse_fields, read_items

    store = Store.open(db)
    live = LiveRun(read_items(store, "big-a", parse_fields(["importance"])))
    store.close()
    items = live.items
    rng = np.random.default_rng(0)
    positions = rng.integers(0, len(items), size=2000)
    changes = [(int(items.claim_ids[p]), int((items.outcome[p] + 1) % 3)) for p in positions]
    started = time.perf_counter()
    for change in changes:
        live.apply([change])
    loaded = (time.perf_counter() - started) / len(changes) * 1e6
    counters = LiveMetrics(items.space.labels, items.space.abstain, ("importance",))
    labels = items.space.labels
    for i in range(20_000):
        counters.record(i, labels[i % 3], labels[(i + 1) % 3], {"importance": "Main"})
    started = time.perf_counter()
    for n, i in enumerate(rng.integers(0, 20_000, size=2000).tolist()):
        counters.record(i, labels[i % 3], labels[n % 3], {"importance": "Main"})
    single = (time.perf_counter() - started) / 2000 * 1e6
    return loaded, single


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--clustered-only", action="store_true", help="only the --cluster figures")
    parser.add_argument("--cpu", action="store_true", help="processor time (one BLAS thread), not wall time")
    args = parser.parse_args()
    if args.cpu:  # the commands, started after this, inherit it
        os.environ["OMP_NUM_THREADS"] = os.environ["OPENBLAS_NUM_THREADS"] = "1"
        CLOCK["name"] = "process_time"
    db = ensure(1_000_000, runs=2, predictions=300_000, accuracy=0.6)
    repeat = args.repeat
    conn = sqlite3.connect(db)
    run_ids = [conn.execute("SELECT id FROM runs WHERE name = ?", [name]).fetchone()[0] for name in ("big-a", "big-b")]

    if args.clustered_only:
        spending_figure(db, repeat)
        cluster_coding_figure(conn, run_ids[0], repeat)
        clustered_figures(db, conn, repeat)
        return
    single, paired = item_level_bootstraps(db, repeat)
    inside, whole = command_seconds(db, ["metrics", "big-a"], repeat)
    print(
        f"metrics big-a (1,000 resamples)   {inside * 1000:6.0f} ms after start-up ({whole * 1000:.0f} ms whole)"
        f"   item-level bootstrap alone {single * 1000:6.0f} ms   ratio {single / inside:6.1f}x   [< 300 ms]"
    )
    inside, whole = command_seconds(db, ["compare", "big-a", "big-b"], repeat)
    print(
        f"compare big-a big-b               {inside * 1000:6.0f} ms after start-up ({whole * 1000:.0f} ms whole)"
        f"   item-level paired bootstrap alone {paired * 1000:6.0f} ms   ratio {paired / inside:6.1f}x   [< 500 ms]"
    )
    spending_figure(db, repeat)
    cluster_coding_figure(conn, run_ids[0], repeat)
    clustered_figures(db, conn, repeat)
    bare = best(lambda: bare_claims_page(conn, run_ids[0]), repeat)
    inside, whole = command_seconds(
        db, ["claims", "--where", "run:big-a wrong label:Refuted", "--limit", "100"], repeat
    )
    print(
        f"claims --where 'run:big-a wrong label:Refuted' --limit 100   {inside * 1000:6.0f} ms after start-up"
        f" ({whole * 1000:.0f} ms whole)   bare SQL page + count {bare * 1000:5.0f} ms   ratio"
        f" {inside / bare:5.1f}x   [< 200 ms]"
    )

    loaded, one_by_one = live_update_microseconds(db)
    print(
        f"live update per arriving answer   {loaded:5.1f} us on a 300,000-item run loaded in bulk;"
        f" {one_by_one:5.1f} us per record on counters built record by record   [unchanged: 4-9 us]"
    )

    if shutil.which("tmux") is None:
        print("tmux is not installed: the TUI figures are not measured")
        return
    floor = tmux_floor(repeat)
    page = best(
        lambda: conn.execute(
            f"SELECT c.id FROM claims c WHERE c.id IN (SELECT p.claim_id FROM predictions p WHERE p.run_id = ?"
            f" AND p.outcome IN {WRONG}) ORDER BY c.id LIMIT 100",
            [run_ids[0]],
        ).fetchall(),
        repeat,
    )
    grouped = best(lambda: bare_grouped_counts(conn, run_ids), repeat)
    filters, metrics = tui_figures(db, repeat)
    print(f"tmux keystroke to echo (floor)    {floor * 1000:6.0f} ms")
    print(
        f"TUI filter `run:big-a wrong`, Enter to first page   {statistics.median(filters) * 1000:6.0f} ms"
        f" (runs {', '.join(f'{t * 1000:.0f}' for t in filters)})   bare SQL page {page * 1000:5.1f} ms"
        f"   {statistics.median(filters) / floor:4.1f}x the floor   [< 200 ms]"
    )
    print(
        f"TUI `m` to both runs' metrics with intervals   {statistics.median(metrics) * 1000:6.0f} ms"
        f" (runs {', '.join(f'{t * 1000:.0f}' for t in metrics)})   bare SQL grouped counts of both runs"
        f" {grouped * 1000:5.0f} ms   {statistics.median(metrics) / floor:4.1f}x the floor   [< 300 ms]"
    )


if __name__ == "__main__":
    main()
