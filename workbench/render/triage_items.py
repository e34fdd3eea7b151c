"""One answer's labels side by side (the adjudication view, `triage adjudicate`) and the
history of a claim's labels (the claim detail's History tab, `triage history`)."""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.cells import cell_len
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from store import FailureCategory, HistoryEntry, Label
from workbench.render.display import literal, one_line, printable
from workbench.triage.final import ItemLabels

KIND_WORDS = {
    "categories": "categories",
    "done": "done",
    "note": "note",
    "eq score": "EQ score",
    "flag": "flag",
    "adjudication": "decision",
}


def side_by_side(
    categories: Sequence[FailureCategory],
    labels: dict[str, Label],
    decided: frozenset[int] | None = None,
    draft: frozenset[int] | None = None,
) -> Table:
    """A row per category, a column per annotator (✓ where they gave it), then the
    decision (and the adjudicator's draft), and each annotator's note under the table."""
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    table.add_column("category", no_wrap=True, overflow="ellipsis")
    names = list(labels)
    for name in names:
        table.add_column(literal(one_line(name, 14)), justify="center")
    if decided is not None:
        table.add_column("decided", justify="center")
    if draft is not None:
        table.add_column("yours", justify="center")
    for category in categories:
        row = [_category_cell(category)]
        row += [_mark(category.id in labels[name].category_ids) for name in names]
        if decided is not None:
            row.append(_mark(category.id in decided))
        if draft is not None:
            row.append(_mark(category.id in draft, "bold yellow"))
        table.add_row(*row)
    row = [Text("(none fits)", style="italic")] + [
        _mark(labels[n].labelled and not labels[n].category_ids) for n in names
    ]
    if decided is not None:
        row.append(_mark(not decided))
    if draft is not None:
        row.append(_mark(not draft, "bold yellow"))
    table.add_row(*row)
    return table


def labels_view(
    categories: Sequence[FailureCategory],
    labels: dict[str, Label],
    decided: frozenset[int] | None,
    draft: frozenset[int] | None,
    width: int,
) -> RenderableType:
    """The side-by-side table when it fits in `width` cells; else every annotator's label
    stacked, a row each with the names whole, over a table of how many gave each category
    (a column per annotator at 80 columns would cut every name to nothing)."""
    table = side_by_side(categories, labels, decided, draft)
    if Console(width=1000).measure(table).maximum <= width:
        return table
    return Group(stacked(categories, labels, width), given_table(categories, labels, decided, draft, width))


def stacked(categories: Sequence[FailureCategory], labels: dict[str, Label], width: int = 80) -> Text:
    """'ana  4 Misleading Information' per annotator and category (a long name on a line of
    its own, the categories under it); a category not everyone gave is yellow."""
    shared = frozenset.intersection(*(label.category_ids for label in labels.values())) if labels else frozenset()
    text = Text()
    for name, label in labels.items():
        given = [c for c in categories if c.id in label.category_ids]
        cells = [_category_cell(c) if c.id in shared else _category_cell(c, "yellow") for c in given]
        cells = cells or [Text("(none fits)", style="italic")]
        text.append_text(literal(name, "bold"))
        inline = cell_len(printable(name)) + 2 + max(cell.cell_len for cell in cells) <= width
        for n, cell in enumerate(cells):
            text.append("  " if inline and n == 0 else "\n" + " " * (cell_len(printable(name)) + 2 if inline else 2))
            text.append_text(cell)
        text.append("\n")
    return text


def given_table(
    categories: Sequence[FailureCategory],
    labels: dict[str, Label],
    decided: frozenset[int] | None,
    draft: frozenset[int] | None,
    width: int,
) -> Table:
    """A row per category: how many annotators gave it (of how many), the decision, yours;
    the category names give way to fit `width`."""
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    figures = [
        ("given", 5),
        *([("decided", 7)] if decided is not None else []),
        *([("yours", 5)] * (draft is not None)),
    ]
    room = width - sum(cells + 3 for _, cells in figures)  # each column with its padding and the gap
    table.add_column("category", no_wrap=True, overflow="ellipsis", max_width=max(8, room))
    for name, cells in figures:
        table.add_column(name, justify="center", no_wrap=True, min_width=cells)
    everyone = len(labels)
    for category in categories:
        count = sum(category.id in label.category_ids for label in labels.values())
        style = "yellow" if 0 < count < everyone else ("bold green" if count else "dim")
        row = [_category_cell(category), Text(f"{count}/{everyone}", style=style)]
        if decided is not None:
            row.append(_mark(category.id in decided))
        if draft is not None:
            row.append(_mark(category.id in draft, "bold yellow"))
        table.add_row(*row)
    none = sum(label.labelled and not label.category_ids for label in labels.values())
    row = [
        Text("(none fits)", style="italic"),
        Text(f"{none}/{everyone}", style="yellow" if 0 < none < everyone else ""),
    ]
    if decided is not None:
        row.append(_mark(not decided))
    if draft is not None:
        row.append(_mark(not draft, "bold yellow"))
    table.add_row(*row)
    return table


