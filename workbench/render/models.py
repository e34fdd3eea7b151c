"""The local models table (`workbench models`), names and file names shown literally."""

from __future__ import annotations

from rich import box
from rich.table import Table
from rich.text import Text

from workbench.render.display import literal


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


def models_table(rows: list[dict]) -> Table:
    """One row per model: name (file and projector below it), source, quantisation,
    parameters, context length, chat template, size."""
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    table.add_column("model (gguf:NAME)", min_width=24, overflow="fold")
    for header in ("source", "quant", "params", "ctx", "chat", "size"):
        table.add_column(header, justify="right" if header in ("params", "ctx", "size") else "left", no_wrap=True)
    for row in rows:
        label = literal(row["name"], "bold")
        label.append_text(Text("\n")).append_text(literal(row["path"], "dim"))
        if row.get("projector"):
            label.append_text(literal(f"\n+ vision projector {row['projector']}", "dim"))
        if row.get("parts", 1) > 1:
            label.append(f"\n{row['parts']} parts", style="dim")
        if row.get("problem"):
            label.append_text(literal("\n" + row["problem"], "red"))
        chat = {True: "yes", False: "no", None: "?"}[row.get("chat_template")]
        ctx = f"{row['context_length']:,}" if row.get("context_length") else "?"
        table.add_row(
            label,
            literal(row["source"]),
            literal(row.get("quantisation") or "?"),
            parameters_text(row.get("parameters")),
            ctx,
            chat,
            size_text(row["size"]),
        )
    return table
