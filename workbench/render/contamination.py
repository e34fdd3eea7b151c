"""The contamination analyses as Rich renderables, for the CLI and the TUI alike: a claim's
oracle and generated evidence side by side (matched pairs aligned with their pair score f,
the claim score against tau), the per-model summary, combined flag sets and the threshold
sweep. Evidence and model output are untrusted: shown literally."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

from store import Claim, ScoreRow
from workbench.contamination.pipeline_evidence import EvidenceSide, aligned_rows
from workbench.render.display import literal, one_line, printable
from workbench.render.listing import Column, FirstThatKeeps, Fitted, Listing, pieces

if TYPE_CHECKING:
    from workbench.contamination.comparison import ProbeComparison
    from workbench.contamination.flagging import GroupSummary
    from workbench.contamination.sweep import SweepResult

SWEEP_SHOWN_EVERY = 5  # table rows every 0.05


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
        table.add_row(
            _numbered(left, o),
            number(f, 2) if f is not None else "",
            _numbered(right, g),
            style=None if f is not None else "dim",
        )
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
        return Text(
            f"not scorable: {row.n_oracle} oracle, {row.n_generated} generated evidence sentences", style="yellow"
        )
    total = sum(f for _, _, f in row.pairs)
    text = Text(f"s = {row.score:.3f}", style="bold")
    text.append(
        f" (matched f sum {total:.3f} / {row.n_oracle} oracle sentences; {row.n_generated} generated)"
        f" · tau {tau:.2f} · "
    )
    above = row.score >= tau
    text.append("flagged contaminated" if flagged else "not flagged", style="red bold" if flagged else "green")
    if above != flagged:
        text.append(
            f" (s is {'at or above' if above else 'below'} tau; the stored flags were set at another"
            " tau, or before the scores changed)",
            style="dim",
        )
    return text


def summary_table(summaries: list[GroupSummary], title: str = "contamination by model and metric") -> FirstThatKeeps:
    """S, tau and the share flagged per model, metric and extractor (model names never cut;
    the extractor, then tau give way first; when narrow, each metric under its model)."""
    return FirstThatKeeps(_summary_listing(summaries, title, False), _summary_listing(summaries, title, True))


def _summary_listing(summaries: list[GroupSummary], title: str, narrow: bool) -> Listing:
    from workbench.contamination.probes import probe_label, split_probe

    table = Listing(
        *_model_columns(narrow),
        Column("shown", "label", priority=6),
        Column("extractor", "whole", priority=2),
        Column("scorable", "number", priority=8, justify="right"),
        Column("S", "number", priority=9, justify="right"),
        Column("tau", "number", priority=4, justify="right"),
        Column("flagged", "number", priority=9, justify="right"),
        Column("share", "number", priority=7, justify="right"),
        title=title,
    )
    for s in summaries:
        table.add_row(
            *_model_cells(s.target_model, split_probe(s.metric)[0], narrow),
            probe_label(s.metric),
            literal(s.extractor_model),
            f"{s.scorable:,}/{s.claims:,}",
            number(s.mean_score),
            f"{s.tau:.2f}",
            f"{s.would_flag:,}",
            _share(s),
        )
    return table


def _model_columns(narrow: bool) -> list[Column]:
    if narrow:
        return [Column("model · metric", "name")]
    return [Column("model", "name"), Column("metric", "name")]


def _model_cells(model: str, metric: str, narrow: bool) -> list:
    if narrow:  # the metric beside its model, or under it
        return [pieces(literal(model), Text.assemble("· ", literal(metric)))]
    return [literal(model), literal(metric)]


def _share(s: GroupSummary) -> str:
    return "" if s.share_flagged is None else f"{s.share_flagged:.1%}"


def probe_table(comparisons: list[ProbeComparison]) -> Group:
    """Text only against with image: S both ways, the paired difference, the flags."""
    layouts = (_probe_listing(comparisons, narrow) for narrow in (False, True))
    caption = "image − text: S with image minus S text only [95% paired bootstrap CI]; flagged: text → image"
    return Group(FirstThatKeeps(*layouts, priority=8), Text(caption, style="dim"))


def _probe_listing(comparisons: list[ProbeComparison], narrow: bool) -> Listing:
    table = Listing(
        *_model_columns(narrow),
        Column("claims", "number", priority=8, justify="right"),
        Column("S text", "number", priority=7, justify="right"),
        Column("S image", "number", priority=7, justify="right"),
        Column("image − text", "figure", priority=9, justify="right"),
        Column("p", "number", priority=6, justify="right"),
        Column("flagged", "whole", priority=8, justify="right"),
        Column("McNemar p", "number", priority=5, justify="right"),
        title="text only vs with image (image claims scored both ways)",
    )
    for c in comparisons:
        d = c.difference
        test = ["—", ""] if d is None else [f"{d.delta:+.3f} [{d.low:+.3f}, {d.high:+.3f}]", f"{d.p_value:.3g}"]
        table.add_row(
            *_model_cells(c.target_model, c.metric, narrow),
            f"{c.claims:,}",
            number(c.text_mean),
            number(c.image_mean),
            *test,
            f"{c.flagged_text:,} → {c.flagged_image:,}",
            f"{c.flags.p_value:.3g}",
        )
    return table


def slices_table(field: str, sliced: dict[str, list[GroupSummary]]) -> FirstThatKeeps:
    """S and the share flagged of each model and metric within each subset of claims."""
    return FirstThatKeeps(_slices_listing(field, sliced, False), _slices_listing(field, sliced, True))


def _slices_listing(field: str, sliced: dict[str, list[GroupSummary]], narrow: bool) -> Listing:
    from workbench.contamination.probes import probe_label, split_probe

    table = Listing(
        Column(field, "label", priority=10, readable=10),  # slice values are data: literal
        *_model_columns(narrow),
        Column("shown", "label", priority=6),
        Column("scorable", "number", priority=7, justify="right"),
        Column("S", "number", priority=9, justify="right"),
        Column("flagged", "number", priority=8, justify="right"),
        Column("share", "number", priority=5, justify="right"),
        title=f"by {field}",
    )
    for value, rows in sliced.items():
        for s in rows:
            table.add_row(
                literal(value),
                *_model_cells(s.target_model, split_probe(s.metric)[0], narrow),
                probe_label(s.metric),
                f"{s.scorable:,}/{s.claims:,}",
                number(s.mean_score),
                f"{s.would_flag:,}",
                _share(s),
            )
    return table


def combined_table(rows: list[tuple[str, str, int]]) -> FirstThatKeeps:
    """Each combined (intersection) flag set: its models, its metrics, its claims (when
    narrow, the metrics under the models; a list breaks after a "&", never inside a name)."""
    return FirstThatKeeps(_combined_listing(rows, False), _combined_listing(rows, True), priority=9)


def _combined_listing(rows: list[tuple[str, str, int]], narrow: bool) -> Listing:
    from workbench.contamination.flagging import JOIN

    def joined(names: str) -> Fitted:
        return pieces(*(literal(name) for name in names.split(JOIN)), joiner=JOIN)

    columns = [Column("models · metrics", "name")] if narrow else [Column("models", "name"), Column("metrics", "name")]
    table = Listing(
        *columns, Column("claims", "number", priority=9, justify="right"), title="combined flags (intersection)"
    )
    for model, metric, count in rows:
        cells = [_under(joined(model), joined(metric))] if narrow else [joined(model), joined(metric)]
        table.add_row(*cells, f"{count:,}")
    return table


def _under(models: Fitted, metrics: Fitted) -> Fitted:
    """The models, and their metrics under them after a "· "."""

    def draw(width: int) -> Text:
        return Text.assemble(models.draw(width), "\n· ", metrics.draw(max(width - 2, 1)))

    return Fitted(max(models.minimum, metrics.minimum + 2), max(models.natural, metrics.natural + 2), draw)


def sweep_table(result: SweepResult) -> Listing:
    """Agreement every 0.05, plus the best tau (marked)."""
    table = Listing(
        Column("tau", "id", justify="right"),
        Column("agreement", "number", priority=9, justify="right"),
        Column("", "whole", priority=1),
        title=f"agreement with {result.labelled} labelled claims ({result.positives} contaminated)",
    )
    best_index = result.taus.index(result.best_tau)
    for i, (tau, agreement) in enumerate(zip(result.taus, result.agreement)):
        if i % SWEEP_SHOWN_EVERY and i != best_index:
            continue
        bar = "█" * round(agreement * 20)
        mark = " ◀ best" if i == best_index else ""
        style = "bold" if mark else ""
        table.add_row(Text(f"{tau:.2f}", style), Text(f"{agreement:.3f}", style), Text(bar + mark, style))
    return table


def sweep_verdict(result: SweepResult) -> Text:
    """The best tau in words, saying how a tie was settled."""
    c = result.confusion
    text = Text(f"best tau {result.best_tau:.2f}: agreement {result.best_agreement:.3f}", style="bold")
    if result.is_tie:
        low, high = result.tied
        text.append(f" (tied from {low:.2f} to {high:.2f}; the middle of that range is chosen")
        text.append(f"; {result.other_ties} other tied taus lie outside it)" if result.other_ties else ")")
    text.append(
        f"\nat that tau: {c['flagged_contaminated']} contaminated flagged, {c['missed_contaminated']}"
        f" missed, {c['flagged_clean']} clean flagged, {c['passed_clean']} clean passed"
    )
    k = result.kappa
    if k is not None:
        text.append("\nCohen's kappa of the flag against people's labels: ")
        text.append(
            f"{k.value:.3f}" + (f" [{k.low:.3f}, {k.high:.3f}]" if k.low is not None else "")
            if k.value is not None
            else f"— ({k.undefined})"
        )
    return text


def people_line(found) -> Text:
    """How far the people who labelled contamination agree with each other."""
    text = Text("people's labels: ", style="bold")
    if found.unavailable:
        text.append(found.unavailable)
        return text
    category = found.categories[0]
    names = ", ".join(c.annotator for c in found.annotators if c.labelled)
    text.append(
        f"{found.compared:,} claims labelled by two or more of {printable(names)}: agreement"
        f" {category.observed.value:.3f}, {found.kappa_name} "
    )
    text.append(_estimate(category.kappa))
    text.append(", Krippendorff's alpha ")
    text.append(_estimate(category.alpha))
    return text


def _estimate(found) -> str:
    if found.value is None:
        return f"— ({found.undefined})"
    return f"{found.value:.3f}" + (f" [{found.low:.3f}, {found.high:.3f}]" if found.low is not None else "")


def article_block(text: str | None) -> Group:
    heading = Text("the target model's article", style="bold")
    return Group(heading, literal(text or "(none)"))


def note(text: str) -> Text:
    return Text(one_line(text), style="dim")
