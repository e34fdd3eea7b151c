"""Evidence as files give it, read by its shape rather than refused or dropped.

A mapping says where a claim's evidence is (`evidence[]`, or `--map evidence=evidence`);
what it finds there may be:

- a list of objects: one item each, read by the mapping's parts (as before);
- a string, or a list of strings: each string is one passage;
- a single object where a list was expected: one item;
- FEVER-style pointer arrays (`[[[annotation_id, evidence_id, "Page_Title", sentence]]]`),
  numbers, or any other list: no passage to show, so the value is kept whole as an attribute
  of the claim under the file's name for it, and the import's notes say so;
- nothing (null, an empty string or list): no items, and nothing to warn about.

    contexts, whole = item_contexts(group.each, context, where, "evidence", group.parts)
    passage(item.value, group.parts)    # True: a string item, the item's text
    pointer(item.value, group.parts)    # True: keep it whole as an attribute, not as an item
    empty(item.value)                   # True: only then may a warning call the item empty
"""

from __future__ import annotations

from typing import Any

from workbench.importers import values as convert
from workbench.importers.paths import MISSING, Context, Path

POINTERS_NOTE = (
    "{name} holds evidence as pointers, not passages (FEVER's [annotation id, evidence id, page,"
    " sentence] arrays, numbers or nested lists): kept whole as attr.{key} on the claims that have"
    " them"
)


def item_contexts(
    each: Path, context: Context, where: convert.Where, name: str, parts: dict
) -> tuple[list[Context], bool]:
    """The context of each evidence item `each` reaches, and whether the one item is the
    field itself. Where a list was expected (the last `[]`) and the value is not one (a
    string, an object, a number), that value is the one item; a list where a single value
    was expected (`--map evidence=evidence`) gives its elements, unless the mapping reads
    the list itself (`text = "."`: a list of sentences made one page); an absent value
    (null, "", NaN: said once) gives none."""
    found = each.first(context) if not each.fans_out else holder(each, context)
    if found is MISSING or (isinstance(found, list) and (each.fans_out or reads_itself(parts))):
        return each.items(context), False
    if isinstance(found, list):
        return _elements(found, each, context), False
    if convert.no_value(found, where, name):
        return [], False
    if not each.fans_out:
        return each.items(context), True
    return _elements([found], each, context), True


def holder(each: Path, context: Context) -> Any:
    """What the list `each` fans out over is, when only its last step fans out (MISSING
    otherwise, or where the record has nothing)."""
    steps = each.steps
    if (
        each.position
        or not steps
        or not steps[-1].kind.startswith("each")
        or any(step.kind.startswith("each") for step in steps[:-1])
    ):
        return MISSING
    return Path(each.text, steps[:-1], each.up).first(context)


def _elements(values: list, each: Path, context: Context) -> list[Context]:
    """Contexts for values as Path.items makes them for a list's elements."""
    start, chain, places = _start(each, context)
    return [
        Context(value, (start,) + chain, (position,) + places, context.record) for position, value in enumerate(values)
    ]


def _start(each: Path, context: Context) -> tuple[Any, tuple, tuple]:
    """Where a path starts, and the parents and positions an element it reaches has above it
    (as Path.items builds them)."""
    if each.up == -1:
        return context.record, (), ()
    if each.up == 0:
        return context.value, context.parents, context.positions
    start = context.parents[each.up - 1] if each.up - 1 < len(context.parents) else MISSING
    return start, context.parents[each.up :], context.positions[each.up :]


def reads_itself(parts: dict) -> bool:
    """Whether a part of the mapping reads the item's own value (`.`, e.g. `text = "."`)."""
    return any(
        not path.steps and path.up == 0 and not path.position for value in parts.values() for path in value.paths
    )


def passage(value: Any, parts: dict) -> bool:
    """A string item the mapping does not read itself: it is the item's text."""
    return isinstance(value, str) and not reads_itself(parts)


def pointer(value: Any, parts: dict) -> bool:
    """An item that is no passage and no object (a pointer array, a number): kept whole."""
    if value is MISSING or value is None or isinstance(value, (str, dict)) or reads_itself(parts):
        return False
    return not (isinstance(value, float) and convert.non_finite(value))


def list_name(each: Path) -> str:
    """The file's name for the evidence list a path fans out over (`evidence[]` -> evidence)."""
    text = each.text.lstrip("$").lstrip(".").replace("[]?", "").replace("[]", "")
    return text.strip(".") or "evidence"


def empty(value: Any) -> bool:
    """Nothing in it at all: null, blank text, or lists and objects of such (0 and false are
    something)."""
    if value is MISSING or value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    if isinstance(value, float):
        return convert.non_finite(value) and value != value  # NaN is no value; an infinity is one
    if isinstance(value, dict):
        return all(empty(item) for item in value.values())
    if isinstance(value, list):
        return all(empty(item) for item in value)
    return False


def held(value: Any) -> list[str]:
    """The fields of an object item that hold something (for messages)."""
    return sorted(str(key) for key, item in value.items() if not empty(item)) if isinstance(value, dict) else []
