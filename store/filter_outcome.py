"""What compiling a filter gives: its SQL (CompiledFilter) or the reason it cannot (FilterError).

Apart from the compiler (store.filters) and its parser (store.filter_terms) so that a listing
with no filter, and a command that only catches the error, import neither.
"""

from __future__ import annotations

from dataclasses import dataclass, field


class FilterError(ValueError):
    """A filter the user typed cannot be understood; `start`/`end` locate the culprit."""

    def __init__(self, message: str, start: int = 0, end: int = 0):
        super().__init__(message)
        self.start = start
        self.end = end

    def __str__(self) -> str:
        return f"{self.args[0]} (at column {self.start + 1})"


@dataclass
class CompiledFilter:
    """SQL to put after WHERE (over `claims c`) and its parameters."""

    where: str = "1"
    params: list = field(default_factory=list)
    run_ids: list[int] = field(default_factory=list)

    @property
    def is_empty(self) -> bool:
        return self.where == "1"
