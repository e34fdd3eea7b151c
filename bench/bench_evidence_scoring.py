"""Timing of AVeriTeC evidence scoring on the real 500-claim dev baseline.

Run: PYTHONPATH=. python bench/bench_evidence_scoring.py

Compares, in one process with WordNet already loaded:
(a) a straightforward scorer: word_tokenize + nltk's single_meteor_score for every
    pair from scratch, one process (what the official script does);
(b) workbench's score_evidence with a cold MeteorScorer, one process;
(c) the same with its default process pool.
Checks that all three give identical per-claim numbers. Target: >= 5x faster than (a).
"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

import numpy as np
import scipy.optimize
from nltk.tokenize import word_tokenize
from nltk.translate.meteor_score import single_meteor_score

from workbench.contamination.averitec_scorer import (
    THRESHOLDS,
    gold_questions,
    gold_strings,
    load_records,
    predicted_questions,
    predicted_strings,
    score_evidence,
)
from workbench.nlp.meteor import MeteorScorer
from workbench.nlp.nlp_data import check_nlp_data

AVERITEC = Path(__file__).resolve().parents[2] / "shared" / "data" / "averitec"
TARGET_SPEEDUP = 5.0


def naive_utility(predicted: list[str], gold: list[str]) -> float:
    """Official-style: a fresh METEOR per pair, Hungarian sum, reweighted by 1/len(gold)."""
    scores = np.empty((len(predicted), len(gold)))
    for i, pred in enumerate(predicted):
        for j, ref in enumerate(gold):
            scores[i, j] = single_meteor_score(word_tokenize(ref), word_tokenize(pred))
    rows, cols = scipy.optimize.linear_sum_assignment(scores, maximize=True)
    return scores[rows, cols].sum() * (1 / float(len(gold)))


def naive_scores(gold: list[dict], preds: list[dict]) -> tuple[list, list, dict]:
    q_only = [naive_utility(predicted_questions(p), gold_questions(g)) for g, p in zip(gold, preds)]
    qa = [naive_utility(predicted_strings(p), gold_strings(g)) for g, p in zip(gold, preds)]
    right = [p["pred_label"] == g["label"] for g, p in zip(gold, preds)]
    averitec = {t: float(np.mean([float(ok) if s > t else 0.0 for s, ok in zip(qa, right)])) for t in THRESHOLDS}
    return q_only, qa, averitec


def cold_wordnet() -> None:
    """Empty nltk's own cache of WordNet synsets, so no run profits from an earlier one."""
    from nltk.corpus import wordnet

    getattr(wordnet, "_synset_offset_cache", {}).clear()


def cpu_seconds() -> float:
    """CPU time of this process plus its finished children (the pool's workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def timed(fn):
    """(result, wall seconds, CPU seconds) of fn(), starting from a cold WordNet cache."""
    cold_wordnet()
    wall, cpu = time.perf_counter(), cpu_seconds()
    out = fn()
    return out, time.perf_counter() - wall, cpu_seconds() - cpu


def main() -> int:
    if not (AVERITEC / "dev_baseline_predictions.json").exists():
        print(f"skipped: {AVERITEC} is absent (the real AVeriTeC data lives in ../shared)")
        return 0
    gold = load_records(AVERITEC / "dev.json")
    preds = load_records(AVERITEC / "dev_baseline_predictions.json")
    start = time.perf_counter()
    check_nlp_data()
    load_s = time.perf_counter() - start
    print(f"NLTK WordNet + punkt_tab load (paid once by either scorer): {load_s:.1f} s")

    (n_q, n_qa, n_avt), naive_s, naive_cpu = timed(lambda: naive_scores(gold, preds))
    serial, serial_s, serial_cpu = timed(lambda: score_evidence(gold, preds, workers=1, scorer=MeteorScorer()))
    pooled, pooled_s, pooled_cpu = timed(lambda: score_evidence(gold, preds, scorer=MeteorScorer()))

    print(f"{'':42} {'wall':>8} {'speed-up':>9} {'CPU':>8}")
    for name, wall, cpu in [
        ("(a) per-pair nltk, no caching, 1 process", naive_s, naive_cpu),
        ("(b) workbench, cold caches, 1 process", serial_s, serial_cpu),
        ("(c) workbench, cold caches, pool", pooled_s, pooled_cpu),
    ]:
        print(f"{name:42} {wall:7.2f}s {naive_s / wall:8.1f}x {cpu:7.2f}s")
    best = min(serial_s, pooled_s)
    verdict = "met" if naive_s / best >= TARGET_SPEEDUP else "NOT met"
    print(
        f"target >= {TARGET_SPEEDUP:.0f}x (best of b, c; wall): {naive_s / best:.1f}x, {verdict}."
        " Wall times swing when other processes share the cores; CPU times less so."
    )

    same = all(
        [c.question_only for c in result.claims] == n_q
        and [c.qa for c in result.claims] == n_qa
        and result.averitec == n_avt
        for result in (serial, pooled)
    )
    print(f"identical per-claim scores and AVeriTeC scores: {'yes' if same else 'NO'}")
    print(
        f"question-only {pooled.question_only:.4f}, Q+A {pooled.qa:.4f}, AVeriTeC @ "
        + ", ".join(f"{t}: {v:.3f}" for t, v in pooled.averitec.items())
    )
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
