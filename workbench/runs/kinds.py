"""What kind of run a run is, in the words `workbench runs` uses (choices.RUN_KINDS).

The store keeps `runs.kind` (verdict, judge, reformulate, article, extract, ...); answers
imported from a file are verdict runs whose model is `imported:...`.
"""

from __future__ import annotations

from store import Run


def kind_of(run: Run) -> str:
    """answer, imported, judge, reformulate, article, extract (or a newer stored kind as it is)."""
    if run.kind == "verdict":
        return "imported" if run.model.startswith("imported:") else "answer"
    return run.kind
