"""Content oddities met while importing: kept, counted, and listed on request.

Real data is untidy: an empty question, an answer without text, a date nobody can read,
a stray blank row, a label in another case. Such a record still imports, and the oddity
becomes a warning naming file, line/record and field. With strict on, the first warning
is an error instead (the import then changes nothing).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from workbench.importers.reading import BadInput

SHOWN_EXAMPLES = 3


@dataclass(frozen=True)
class ImportWarning:
    path: str
    message: str
    line: int | None = None
    record: int | None = None
    field: str | None = None
    kind: str = ""
    """What kind of oddity (for the summary's counts), e.g. "empty question"."""

    def __str__(self) -> str:
        return str(BadInput(self.path, self.message, self.line, self.field, self.record))


@dataclass
class ImportWarnings:
    """Every warning of one import, in file order."""

    strict: bool = False
    items: list[ImportWarning] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Things worth saying that are not oddities (ids made from positions, ...)."""
    _place: tuple = field(default=(), repr=False)
    _said: set = field(default_factory=set, repr=False)

    def add(self, warning: ImportWarning) -> None:
        if self.strict:
            raise BadInput(
                warning.path,
                f"{warning.message} (a warning; --strict refuses it)",
                warning.line,
                warning.field,
                warning.record,
            )
        place = (warning.path, warning.line, warning.record)
        if place != self._place:
            self._place, self._said = place, set()
        if warning in self._said:
            return  # one record's field read again for each claim it makes: said once
        self._said.add(warning)
        self.items.append(warning)

    def say(self, path: str, message: str, line: int | None, record: int | None, field: str | None, kind: str) -> None:
        """A warning from its parts (for readers below this module)."""
        self.add(ImportWarning(path, message, line, record, field, kind))

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def __len__(self) -> int:
        return len(self.items)

    def summary(self) -> list[str]:
        """One line per kind: how many, and where the first few are."""
        counts = Counter(item.kind or item.message for item in self.items)
        lines = []
        for kind, count in counts.most_common():
            where = [item for item in self.items if (item.kind or item.message) == kind][:SHOWN_EXAMPLES]
            places = ", ".join(_place(item) for item in where) + (", ..." if count > len(where) else "")
            lines.append(f"{count:,} × {kind} ({places})")
        return lines


def _place(item: ImportWarning) -> str:
    parts = [f"line {item.line}"] if item.line is not None else []
    if item.record is not None:  # a JSON document's records share lines: say which record
        parts.append(f"record {item.record}")
    if item.field:
        parts.append(item.field)
    return " ".join(parts)
