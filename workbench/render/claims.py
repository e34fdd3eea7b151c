"""A claim rendered for the terminal with Rich (the CLI's `show`); untrusted text literal."""

from __future__ import annotations

import json
from collections.abc import Iterator

from rich.console import RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from store import Claim, Dataset, Flag
from workbench.render.display import literal, printable
from workbench.evidence import full_window, page_windows, qa_pairs, qa_text, reference_passages


def highlighted(text: str, span: tuple[int, int] | None, style: str = "reverse") -> Text:
    """Literal text with one span highlighted (the claim in its response, a quote in a page)."""
    result = Text()
    if span is None:
        return literal(text)
    start, end = span
    result.append(printable(text[:start]))
    result.append(printable(text[start:end]), style=style)
    result.append(printable(text[end:]))
    return result


def claim_panels(claim: Claim, dataset: Dataset | None, flags: list[Flag]) -> Iterator[RenderableType]:
    """Claim, metadata, Q&R context, then each evidence setting's view."""
    # Titles are Text, never strings: Rich would parse a string title as markup.
    yield Panel(literal(claim.text), title=literal(f"claim {claim.id} ({claim.dataset}:{claim.external_id})"),
                title_align="left")
    yield _metadata(claim, dataset, flags)
    if claim.question or claim.response:
        span = (claim.claim_start, claim.claim_end) if claim.claim_start is not None else None
        body = Text.assemble(literal(f"Q: {claim.question or ''}\n\n", "bold"),
                             highlighted(claim.response or "", span))
        yield Panel(body, title="question and response", title_align="left")
    for window in reference_passages(claim):
        yield Panel(literal(window.text), title="Reference (quoted passage)", title_align="left")
    full = full_window(claim)
    if full is not None:
        title = literal(f"Full ({len(full.text):,} of {full.total_chars:,} chars) {full.url or ''}")
        yield Panel(highlighted(full.text, full.highlight), title=title, title_align="left")
    for n, window in enumerate(page_windows(claim), start=1):
        mark = " CITED" if window.is_cited else ""
        title = literal(f"Page {n}{mark}: {window.title or ''} {window.url or ''}")
        yield Panel(highlighted(window.text, window.highlight), title=title, title_align="left")
    qa = qa_pairs(claim)
    if qa:
        yield Panel(literal("\n".join(qa_text(item) for item in qa)), title="question-answer evidence",
                    title_align="left")


def _metadata(claim: Claim, dataset: Dataset | None, flags: list[Flag]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    rows = [
        ("gold label", claim.label), ("label in file", claim.raw_label if claim.raw_label != claim.label else None),
        ("label space", ", ".join(dataset.label_space.labels) if dataset else None),
        ("reference time", claim.reference_time), ("claim date", claim.claim_date),
        ("importance", claim.importance), ("task", claim.task), ("domain", claim.domain),
        ("source", claim.source), ("article", claim.article_url),
        ("justification", claim.justification),
        ("flags", ", ".join(f"{f.kind} ({f.source}{', ' + f.model if f.model else ''})" for f in flags)),
    ]
    rows += [(f"attr.{key}", value) for key, value in claim.attributes.items()]
    for name, value in rows:
        if value not in (None, "", [], {}):
            shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            table.add_row(literal(name), literal(shown))
    return table
