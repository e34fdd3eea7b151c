"""The local models table (`workbench models`), names and file names shown literally."""

from __future__ import annotations

from rich.text import Text

from workbench.render.display import literal, printable


def size_text(size: int) -> str:
    """Bytes as 98 MB, 4.7 GB."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}" if size < 10 * scale else f"{size / scale:.0f} {unit}"
    return f"{size} B"


def parameters_text(count: int | None) -> str:
    """Weights as 135M, 7.2B."""
    if not count:
        return "?"
    for unit, scale in (("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if count >= scale:
            return f"{count / scale:.1f}{unit}" if count < 10 * scale else f"{count / scale:.0f}{unit}"
    return str(count)


def models_listing(rows: list[dict]):
    """One row per model: name (its file below it, the folders in the middle of the path
    giving way first), source, quantisation, parameters, context length, chat template, size."""
    from workbench.render.listing import Column, Listing

    listing = Listing(
        Column("model (gguf:NAME)", "name", 100, readable=30),
        Column("source", "label", 20),
        Column("quant", "label", 50),
        Column("params", "number", 60, "right"),
        Column("ctx", "number", 30, "right"),
        Column("chat", "label", 40),
        Column("size", "number", 70, "right"),
    )
    for row in rows:
        chat = {True: "yes", False: "no", None: "?"}[row.get("chat_template")]
        ctx = f"{row['context_length']:,}" if row.get("context_length") else "?"
        listing.add_row(
            _model_cell(row),
            literal(row["source"]),
            literal(row.get("quantisation") or "?"),
            parameters_text(row.get("parameters")),
            ctx,
            chat,
            size_text(row["size"]),
        )
    return listing


def _model_cell(row: dict):
    """The model's name, whole, above its path shortened to the column (file name kept)."""
    from workbench.render.display import cells
    from workbench.render.listing import Fitted, path_width, short_path

    path = printable(row["path"])

    def draw(width: int) -> Text:
        label = literal(row["name"], "bold")
        label.append_text(literal("\n" + short_path(path, width), "dim"))
        if row.get("projector"):
            label.append_text(literal(f"\n+ vision projector {row['projector']}", "dim"))
        if row.get("parts", 1) > 1:
            label.append(f"\n{row['parts']} parts", style="dim")
        if row.get("problem"):
            label.append_text(literal("\n" + row["problem"], "red"))
        return label

    name = cells(printable(row["name"]))
    return Fitted(max(name, path_width(path)), max(name, cells(path)), draw)
