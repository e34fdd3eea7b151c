"""A claim's contamination evidence as Rich renderables, for the CLI and the TUI alike:
oracle and generated evidence side by side, matched pairs aligned with their pair
score f, and the claim score against tau. Evidence is untrusted: shown literally."""

from __future__ import annotations

from rich import box
from rich.table import Table
from rich.text import Text

from store import Claim
from workbench.contamination.pipeline_evidence import EvidenceSide, aligned_rows
from store.contamination import ScoreRow
from workbench.render.display import literal


def number(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def evidence_table(oracle: EvidenceSide, generated: EvidenceSide, row: ScoreRow) -> Table:
    """Oracle and generated evidence side by side, matched pairs aligned with their f."""
    table = Table(box=box.SIMPLE_HEAD, expand=True, show_lines=False)
    table.add_column(f"oracle evidence ({oracle.note})", ratio=1, overflow="fold")
    table.add_column("f", justify="right", no_wrap=True, width=5)
    table.add_column(f"generated evidence ({generated.note})", ratio=1, overflow="fold")
    left, right = oracle.sentences or [], generated.sentences or []
    for o, g, f in aligned_rows(len(left), len(right), row.pairs):
        table.add_row(_numbered(left, o), number(f, 2) if f is not None else "",
                      _numbered(right, g), style=None if f is not None else "dim")
    return table


def _numbered(sentences: list[str], index: int | None) -> Text:
    if index is None or index >= len(sentences):
        return Text("—", style="dim")
    text = Text(f"[{index + 1}] ", style="bold")
    text.append_text(literal(sentences[index]))
    return text


def claim_heading(claim: Claim) -> Text:
    text = Text("claim ", style="bold")
    text.append_text(literal(f"{claim.dataset}:{claim.external_id}"))
    text.append(f" (id {claim.id}): ")
    text.append_text(literal(claim.text))
    return text


def score_line(row: ScoreRow, tau: float, flagged: bool) -> Text:
    """s, its parts, tau and the flag state in words."""
    if not row.scorable:
        return Text(f"not scorable: {row.n_oracle} oracle, {row.n_generated} generated evidence sentences",
                    style="yellow")
    total = sum(f for _, _, f in row.pairs)
    text = Text(f"s = {row.score:.3f}", style="bold")
    text.append(f" (matched f sum {total:.3f} / {row.n_oracle} oracle sentences; {row.n_generated} generated)"
                f" · tau {tau:.2f} · ")
    above = row.score >= tau
    text.append("flagged contaminated" if flagged else "not flagged", style="red bold" if flagged else "green")
    if above != flagged:
        text.append(f" (s is {'at or above' if above else 'below'} tau; the stored flags were set at another"
                    " tau, or before the scores changed)", style="dim")
    return text
