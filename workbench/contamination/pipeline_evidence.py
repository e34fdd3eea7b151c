"""Where each side's evidence sentences come from, for scoring and for showing a claim.

Oracle evidence: what the extractor pulled from the claim's oracle fact-check article
(an extract run over oracle articles: the claim's own text, else the fetched one), or, for AVeriTeC-style claims without an article,
the gold question-answer pairs themselves (one "Q: ... A: ..." line each, no extraction).
Generated evidence: what the extractor pulled from the target model's own article.
"""

from __future__ import annotations

from dataclasses import dataclass

from store import Claim, Store
from workbench.prompting.evidence import qa_pairs, qa_text
from workbench.words import counted


@dataclass
class EvidenceSide:
    """One side's sentences, or None when they are unknown, with why."""

    sentences: list[str] | None
    note: str = ""
    """E.g. "question-answer pairs", "extraction could not be parsed", "no article"."""


def oracle_source(claim: Claim) -> str | None:
    """ "article", "qa" or None: what can serve as this claim's oracle evidence."""
    if (claim.article_text or "").strip():
        return "article"
    if qa_pairs(claim):
        return "qa"
    return None


def qa_evidence(claim: Claim) -> list[str]:
    """The gold question-answer pairs as oracle evidence sentences."""
    return [qa_text(item) for item in qa_pairs(claim)]


def extracted(store: Store, run_id: int | None, claim_id: int) -> EvidenceSide:
    """The evidence list an extract run stored for a claim."""
    if run_id is None:
        return EvidenceSide(None, "not extracted")
    prediction = store.runs.prediction(run_id, claim_id)
    if prediction is None:
        return EvidenceSide(None, "not extracted yet")
    if prediction.status == "error":
        return EvidenceSide(None, f"extraction failed: {prediction.error}")
    if prediction.status != "ok" or not isinstance(prediction.parsed, dict):
        return EvidenceSide(
            None, f"extraction could not be parsed after {counted(prediction.attempts, 'try', 'tries')}"
        )
    sentences = [str(s) for s in prediction.parsed.get("evidence") or []]
    return EvidenceSide(sentences, "extracted" if sentences else "the extractor found none")


def oracle_side(store: Store, claim: Claim, oracle_run_id: int | None) -> EvidenceSide:
    """The oracle evidence the score used: extracted from the article, else the QA pairs."""
    if oracle_run_id is None:
        sentences = qa_evidence(claim)
        return EvidenceSide(sentences, "question-answer pairs" if sentences else "no oracle evidence")
    return extracted(store, oracle_run_id, claim.id)


def generated_side(
    store: Store, claim_id: int, article_run_id: int | None, generated_run_id: int | None
) -> EvidenceSide:
    """The target model's evidence: extracted from its article (an empty article is no evidence)."""
    if article_run_id is not None:
        article = store.runs.prediction(article_run_id, claim_id)
        if article is None or article.status == "error":
            return EvidenceSide(None, "no article" + (f": {article.error}" if article else ""))
        if article.status != "ok":
            return EvidenceSide([], "the model wrote an empty article")
    return extracted(store, generated_run_id, claim_id)


def aligned_rows(
    n_oracle: int, n_generated: int, pairs: list[list]
) -> list[tuple[int | None, int | None, float | None]]:
    """Rows for a side-by-side view: (oracle index, generated index, f).

    Matched pairs first in oracle order, then oracle sentences nothing matched, then
    generated sentences nothing matched (None on the empty side).
    """
    rows = [(int(o), int(g), float(f)) for o, g, f in sorted(pairs)]
    matched_oracle, matched_generated = {r[0] for r in rows}, {r[1] for r in rows}
    rows += [(i, None, None) for i in range(n_oracle) if i not in matched_oracle]
    rows += [(None, j, None) for j in range(n_generated) if j not in matched_generated]
    return rows
