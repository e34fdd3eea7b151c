"""Messages that cross screens: workers post them, `@on` handlers update widgets."""

from __future__ import annotations

from dataclasses import dataclass, field

from textual.message import Message

from store import FlagChange, Run


class DataChanged(Message, bubble=False):
    """Something committed to the database (this app, a run, or another process)."""


@dataclass
class Catalogue:
    """Small lookups every screen needs: runs, label spaces, flag kinds, counts."""

    runs: list[Run] = field(default_factory=list)
    scored: dict[str, set[str]] = field(default_factory=dict)
    """dataset name -> its scored gold classes (to tell wrong from unscored)."""
    gold: dict[str, list[str]] = field(default_factory=dict)
    """dataset name -> every gold label, in the dataset's own order (filter completion)."""
    flag_kinds: dict[str, int] = field(default_factory=dict)
    total_claims: int | None = None
    has_images: bool = False
    """Some claim has an image (the browser then shows an image column)."""

    def run_named(self, reference: int | str | None) -> Run | None:
        for run in self.runs:
            if run.id == reference or run.name == reference:
                return run
        return None


class CatalogueLoaded(Message, bubble=False):
    def __init__(self, catalogue: Catalogue):
        super().__init__()
        self.catalogue = catalogue


class FlagsChanged(Message):
    """A flag or unflag finished; the change can be undone."""

    def __init__(self, change: FlagChange, summary: str):
        super().__init__()
        self.change = change
        self.summary = summary


class Counted(Message):
    """How many claims match a filter (or None when it could not be counted)."""

    def __init__(self, filter_text: str, count: int | None, run_ids: list[int]):
        super().__init__()
        self.filter_text = filter_text
        self.count = count
        self.run_ids = run_ids
