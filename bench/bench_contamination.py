"""Timing of the contamination pipeline's scoring step (no language model involved).

Run: PYTHONPATH=. python bench/bench_contamination.py [CLAIMS]

Evidence lists are cut from the demo datasets' oracle articles and QA pairs (each claim
gets up to 8 oracle and 8 "generated" sentences, the generated ones shuffled from the
same pool). Compares, in one process with the models already loaded:
(a) embeddings encoded claim by claim (one encode call per claim), against
(b) the pipeline's way: every distinct sentence encoded once, in batches, up front;
and reports METEOR's time for the same claims. Checks (a) and (b) give the same scores.
"""

from __future__ import annotations

import random
import re
import sys
import time

from store import Store
from workbench.cli.demo import load_demo
from workbench.contamination.similarity import PairScorer, parse_metric, score_claim
from workbench.nlp.embedding import SentenceEmbeddings


def evidence_pool() -> list[str]:
    store = Store.open(":memory:")
    load_demo(store)
    sentences = []
    for claim_id in store.claims.ids(""):
        claim = store.claims.get(claim_id)
        sentences += [s.strip() for s in re.split(r"(?<=[.!?])\s+", claim.article_text or "") if len(s) > 20]
        sentences += [f"Q: {e.question} A: {e.text}" for e in claim.evidence if e.kind == "qa"]
    store.close()
    return sentences


def claims(count: int, pool: list[str]) -> list[tuple[list[str], list[str]]]:
    chooser = random.Random(7)
    return [(chooser.sample(pool, 8), chooser.sample(pool, 8)) for _ in range(count)]


def timed(label: str, work) -> tuple[float, list]:
    started = time.perf_counter()
    result = work()
    seconds = time.perf_counter() - started
    print(f"{label:<44} {seconds:8.2f} s")
    return seconds, result


def per_claim(scorer: PairScorer, items) -> list[float]:
    scores = []
    for oracle, generated in items:
        scorer._embeddings = SentenceEmbeddings(scorer.metric.model_dir)  # nothing shared between claims
        scores.append(score_claim(oracle, generated, scorer).score)
    return scores


def batched(scorer: PairScorer, items) -> list[float]:
    scorer._embeddings = SentenceEmbeddings(scorer.metric.model_dir)
    scorer.warm([s for oracle, generated in items for s in oracle + generated])
    return [score_claim(oracle, generated, scorer).score for oracle, generated in items]


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    items = claims(count, evidence_pool())
    embedding, meteor = PairScorer(parse_metric("embedding")), PairScorer(parse_metric("meteor"))
    batched(embedding, items[:5])  # load the model before timing
    print(f"{count} claims, 8 oracle x 8 generated sentences each")
    slow, a = timed("(a) embeddings, one encode call per claim", lambda: per_claim(embedding, items))
    fast, b = timed("(b) embeddings, distinct sentences batched", lambda: batched(embedding, items))
    assert max(abs(x - y) for x, y in zip(a, b)) < 1e-5, "batched and per-claim scores differ"
    timed("METEOR (WordNet, cached tokens and synonyms)", lambda: [score_claim(o, g, meteor).score for o, g in items])
    print(f"batched encoding is {slow / fast:.1f}x faster than per-claim encoding")


if __name__ == "__main__":
    main()
