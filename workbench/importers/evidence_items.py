"""One evidence item, as a record gives it: its kind, where it is in the file (for messages:
questions[1].answers[0].answer), and the untidiness real question-answer evidence has, said."""

from __future__ import annotations

import re
from typing import Any

from workbench.importers import values as convert
from workbench.importers.mapping import EVIDENCE_KINDS, EvidenceMapping, Value
from workbench.importers.paths import MISSING, Context


def _item_name(group: EvidenceMapping, context: Context, rank: int) -> str:
    """Where an item is in the file, for messages: questions[2].answers[0], else evidence[rank]."""
    if group.each is None:
        return f"evidence[{rank}]"
    positions = iter(reversed([p for p in context.positions[: group.each.text.count("[]")]]))
    name = re.sub(r"\[\]\??", lambda _: f"[{next(positions, '?')}]", group.each.text)
    return name.lstrip("$")


def _part_name(item: str, value: Value | None, part: str) -> str:
    """The file's name for one part of an item: questions[1].answers[0].answer, questions[1].question."""
    if value is None or not value.paths:
        return f"{item}.{part}"
    path = value.paths[0]
    if path.up == -1:
        return path.text.lstrip("$").lstrip(".")
    base = item
    for _ in range(max(path.up, 0)):
        base = re.sub(r"(^|\.)[^.]*$", "", base) if "." in base else ""
    relative = path.text.lstrip("^")
    if relative in ("", ".", "#"):
        return base or item
    return f"{base}.{relative}" if base else relative


def evidence_kind(value: Any, question: Any, where: convert.Where, field: str) -> str:
    """The kind the file gives, else qa for an item with a question, else passage (an unknown kind is said)."""
    if value is MISSING or value is None:
        return "qa" if question is not MISSING and question is not None else "passage"
    text = str(value).strip().lower()
    if text in EVIDENCE_KINDS:
        return text
    where.warn(
        field,
        f"{value!r} is not an evidence kind ({', '.join(EVIDENCE_KINDS)}); read as passage",
        "unknown evidence kind",
    )
    return "passage"


def note_empty_item(context: Context, where: convert.Where, text_part: str, attributes: dict) -> None:
    """An evidence slot with no text, question, address, title or passage is not kept: said,
    with whatever else it held (a JSON null slot is nothing, and says nothing)."""
    if context.value is MISSING or context.value is None:
        return
    held = f"; it held {', '.join(sorted(attributes))}" if attributes else ""
    where.warn(
        text_part,
        f"an evidence item with no text, question, url, title or passage (not kept{held})",
        "empty evidence item dropped",
    )


def note_oddities(
    item: dict, question: Any, context: Context, where: convert.Where, text_part: str, has_question: bool
) -> None:
    """The untidiness real question-answer evidence has, said (the item is kept)."""
    if has_question and item["question"] is None and question is not MISSING:
        where.warn("question", "an empty question (kept without it)", "empty question")
    elif has_question and item["question"] is None and item["kind"] == "qa":
        where.warn(
            "question",
            "a question object without its question text (its answers kept without it)",
            "question without its text",
        )
    if item["kind"] == "qa" and item["text"] is None and context.value is not MISSING:
        where.warn(text_part, "an answer without text (kept without it)", "answer without text")


class ItemWhere(convert.Where):
    """A Where for one evidence item: a message about its part `text` names where that is in
    the file (questions[1].answers[0].answer), worked out only when a message is made."""

    def __init__(self, where: convert.Where, group: EvidenceMapping, context: Context, rank: int):
        super().__init__(where.path, where.line, where.record, where.warnings, where.located)
        self.group, self.context, self.rank = group, context, rank

    def _full(self, part: str) -> str:
        name = _item_name(self.group, self.context, self.rank)
        if part == ".":  # the item's own value (a string item)
            return name
        return _part_name(name, self.group.parts.get(part), part)

    def error(self, field, message):
        return super().error(self._full(field) if field else field, message)

    def warn(self, field, message, kind):
        super().warn(self._full(field) if field else field, message, kind)
