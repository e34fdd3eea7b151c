"""Step 3 of the contamination pipeline: how closely a model's evidence matches the oracle's.

Every generated evidence sentence is compared with every oracle sentence by a pair
score f in [0, 1] (METEOR, or the cosine of sentence embeddings); a one-to-one
(Hungarian) assignment maximises the summed f, and the claim's score is

    s = (sum of f over the matched pairs) / (number of oracle evidence sentences)

so oracle evidence the model did not reproduce counts as 0. A model that produced no
evidence scores 0; a claim without oracle evidence is not scorable (never 0).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from workbench.choices import CONTAMINATION_METRICS
from workbench.contamination.matching import hungarian_match
from workbench.errors import WorkbenchError

DEFAULT_TAU = {"meteor": 0.25, "embedding": 0.6}


class MetricError(WorkbenchError, ValueError):
    """A metric name that cannot be used; the message says what is accepted."""


@dataclass(frozen=True)
class Metric:
    """A pair-score metric: its stored name and, for embeddings, the model folder."""

    name: str
    """As stored on scores and flags: meteor, embedding (the packaged MiniLM) or
    embedding:/absolute/model/folder."""
    family: str
    """meteor or embedding (decides the default tau)."""
    model_dir: Path | None = None

    @property
    def default_tau(self) -> float:
        return DEFAULT_TAU[self.family]


def parse_metric(text: str) -> Metric:
    """A Metric from `meteor`, `embedding` or `embedding:PATH` (checked, nothing loaded)."""
    from workbench.nlp.embedding import check_model_dir, default_model_dir, model_folder

    raw = (text or "").strip()
    family, _, path = raw.partition(":")
    family = family.lower()
    if family == "meteor" and not path:
        return Metric("meteor", "meteor")
    if family == "embedding":
        if not path:
            return Metric("embedding", "embedding", check_model_dir(default_model_dir()))
        folder = check_model_dir(model_folder(path))
        return Metric(f"embedding:{folder}", "embedding", folder)
    raise MetricError(f"unknown metric {raw!r}; use {CONTAMINATION_METRICS}")


def metric_family(name: str) -> str:
    """meteor or embedding, from a stored metric name (combined names give their first)."""
    return "embedding" if name.split("&")[0].startswith("embedding") else "meteor"


def default_tau(name: str) -> float:
    """The paper's threshold for a stored metric name: 0.25 METEOR, 0.6 embeddings."""
    return DEFAULT_TAU[metric_family(name)]


class PairScorer:
    """f(oracle sentence, generated sentence) for whole lists at once."""

    def __init__(self, metric: Metric):
        self.metric = metric
        self._meteor = self._embeddings = None
        if metric.family == "meteor":
            from workbench.nlp.meteor import MeteorScorer

            self._meteor = MeteorScorer()  # raises NlpDataMissing (with the fix) without WordNet
        else:
            from workbench.nlp.embedding import SentenceEmbeddings

            self._embeddings = SentenceEmbeddings(metric.model_dir)

    def warm(self, sentences: list[str]) -> None:
        """Prepare many sentences at once (embeddings: one batched encoding pass)."""
        if self._embeddings is not None:
            self._embeddings.warm(sentences)

    def matrix(self, oracle: list[str], generated: list[str]) -> np.ndarray:
        """Shape (len(oracle), len(generated)); METEOR takes the oracle sentence as the
        reference and the generated one as the hypothesis."""
        if not oracle or not generated:
            return np.zeros((len(oracle), len(generated)), dtype=float)
        if self._meteor is not None:
            check_meteor_applies([*oracle, *generated])
            return self._meteor.matrix(oracle, generated)
        return self._embeddings.cosine_matrix(oracle, generated)


def check_meteor_applies(sentences: list[str]) -> None:
    """MetricError (naming the embeddings route) when the sentences are in Japanese, Chinese
    or another script written without spaces: METEOR's English words do not apply."""
    from workbench.nlp.embedding import cached_models
    from workbench.nlp.unspaced import meteor_refusal

    if any(not s.isascii() for s in sentences):
        why = meteor_refusal(sentences, list(cached_models()))
        if why:
            raise MetricError(why)


@dataclass(frozen=True)
class ClaimScore:
    """One claim's contamination score and the pairs behind it."""

    score: float | None
    """s, or None when the claim is not scorable."""
    scorable: bool
    n_oracle: int
    n_generated: int
    pairs: list[tuple[int, int, float]] = field(default_factory=list)
    """[oracle_index, generated_index, f] of every matched pair with f > 0, in oracle order."""


def score_claim(oracle: list[str], generated: list[str], scorer: PairScorer) -> ClaimScore:
    """s = best one-to-one sum of f / number of oracle sentences (see the module doc)."""
    if not oracle:
        return ClaimScore(None, False, 0, len(generated))
    if not generated:
        return ClaimScore(0.0, True, len(oracle), 0)
    scores = scorer.matrix(oracle, generated)
    rows, cols, total = hungarian_match(scores)
    # A pair with f = 0 adds nothing and only says the assignment had to put it somewhere.
    pairs = sorted((int(r), int(c), float(scores[r, c])) for r, c in zip(rows, cols) if scores[r, c] > 0)
    return ClaimScore(total * (1 / float(len(oracle))), True, len(oracle), len(generated), pairs)
