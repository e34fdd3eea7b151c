"""The duplicate step: one claim checked by several agencies is kept once, the others linked.

First the same text once normalised (case, accents, punctuation and spacing aside), then
near-duplicates: MinHash over character 5-grams with locality-sensitive hashing finds the
candidate pairs, and a pair counts when the Jaccard similarity of its 5-gram sets reaches
the threshold (default 0.8); or, with method `embedding`, when the cosine of the claims'
sentence embeddings (the embedding model the contamination metric uses) reaches it
(default 0.9). Claims linked through each other form one group; the group keeps its
earliest review (then the lowest id), the others are flagged as its duplicates.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from pathlib import Path

from store import CurationRow, DuplicateLink
from workbench.curation import CurationError

SHINGLE = 5
NUM_PERM = 128
DEFAULT_THRESHOLDS = {"minhash": 0.8, "embedding": 0.9}
EMBEDDING_BLOCK = 1024


@dataclass
class DuplicateResult:
    removed: dict[int, str]
    links: list[DuplicateLink]
    groups: int
    """Groups of two claims or more."""


def normalised(text: str) -> str:
    """'“The Bridge” cost 90M!' -> 'the bridge cost 90m'."""
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).casefold())
    kept = "".join(ch if ch.isalnum() else " " for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(kept.split())


def shingles(text: str) -> set[bytes]:
    padded = f" {text} "
    return {padded[i : i + SHINGLE].encode() for i in range(max(1, len(padded) - SHINGLE + 1))}


def find_duplicates(
    rows: list[CurationRow], method: str = "minhash", threshold: float | None = None, model_dir: Path | None = None
) -> DuplicateResult:
    """Flags and links for every claim that duplicates a kept one."""
    if method not in DEFAULT_THRESHOLDS:
        raise CurationError(f"--dedup takes minhash or embedding, not {method!r}")
    threshold = DEFAULT_THRESHOLDS[method] if threshold is None else threshold
    if not 0 < threshold <= 1:
        raise CurationError(f"--dedup-threshold must lie in (0, 1], not {threshold}")
    texts = {row.id: normalised(row.text) for row in rows}
    groups = _Groups()
    first_with: dict[str, int] = {}
    for row in rows:  # the same text: one group at once, similarity 1
        seen = first_with.setdefault(texts[row.id], row.id)
        groups.join(seen, row.id)
    distinct = [row for row in rows if first_with[texts[row.id]] == row.id]
    find = _minhash_pairs if method == "minhash" else _embedding_pairs
    pairs, similarity = find(distinct, texts, threshold, model_dir)
    for left, right in pairs:
        groups.join(left, right)
    representative = {row.id: first_with[texts[row.id]] for row in rows}
    return _linked(rows, texts, groups, method, lambda a, b: similarity(representative[a], representative[b]))


def _minhash_pairs(rows: list[CurationRow], texts: dict[int, str], threshold: float, model_dir):
    from datasketch import MinHash, MinHashLSH

    sets = {row.id: shingles(texts[row.id]) for row in rows}
    hashes = MinHash.bulk([sets[row.id] for row in rows], num_perm=NUM_PERM)
    index = MinHashLSH(threshold=threshold, num_perm=NUM_PERM)
    with index.insertion_session() as session:
        for row, signature in zip(rows, hashes):
            session.insert(row.id, signature)
    pairs = []
    for row, signature in zip(rows, hashes):
        for other in index.query(signature):
            if other > row.id and jaccard(sets[row.id], sets[other]) >= threshold:
                pairs.append((row.id, other))
    return pairs, lambda a, b: jaccard(sets[a], sets[b])


def jaccard(left: set, right: set) -> float:
    return len(left & right) / len(left | right) if left or right else 1.0


def _embedding_pairs(rows: list[CurationRow], texts: dict[int, str], threshold: float, model_dir):
    import numpy as np

    from workbench.nlp.embedding import EmbeddingModelError, check_model_dir, default_model_dir, load_model

    try:
        model = load_model(check_model_dir(Path(model_dir) if model_dir else default_model_dir()))
    except EmbeddingModelError as error:
        raise CurationError(str(error)) from None
    vectors = model.encode(
        [row.text for row in rows],
        batch_size=64,
        normalize_embeddings=True,
        convert_to_numpy=True,
        show_progress_bar=False,
    )
    ids = [row.id for row in rows]
    pairs = []
    for start in range(0, len(rows), EMBEDDING_BLOCK):
        block = vectors[start : start + EMBEDDING_BLOCK] @ vectors.T
        for i, j in zip(*np.nonzero(block >= threshold)):
            if j > start + i:
                pairs.append((ids[start + i], ids[j]))
    at = {claim_id: n for n, claim_id in enumerate(ids)}
    return pairs, lambda a, b: float(vectors[at[a]] @ vectors[at[b]])


class _Groups:
    """Union-find over claim ids."""

    def __init__(self):
        self.parent: dict[int, int] = {}

    def find(self, item: int) -> int:
        root = self.parent.setdefault(item, item)
        while root != self.parent[root]:
            root = self.parent[root]
        while item != root:
            self.parent[item], item = root, self.parent[item]
        return root

    def join(self, left: int, right: int) -> None:
        a, b = self.find(left), self.find(right)
        if a != b:
            self.parent[max(a, b)] = min(a, b)


def _linked(
    rows: list[CurationRow], texts: dict[int, str], groups: _Groups, method: str, similarity
) -> DuplicateResult:
    members: dict[int, list[CurationRow]] = {}
    for row in rows:
        members.setdefault(groups.find(row.id), []).append(row)
    removed, links, count = {}, [], 0
    for group in members.values():
        if len(group) < 2:
            continue
        count += 1
        kept = min(group, key=lambda r: ((r.review_date or "9999")[:10], r.id))
        measure = "5-gram Jaccard" if method == "minhash" else "cosine"
        for row in group:
            if row.id == kept.id:
                continue
            same = texts[row.id] == texts[kept.id]
            score = 1.0 if same else round(similarity(row.id, kept.id), 3)
            links.append(DuplicateLink(row.id, kept.id, score, "same text" if same else method))
            who = kept.attributes.get("publisher") or "another review"
            how = "the same text" if same else f"similar text ({measure} {score:.2f} with it)"
            removed[row.id] = f"duplicate of claim {kept.id} ({kept.external_id}, {who}): {how}"
    return DuplicateResult(removed, links, count)


__all__ = ["DEFAULT_THRESHOLDS", "DuplicateResult", "find_duplicates", "jaccard", "normalised", "shingles"]
