"""One-to-one matching of predicted and reference items by pairwise score."""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment


def hungarian_match(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Pair rows with columns, each used at most once, maximising the summed score.

    Returns (rows, cols, total): `scores[rows[k], cols[k]]` are the chosen pairs and
    `total` their sum. A rectangular matrix leaves the surplus rows or columns
    unpaired; an empty one (0 x n or n x 0) pairs nothing and totals 0.
    """
    scores = np.asarray(scores, dtype=float)
    if scores.ndim != 2:
        raise ValueError(f"scores must be a 2-D matrix, got shape {scores.shape}")
    if scores.size == 0:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty.copy(), 0.0
    rows, cols = linear_sum_assignment(scores, maximize=True)
    # Summed the way AVeriTeC's scorer sums them, so totals agree to the last bit.
    return rows, cols, float(scores[rows, cols].sum())


def matched_score(scores: np.ndarray, n_reference: int) -> float:
    """Best one-to-one total divided by the number of reference items.

    Unmatched references thus count as 0, so recall of the references is what this
    measures. Multiplies by 1 / n as the official AVeriTeC scorer does: that can
    differ from total / n in the last bit, which matters at a strict threshold.
    """
    if n_reference <= 0:
        raise ValueError("n_reference must be positive")
    _, _, total = hungarian_match(scores)
    return total * (1 / float(n_reference))
