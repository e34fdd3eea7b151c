"""What the triage screen shows: the answer beside the gold label, and the category panel."""

from __future__ import annotations

from rich.text import Text

from workbench.render.display import literal, printable
from workbench.tui.bundles import TriageItem
from workbench.render.verdicts import field_line, verdict_line


def answer_body(item: TriageItem) -> Text:
    """Claim, gold, verdict, explanation: what the person triaging reads first."""
    claim, prediction = item.bundle.claim, item.prediction
    body = literal(claim.text, "bold")
    body.append("\n\n")
    body.append_text(field_line("gold", claim.label or "—"))
    body.append("\n")
    body.append(f"{'verdict':<15}", style="bold")
    body.append_text(verdict_line(prediction, claim.label, item.bundle.scored))
    body.append("\n")
    for name, value in (("reference time", claim.reference_time), ("claim date", claim.claim_date),
                        ("importance", claim.importance)):
        if value:
            body.append_text(field_line(name, value))
            body.append("\n")
    body.append("\nExplanation\n", style="bold underline")
    explanation = prediction.explanation or prediction.error
    body.append_text(literal(explanation) if explanation else Text("(none)", style="dim"))
    if claim.question:
        body.append("\n\nQuestion\n", style="bold underline")
        body.append_text(literal(claim.question))
    return body


def category_panel(item: TriageItem) -> Text:
    """'[x] 1 Knowledge Error   3' per category, then the review state and note."""
    panel = Text("Failure categories\n", style="bold underline")
    for category in item.categories:
        on = category.id in item.assigned
        panel.append("[x] " if on else "[ ] ", style="bold green" if on else "dim")
        panel.append(f"{printable(category.key or ' ')} ", style="bold")
        panel.append(printable(category.name)[:22], style="bold" if on else "")
        panel.append(f" {item.counts.get(category.name, 0)}\n", style="dim")
    panel.append("\n")
    panel.append("reviewed ✓" if item.reviewed else "not reviewed", style="bold green" if item.reviewed else "yellow")
    panel.append("\n")
    if item.note:
        panel.append("note: ", style="bold")
        panel.append_text(literal(item.note))
        panel.append("\n")
    panel.append("\nkeys: a category's key toggles it; r reviewed + next; e note; + new category",
                 style="dim")
    return panel
