"""What the triage screen shows: the answer beside the gold label, and the category panel."""

from __future__ import annotations

from rich.text import Text

from store import Prediction
from workbench.render.display import literal, printable
from workbench.render.verdicts import field_line, verdict_line
from workbench.tui.bundles import ClaimBundle, TriageItem


def answer_body(bundle: ClaimBundle, prediction: Prediction) -> Text:
    """Claim, gold, verdict, explanation: what the person triaging reads first."""
    claim = bundle.claim
    body = literal(claim.text, "bold")
    body.append("\n\n")
    body.append_text(field_line("gold", claim.label or "—"))
    body.append("\n")
    body.append(f"{'verdict':<15}", style="bold")
    body.append_text(verdict_line(prediction, claim.label, bundle.scored))
    body.append("\n")
    for name, value in (
        ("reference time", claim.reference_time),
        ("claim date", claim.claim_date),
        ("importance", claim.importance),
    ):
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


def category_panel(item: TriageItem, counts: dict[str, int] | None = None) -> Text:
    """'[x] 1 Knowledge Error   3' per category (my labels, my counts over the run), my
    state and note, then the others' labels, or how many are hidden until I am done."""
    panel = Text("My categories\n", style="bold underline")
    for category in item.categories:
        on = category.id in item.assigned
        panel.append("[x] " if on else "[ ] ", style="bold green" if on else "dim")
        panel.append(f"{printable(category.key or ' ')} ", style="bold")
        panel.append(printable(category.name)[:22], style="bold" if on else "")
        count = (counts if counts is not None else item.counts or {}).get(category.name)
        panel.append(f" {'…' if count is None else count}\n", style="dim")
    panel.append("\n")
    panel.append("reviewed ✓" if item.reviewed else "not reviewed", style="bold green" if item.reviewed else "yellow")
    panel.append("\n")
    if item.note:
        panel.append("note: ", style="bold")
        panel.append_text(literal(item.note))
        panel.append("\n")
    panel.append_text(others_text(item))
    panel.append(
        "\nkeys: a category's key toggles it; r reviewed + next; e note; + new category;"
        " < > evidence tabs; a agreement; d adjudicate",
        style="dim",
    )
    return panel


def others_text(item: TriageItem) -> Text:
    """Everyone else's label of this answer (names literal), or that they are hidden."""
    text = Text()
    if item.hidden:
        text.append(
            f"\n{item.hidden} other label{'s' if item.hidden > 1 else ''} hidden until you mark it"
            " reviewed (blind review)\n",
            style="italic",
        )
        return text
    names = {c.id: c.name for c in item.categories}
    if item.others:
        text.append("\nOthers\n", style="bold underline")
    for name, label in item.others.items():
        text.append_text(literal(name, "bold"))
        text.append(": ")
        chosen = "; ".join(names.get(i, "?") for i in sorted(label.category_ids))
        text.append_text(literal(chosen or ("(none fits)" if label.done else "(in progress)")))
        if label.note:
            text.append(" — ")
            text.append_text(literal(label.note, "italic"))
        text.append("\n")
    if item.decision is not None:
        text.append("decided by ", style="green")
        text.append_text(literal(item.decision.adjudicator, "bold green"))
        text.append(": ", style="green")
        chosen = "; ".join(names.get(i, "?") for i in sorted(item.decision.category_ids)) or "(none fits)"
        text.append_text(literal(chosen, "green"))
        text.append("\n")
    return text
