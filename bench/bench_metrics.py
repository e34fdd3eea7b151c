"""Timing of the metrics the live panels and the scores screen lean on.

Run: PYTHONPATH=. python bench/bench_metrics.py

(a) 1,000-resample bootstrap CIs on 10,000 items, against a naive per-resample
    scikit-learn loop (100 resamples, extrapolated to 1,000).
(b) LiveMetrics per-record cost over 100,000 predictions with 3 slice fields, against
    scikit-learn recomputing macro-F1 + MCC once on the 100,000 items.
(c) Recomputing a whole panel (overall + 3 breakdowns + confusion) from rows in memory.
(d) The same panel recomputed from the database (workbench.scoring.runs: one statement per
    run, then numpy) for 100,000 predictions, against scikit-learn computing the same
    numbers (accuracy, per-class P/R/F1, macro-F1, MCC, confusion matrix; overall and
    per slice) on arrays already in memory, and against a plain fetchall + scikit-learn.
    Target < 100 ms.
(e) Live updates as the TUI makes them: LiveRun.apply per arriving prediction (target
    < 50 us) and one poll reading 100 new predictions of a 100,000-item run.
"""

from __future__ import annotations

import time
from datetime import UTC

import numpy as np
from sklearn.metrics import accuracy_score, f1_score, matthews_corrcoef

from workbench.metrics import API_ERROR, PARSE_FAILURE, LiveMetrics, Panel, bootstrap_cis, panel_from_rows

CLASSES = ["Supported", "Refuted", "NotEnoughInfo"]
ABSTAIN = "unknown"
SLICE_FIELDS = ("importance", "domain", "cutoff")
SLICE_CHOICES = {
    "importance": ["Main", "Sub", "Irrelevant"],
    "domain": ["health", "politics", "science", "sport", "finance"],
    "cutoff": ["before", "after", "unknown"],
}


def make_items(n: int, seed: int = 0, api_errors: bool = True) -> tuple[list[str], list[str], list[dict[str, str]]]:
    """A fake run: ~70% right, some abstentions, parse failures and API errors."""
    rng = np.random.default_rng(seed)
    gold = [CLASSES[i] for i in rng.integers(0, len(CLASSES), n)]
    noise = [*CLASSES, ABSTAIN, PARSE_FAILURE] + ([API_ERROR] if api_errors else [])
    wrong = rng.integers(0, len(noise), n)
    keep = rng.random(n) < 0.7
    outcomes = [g if k else noise[w] for g, k, w in zip(gold, keep, wrong)]
    picks = {f: rng.integers(0, len(c), n) for f, c in SLICE_CHOICES.items()}
    slices = [{f: SLICE_CHOICES[f][picks[f][i]] for f in SLICE_FIELDS} for i in range(n)]
    return gold, outcomes, slices


