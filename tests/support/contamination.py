"""Contamination scoring data its tests share: an oracle article's evidence, generated evidence
per claim, and stored scores made from them."""

from __future__ import annotations

from store import Prediction, Run
from store.contamination import ScoreRow
from workbench.contamination.similarity import PairScorer, parse_metric, score_claim

ORACLE = [
    "The trial enrolled 2,400 adults aged 18 to 70.",
    "Both vitamin D groups averaged 1.9 infections per person.",
    "The difference was not statistically significant.",
]


# Demo claims 1-4 (they have oracle articles): oracle and generated evidence per claim.
EVIDENCE = {
    1: (
        ORACLE,
        [
            "The trial enrolled 2,400 adults aged 18 to 70.",
            "Both vitamin D groups averaged 1.9 infections per person.",
            "The difference was not statistically significant.",
        ],
    ),
    2: (ORACLE, ["The trial enrolled 2,400 adults aged 18 to 70.", "Penguins live in Antarctica."]),
    3: (ORACLE, ["A football club won the league in a dramatic final match."]),
    4: (ORACLE, []),
}


def make_scores(
    store,
    target: str = "gguf:A",
    metric: str = "meteor",
    scorer: PairScorer | None = None,
    evidence: dict | None = None,
    extractor: str = "gguf:X",
) -> list[ScoreRow]:
    """Stored runs holding the constructed evidence, scored for real and saved."""
    evidence = evidence or EVIDENCE
    scorer = scorer or PairScorer(parse_metric(metric))
    ids, label = list(evidence), f"{target}-{scorer.metric.name}"
    oracle = store.runs.create(
        Run(name=store.runs.unique_name(f"oracle-{label}"), kind="extract", model=extractor), ids
    )
    article = store.runs.create(Run(name=store.runs.unique_name(f"article-{label}"), kind="article", model=target), ids)
    generated = store.runs.create(
        Run(name=store.runs.unique_name(f"generated-{label}"), kind="extract", model=extractor), ids
    )
    rows = []
    for claim_id, (oracle_sentences, generated_sentences) in evidence.items():
        store.runs.record(
            Prediction(
                run_id=oracle.id, claim_id=claim_id, status="ok", parsed={"evidence": oracle_sentences}, raw_output="{}"
            )
        )
        store.runs.record(
            Prediction(
                run_id=article.id, claim_id=claim_id, status="ok", raw_output=f"An article for claim {claim_id}."
            )
        )
        store.runs.record(
            Prediction(
                run_id=generated.id,
                claim_id=claim_id,
                status="ok",
                parsed={"evidence": generated_sentences},
                raw_output="{}",
            )
        )
        result = score_claim(oracle_sentences, generated_sentences, scorer)
        rows.append(
            ScoreRow(
                claim_id,
                target,
                extractor,
                scorer.metric.name,
                result.score,
                result.scorable,
                result.n_oracle,
                result.n_generated,
                [list(p) for p in result.pairs],
                article.id,
                oracle.id,
                generated.id,
            )
        )
    store.contamination.save_scores(rows)
    return rows
