"""Rich renderings for `workbench contamination ...`: a claim's evidence side by side,
the summary table, the threshold sweep. Untrusted text (evidence, model output) is
always shown literally."""

from __future__ import annotations

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

from workbench.render.evidence_pairs import number
from workbench.contamination.flagging import GroupSummary
from workbench.contamination.sweep import SweepResult
from workbench.render.display import literal, one_line

SWEEP_SHOWN_EVERY = 5  # table rows every 0.05


def summary_table(summaries: list[GroupSummary]) -> Table:
    table = Table(box=box.SIMPLE_HEAD, title="contamination by model and metric", pad_edge=False,
                  collapse_padding=True)
    for header in ("model", "metric", "extractor"):
        table.add_column(header, overflow="fold", min_width=8)
    for header in ("scorable", "S", "tau", "flagged", "share"):
        table.add_column(header, justify="right", no_wrap=True)
    for s in summaries:
        share = "" if s.share_flagged is None else f"{s.share_flagged:.1%}"
        table.add_row(literal(s.target_model), literal(s.metric), literal(s.extractor_model),
                      f"{s.scorable:,}/{s.claims:,}", number(s.mean_score), f"{s.tau:.2f}", f"{s.would_flag:,}", share)
    return table


def combined_table(rows: list[tuple[str, str, int]]) -> Table:
    table = Table(box=box.SIMPLE_HEAD, title="combined flags (intersection)")
    table.add_column("models", overflow="fold")
    table.add_column("metrics", overflow="fold")
    table.add_column("claims", justify="right")
    for model, metric, count in rows:
        table.add_row(literal(model), literal(metric), f"{count:,}")
    return table


def sweep_table(result: SweepResult) -> Table:
    """Agreement every 0.05, plus the best tau (marked)."""
    table = Table(box=box.SIMPLE_HEAD, title=f"agreement with {result.labelled} labelled claims"
                                             f" ({result.positives} contaminated)")
    table.add_column("tau", justify="right")
    table.add_column("agreement", justify="right")
    table.add_column("", no_wrap=True)
    best_index = result.taus.index(result.best_tau)
    for i, (tau, agreement) in enumerate(zip(result.taus, result.agreement)):
        if i % SWEEP_SHOWN_EVERY and i != best_index:
            continue
        bar = "█" * round(agreement * 20)
        mark = " ◀ best" if i == best_index else ""
        table.add_row(f"{tau:.2f}", f"{agreement:.3f}", bar + mark, style="bold" if mark else None)
    return table


def sweep_verdict(result: SweepResult) -> Text:
    """The best tau in words, saying how a tie was settled."""
    c = result.confusion
    text = Text(f"best tau {result.best_tau:.2f}: agreement {result.best_agreement:.3f}", style="bold")
    if result.is_tie:
        low, high = result.tied
        text.append(f" (tied from {low:.2f} to {high:.2f}; the middle of that range is chosen")
        text.append(f"; {result.other_ties} other tied taus lie outside it)" if result.other_ties else ")")
    text.append(f"\nat that tau: {c['flagged_contaminated']} contaminated flagged, {c['missed_contaminated']}"
                f" missed, {c['flagged_clean']} clean flagged, {c['passed_clean']} clean passed")
    return text


def article_block(text: str | None) -> Group:
    heading = Text("the target model's article", style="bold")
    return Group(heading, literal(text or "(none)"))


def note(text: str) -> Text:
    return Text(one_line(text), style="dim")
