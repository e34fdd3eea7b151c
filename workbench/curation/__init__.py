"""Curating a dataset into a benchmark, step by step, each step recorded and reversible.

    date       reviewed (or claimed) inside a window, e.g. after the newest model's cutoff
    language   in the languages asked for: from the markup, else detected from the claim
    publisher  checked by a publisher on the user's allow-list (e.g. IFCN signatories)
    duplicate  the same claim checked by several agencies kept once, the others linked
    screen     an LLM screening run: claim texts that give the verdict away, are cut off,
               or speak about a post instead of making the claim

A step flags what it removes (curated-out:STEP, with a note saying why) and never deletes:
`-flagged:curated-out` is the curated benchmark, and the funnel (funnel.py) says how many
each step removed. See steps.py for the order and what each step looks at.
"""

from workbench.errors import WorkbenchError


class CurationError(WorkbenchError, ValueError):
    """A curation request that cannot be carried out; the message says why."""


__all__ = ["CurationError"]
