"""`workbench score-evidence`: the AVeriTeC scorer's figures, laid out by the listing like
the other score tables (metric names whole; the scores right-aligned)."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from workbench.render.listing import Column, Listing
from workbench.words import counted


def averitec_scores_view(result) -> Group:
    """Question-only and Q+A HU-METEOR, label accuracy and macro-F1, the AVeriTeC score at
    each threshold; the claims and the nltk version under them."""
    table = Listing(
        Column("metric", "name"), Column("score", "number", priority=9, justify="right"), title="AVeriTeC scores"
    )
    rows = [
        ("Question-only (HU-METEOR)", result.question_only),
        ("Question + answer (HU-METEOR)", result.qa),
        ("Label accuracy", result.label_accuracy),
        ("Label macro-F1", result.macro_f1),
    ]
    rows += [(f"AVeriTeC score @ {t}", v) for t, v in result.averitec.items()]
    for name, value in rows:
        table.add_row(name, f"{value:.3f}")
    caption = f"{counted(result.n_claims, 'claim')}, METEOR from nltk {result.nltk_version}"
    return Group(table, Text(caption, style="dim"))
