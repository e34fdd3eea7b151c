"""Timing of the metrics the live panels and the scores screen lean on.

Run: PYTHONPATH=. python bench/bench_metrics.py

(a) 1,000-resample bootstrap CIs on 10,000 items, against a naive per-resample
    scikit-learn loop (100 resamples, extrapolated to 1,000).
(b) LiveMetrics per-record cost over 100,000 predictions with 3 slice fields, against
    scikit-learn recomputing macro-F1 + MCC once on the 100,000 items.
(c) Recomputing a whole panel (overall + 3 breakdowns + confusion) from rows: the seam
    where a database read will plug in (`recompute_panel`).
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.metrics import accuracy_score, f1_score, matthews_corrcoef

from workbench.metrics import (
    API_ERROR,
    PARSE_FAILURE,
    LiveMetrics,
    Panel,
    bootstrap_cis,
    panel_from_rows,
)

CLASSES = ["Supported", "Refuted", "NotEnoughInfo"]
ABSTAIN = "unknown"
SLICE_FIELDS = ("importance", "domain", "cutoff")
SLICE_CHOICES = {
    "importance": ["Main", "Sub", "Irrelevant"],
    "domain": ["health", "politics", "science", "sport", "finance"],
    "cutoff": ["before", "after", "unknown"],
}


def make_items(
    n: int, seed: int = 0, api_errors: bool = True
) -> tuple[list[str], list[str], list[dict[str, str]]]:
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
    """Full panel from (gold, outcome, slice values) rows.

    Seam: the lead will feed this from the store (a run's rows from the database).
    """
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


if __name__ == "__main__":
    bench_bootstrap()
    bench_live()
    bench_recompute()