def _seconds(fn, repeats: int = 3) -> float:
    """Best wall time of a few runs (the least disturbed one)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def bench_bootstrap(n: int = 10_000, resamples: int = 1_000) -> None:
    gold, pred, _ = make_items(n, api_errors=False)  # every item scored
    ours = _seconds(lambda: bootstrap_cis(gold, pred, CLASSES, ABSTAIN, resamples=resamples))

    gold_arr, pred_arr = np.array(gold), np.array(pred)
    rng = np.random.default_rng(0)
    naive_runs = 100

    def naive():
        for _ in range(naive_runs):
            idx = rng.integers(0, len(gold), len(gold))
            accuracy_score(gold_arr[idx], pred_arr[idx])
            f1_score(gold_arr[idx], pred_arr[idx], labels=CLASSES, average="macro", zero_division=0)

    naive_full = _seconds(naive, repeats=1) * resamples / naive_runs
    cis = bootstrap_cis(gold, pred, CLASSES, ABSTAIN, resamples=resamples)
    print(f"(a) bootstrap, {len(gold):,} scored items, {resamples:,} resamples")
    print(f"    vectorised:            {ours:8.3f} s   (target < 1 s)")
    print(f"    naive sklearn loop:    {naive_full:8.3f} s   (100 resamples x 10)")
    print(f"    speed-up:              {naive_full / ours:8.1f} x")
    for name, ci in cis.items():
        print(f"    {name:<10} {ci.estimate:.4f}  95% CI [{ci.low:.4f}, {ci.high:.4f}]")


def bench_live(n: int = 100_000) -> None:
    gold, outcomes, slices = make_items(n, seed=1)
    ids = [f"claim-{i}" for i in range(n)]
    live = LiveMetrics(CLASSES, ABSTAIN, SLICE_FIELDS)
    start = time.perf_counter()
    for item, g, o, s in zip(ids, gold, outcomes, slices):
        live.record(item, g, o, s)
    per_record = (time.perf_counter() - start) / n

    start = time.perf_counter()
    for item, g, s in zip(ids[:10_000], gold, slices):
        live.record(item, g, g, s)  # retries replace earlier answers
    per_replace = (time.perf_counter() - start) / 10_000

    def panel_summaries():  # what a panel refresh asks for: overall + one slice per field
        live.summary()
        for field in SLICE_FIELDS:
            live.summary(field, SLICE_CHOICES[field][0])

    summary_cost = _seconds(panel_summaries)

    scored = [(g, o) for g, o in zip(gold, outcomes) if o != API_ERROR]
    g_arr = np.array([g for g, _ in scored])
    p_arr = np.array([o for _, o in scored])

    def sklearn_once():
        f1_score(g_arr, p_arr, labels=CLASSES, average="macro", zero_division=0)
        matthews_corrcoef(g_arr, p_arr)

    sk = _seconds(sklearn_once)
    print(f"(b) live updates, {n:,} predictions, {len(SLICE_FIELDS)} slice fields")
    print(f"    per record:            {per_record * 1e6:8.2f} us  (target < 50 us)")
    print(f"    per replacement:       {per_replace * 1e6:8.2f} us")
    print(f"    4 summaries on demand: {summary_cost * 1e3:8.2f} ms")
    print(f"    sklearn macro-F1+MCC once on all items: {sk * 1e3:.1f} ms")
    print(f"    ratio (sklearn once / one live record): {sk / per_record:,.0f} x")


def recompute_panel(rows) -> Panel:
    """Full panel from (gold, outcome, slice values) rows already in memory ((d) reads the
    same kind of panel from the database with workbench.scoring.runs)."""
    return panel_from_rows(rows, CLASSES, ABSTAIN, SLICE_FIELDS)


def bench_recompute(n: int = 100_000) -> None:
    gold, outcomes, slices = make_items(n, seed=2)
    rows = list(zip(gold, outcomes, slices))
    cost = _seconds(lambda: recompute_panel(rows))
    panel = recompute_panel(rows)
    print(f"(c) recompute panel from {n:,} rows (overall + 3 breakdowns + confusion)")
    print(f"    from rows in memory:   {cost * 1e3:8.1f} ms")
    overall = panel.overall
    print(f"    overall macro-F1 {overall.macro_f1:.4f}, coverage {overall.coverage:.3f}")


# ---- (d) and (e): from the database ---------------------------------------------------

DB_FIELDS = ("importance", "domain", "flag:contaminated")
DB_DOMAINS = SLICE_CHOICES["domain"]


def build_database(path, n: int = 100_000, seed: int = 3):
    """A real store file: n claims, one run over all of them with every kind of outcome,
    every 7th claim flagged contaminated. Inserted in bulk (setup, not timed)."""
    import json
    import random
    from datetime import datetime, timedelta

    from store import Run, Store

    rng = random.Random(seed)
    an_hour_ago = datetime.now(UTC) - timedelta(hours=1)

    def stamp(i: int) -> str:  # answers spread over the last hour, as a real run writes them
        return (an_hour_ago + timedelta(seconds=3000 * i / n)).strftime("%Y-%m-%dT%H:%M:%SZ")

    store = Store.open(path)
    db = store.db
    with db.atomic():
        db.execute(
            "INSERT INTO datasets (name, source_format, label_space, labels, abstain_label,"
            " excluded_labels, imported_at) VALUES ('bench', 'jsonl', 'custom', ?, ?, ?, 'now')",
            [json.dumps(CLASSES), ABSTAIN, json.dumps(["Unclear"])],
        )
        dataset_id = db.execute("SELECT id FROM datasets WHERE name = 'bench'").fetchone()[0]
        labels = CLASSES * 33 + ["Unclear"]  # ~1% excluded gold
        db.conn.executemany(
            "INSERT INTO claims (id, dataset_id, external_id, text, label, importance, domain,"
            " claim_date, content_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'h')",
            [
                (
                    i,
                    dataset_id,
                    f"c{i}",
                    f"claim {i}",
                    rng.choice(labels),
                    rng.choice(SLICE_CHOICES["importance"]),
                    rng.choice(DB_DOMAINS),
                    f"202{rng.randint(0, 5)}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}",
                )
                for i in range(1, n + 1)
            ],
        )
    run = store.runs.create(Run(name="bench-run", dataset_id=dataset_id, model="m"), list(range(1, n + 1)))
    answers = []
    for i in range(1, n + 1):
        r = rng.random()
        if r < 0.01:
            continue  # missing
        status, verdict = (
            ("error", None)
            if r < 0.03
            else ("parse_failure", None)
            if r < 0.06
            else ("abstain", ABSTAIN)
            if r < 0.10
            else ("ok", rng.choice(CLASSES))
        )
        answers.append((run.id, i, status, verdict, stamp(i)))
    with db.atomic():
        db.conn.executemany(
            "INSERT INTO predictions (run_id, claim_id, status, verdict, created_at) VALUES (?, ?, ?, ?, ?)", answers
        )
        db.conn.executemany(
            "INSERT INTO flags (claim_id, kind, source, created_at) VALUES (?, 'contaminated', 'manual', 'now')",
            [(i,) for i in range(1, n + 1, 7)],
        )
    return store, run


def _sklearn_panel(gold: np.ndarray, pred: np.ndarray, slices: dict[str, np.ndarray]) -> dict:
    """What the panel shows, the scikit-learn way: overall and per slice value."""
    from sklearn.metrics import confusion_matrix, precision_recall_fscore_support

    columns = [*CLASSES, ABSTAIN, PARSE_FAILURE]

    def scores(g, p):
        precision, recall, f1, support = precision_recall_fscore_support(g, p, labels=CLASSES, zero_division=0)
        return {
            "accuracy": accuracy_score(g, p),
            "macro_f1": float(f1.mean()),
            "mcc": matthews_corrcoef(g, p),
            "f1": f1,
            "confusion": confusion_matrix(g, p, labels=columns)[: len(CLASSES)],
        }

    result = {"overall": scores(gold, pred)}
    for field, values in slices.items():
        for value in np.unique(values):
            mask = values == value
            result[field, value] = scores(gold[mask], pred[mask])
    return result


def _scored_arrays(store, run_id: int):
    """Gold, predicted value and slice values of the scored items, via a plain fetchall."""
    rows = store.db.execute(
        "SELECT c.label, p.status, p.verdict, c.importance, c.domain,"
        " EXISTS (SELECT 1 FROM flags f WHERE f.claim_id = c.id AND f.kind = 'contaminated')"
        " FROM run_claims rc JOIN claims c ON c.id = rc.claim_id"
        " JOIN predictions p ON p.run_id = rc.run_id AND p.claim_id = rc.claim_id"
        " WHERE rc.run_id = ? AND p.status != 'error' AND c.label IN (?, ?, ?)",
        [run_id, *CLASSES],
    ).fetchall()
    outcome = {"ok": None, "abstain": ABSTAIN, "parse_failure": PARSE_FAILURE}
    gold = np.array([r[0] for r in rows])
    pred = np.array([outcome[r[1]] or r[2] for r in rows])
    slices = {
        "importance": np.array([r[3] for r in rows]),
        "domain": np.array([r[4] for r in rows]),
        "flag:contaminated": np.array(["yes" if r[5] else "no" for r in rows]),
    }
    return gold, pred, slices


def bench_database(n: int = 100_000) -> None:
    import tempfile
    from pathlib import Path

    from workbench.scoring.runs import parse_fields, read_items, summaries

    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        store, run = build_database(Path(folder) / "bench.db", n)
        setup = time.perf_counter() - start
        fields = parse_fields(DB_FIELDS)

        def ours():
            return summaries(read_items(store, run.id, fields))

        ours_cost = _seconds(ours, repeats=5)
        overall, breakdowns = ours()
        gold, pred, slices = _scored_arrays(store, run.id)
        sk_cost = _seconds(lambda: _sklearn_panel(gold, pred, slices))
        naive_cost = _seconds(lambda: _sklearn_panel(*_scored_arrays(store, run.id)), repeats=2)
        sk = _sklearn_panel(gold, pred, slices)
        assert abs(sk["overall"]["macro_f1"] - overall.macro_f1) < 1e-12
        assert abs(sk["overall"]["mcc"] - overall.mcc) < 1e-12
        assert abs(sk["importance", "Main"]["macro_f1"] - breakdowns["importance"]["Main"].macro_f1) < 1e-12
        assert np.array_equal(sk["overall"]["confusion"], overall.confusion.counts)
        print(
            f"(d) full panel from the database, {n:,} predictions (overall + {len(DB_FIELDS)} breakdowns"
            f" + confusion)   [setup {setup:.1f} s]"
        )
        print(f"    workbench.scoring.runs:     {ours_cost * 1e3:8.1f} ms  (target < 100 ms)")
        print(f"    sklearn, arrays ready: {sk_cost * 1e3:8.1f} ms  -> ratio {sk_cost / ours_cost:5.1f} x")
        print(f"    fetchall + sklearn:    {naive_cost * 1e3:8.1f} ms  -> ratio {naive_cost / ours_cost:5.1f} x")
        print(
            f"    same numbers: macro-F1 {overall.macro_f1:.6f}, MCC {overall.mcc:.6f}, "
            f"coverage {overall.coverage:.4f}, excluded {overall.excluded:,}"
        )
        bench_live_database(store, run)
        store.close()


def bench_live_database(store, run, arrivals: int = 100) -> None:
    from store import Prediction
    from workbench.scoring.live import load_live_run
    from workbench.scoring.runs import parse_fields

    fields = parse_fields(DB_FIELDS[:2])
    start = time.perf_counter()
    live = load_live_run(store, run.id, fields, exclude_flag="contaminated")
    first_read = time.perf_counter() - start
    ids = live.items.claim_ids
    changes = [(int(ids[i]), i % 3) for i in range(0, len(ids), 7)]
    start = time.perf_counter()
    live.apply(changes)
    per_apply = (time.perf_counter() - start) / len(changes)
    live = load_live_run(store, run.id, fields, exclude_flag="contaminated")  # as the database has it
    for claim_id in range(1, arrivals + 1):
        store.runs.record(Prediction(run_id=run.id, claim_id=claim_id, status="ok", verdict=CLASSES[0]))
    start = time.perf_counter()
    changed = live.poll(store)
    poll_cost = time.perf_counter() - start
    start = time.perf_counter()
    live.summary()
    live.breakdown("importance")
    live.summary(filtered=True)
    repaint = time.perf_counter() - start
    print(f"(e) live, {len(ids):,}-item run, 2 slice fields + counters without flagged claims")
    print(f"    first read + counters: {first_read * 1e3:8.1f} ms  (once, in a worker)")
    print(f"    per arriving answer:   {per_apply * 1e6:8.2f} us  (target < 50 us; LiveRun.apply)")
    print(
        f"    poll, {arrivals} new answers:  {poll_cost * 1e3:8.1f} ms  ({changed} changed; reads only "
        f"rows stamped since the last poll)"
    )
    print(f"    cheap numbers for a repaint: {repaint * 1e3:6.2f} ms")


if __name__ == "__main__":
    bench_bootstrap()
    bench_live()
    bench_recompute()
    bench_database()