def _category_cell(category: FailureCategory, style: str = "") -> Text:
    cell = Text(f"{printable(category.key or ' ')} ", style="bold " + style)
    cell.append_text(literal(one_line(category.name, 26), style))
    return cell


def _mark(on: bool, style: str = "bold green") -> Text:
    return Text("✓", style=style) if on else Text("·", style="dim")


def notes_text(labels: dict[str, Label]) -> Text:
    """'ana: the year is wrong' per annotator with a note."""
    text = Text()
    for name, label in labels.items():
        if label.note:
            text.append_text(literal(name, "bold"))
            text.append(": ")
            text.append_text(literal(label.note))
            text.append("\n")
    return text


def item_line(item: ItemLabels, names: dict[int, str], reference: str) -> Text:
    """One answer of the adjudication queue on one line: claim, then each annotator's categories."""
    line = literal(f"claim {item.claim_id} {reference}", "bold")
    line.append(f" · {item.state}")
    for annotator, ids in item.labels.items():
        line.append("\n    ")
        line.append_text(literal(annotator, "bold"))
        line.append(": ")
        line.append_text(literal("; ".join(names[i] for i in sorted(ids)) or "(none fits)"))
    if item.adjudication is not None:
        decision = item.adjudication
        line.append(f"\n    decision {decision.version} by ", style="green")
        line.append_text(literal(decision.adjudicator, "green"))
        line.append(": ", style="green")
        line.append_text(literal("; ".join(names[i] for i in sorted(decision.category_ids)) or "(none fits)", "green"))
    return line


def value_text(kind: str, value) -> str:
    """A history value in words: a list of categories, a score, a note, yes/no."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return "; ".join(map(str, value)) or "(none)"
    if isinstance(value, dict):
        chosen = "; ".join(value.get("categories") or []) or "(none)"
        by = f" (by {value['by']})" if value.get("by") else ""
        note = f" — {value['note']}" if value.get("note") else ""
        return f"{chosen}{by}{note}"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def history_lines(entries: Sequence[HistoryEntry], width: int = 60) -> Text:
    """The claim detail's History tab: newest first, one change per line (names literal)."""
    if not entries:
        return Text("no label of this claim has changed yet", style="dim")
    text = Text()
    for entry in entries:
        text.append(entry.changed_at[:19].replace("T", " "), style="dim")
        text.append("  ")
        text.append_text(literal(entry.annotator, "bold"))
        if entry.changed_by != entry.annotator:
            text.append(" (by ")
            text.append_text(literal(entry.changed_by))
            text.append(")")
        text.append(f"  {KIND_WORDS.get(entry.kind, entry.kind)}")
        if entry.run_name:
            text.append(" on ")
            text.append_text(literal(one_line(entry.run_name, 30)))
        text.append(f"  [{entry.source}]\n", style="dim")
        text.append("    ")
        text.append_text(literal(one_line(value_text(entry.kind, entry.old), width)))
        text.append(" → ")
        text.append_text(literal(one_line(value_text(entry.kind, entry.new), width), "bold"))
        text.append("\n")
    return text


def history_table(entries: Sequence[HistoryEntry]):
    """Every change to a claim's labels, newest first: when, whose (and who changed it when
    someone else did), on which run, old -> new, from where; narrowed by priority to fit."""
    from workbench.render.listing import Column, Listing

    if not entries:
        return Text("no label of this claim has changed yet")
    listing = Listing(
        Column("when", "number", 90),
        Column("whose", "name", 100),
        Column("what", "label", 70),
        Column("run", "name", 95),
        Column("old → new", "text", 80, readable=20),
        Column("from", "label", 40),
    )
    for e in entries:
        whose = literal(e.annotator)
        if e.changed_by != e.annotator:
            whose.append_text(literal(f"\n(by {e.changed_by})", "dim"))
        change = literal(value_text(e.kind, e.old) + " → ")
        change.append_text(literal(value_text(e.kind, e.new), "bold"))
        listing.add_row(
            e.changed_at[:16].replace("T", " "),
            whose,
            KIND_WORDS.get(e.kind, e.kind),
            literal(e.run_name or "—"),
            change,
            literal(e.source),
        )
    return listing


def history_dicts(entries: Sequence[HistoryEntry]) -> list[dict]:
    return [
        {
            "when": e.changed_at,
            "annotator": e.annotator,
            "changed_by": e.changed_by,
            "kind": e.kind,
            "run": e.run_name,
            "prediction_id": e.prediction_id,
            "old": e.old,
            "new": e.new,
            "source": e.source,
        }
        for e in entries
    ]
