"""One claim whole, as `workbench show` prints it: the claim, its metadata, the question
and response, then each evidence setting's view, in Rich panels.

Evidence is shown exactly as each input setting presents it to a model (the windows come
from workbench.prompting.evidence), with the quoted passage highlighted where it lies.
Untrusted text is literal throughout; titles too (a str title would be read as markup).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from store import Claim, Dataset, Flag
from workbench.prompting.evidence import full_window, page_windows, qa_pairs, qa_text, reference_passages
from workbench.render.display import literal, printable
from workbench.render.search_marks import finder, marked


def highlighted(text: str, span: tuple[int, int] | None, style: str = "reverse") -> Text:
    """Literal text with one span highlighted (the claim in its response, a quote in a page)."""
    if span is None:
        return literal(text)
    start, end = span
    highlighted_text = Text(printable(text[:start]))
    highlighted_text.append(printable(text[start:end]), style=style)
    highlighted_text.append(printable(text[end:]))
    return highlighted_text


def claim_panels(claim: Claim, dataset: Dataset | None, flags: list[Flag], find: str = "") -> Iterator[Panel | Table]:
    """Claim, metadata, Q&R context, then each evidence setting's view; what the filter
    `find` searches for is marked in the claim (its evidence: terms, in the evidence)."""
    in_claim, in_evidence = finder(find), finder(find, "evidence")
    text = marked(claim.text, in_claim(claim.text))
    yield _panel(text, title=literal(f"claim {claim.id} ({claim.dataset}:{claim.external_id})"))
    yield _metadata(claim, dataset, flags)
    if claim.question or claim.response:
        span = (claim.claim_start, claim.claim_end) if claim.claim_start is not None else None
        body = Text()
        body.append_text(literal(f"Q: {claim.question or ''}\n\n", "bold"))
        body.append_text(highlighted(claim.response or "", span))
        yield _panel(body, title="question and response")
    for window in reference_passages(claim):
        yield _panel(marked(window.text, in_evidence(window.text)), title="Reference (quoted passage)")
    full = full_window(claim)
    if full is not None:
        title = literal(f"Full ({len(full.text):,} of {full.total_chars:,} chars) {full.url or ''}")
        yield _panel(marked(full.text, in_evidence(full.text), passage=full.highlight), title=title)
    for n, window in enumerate(page_windows(claim), start=1):
        mark = " CITED" if window.is_cited else ""
        title = literal(f"Page {n}{mark}: {window.title or ''} {window.url or ''}")
        yield _panel(marked(window.text, in_evidence(window.text), passage=window.highlight), title=title)
    qa = qa_pairs(claim)
    if qa:
        yield _panel(literal("\n".join(qa_text(item) for item in qa)), title="question-answer evidence")


def _panel(body: Text, title: Text | str) -> Panel:
    """A panel as wide as the output, its title on the left (a str title goes in as Text:
    Rich would read it as markup and load its table of emoji codes to do so)."""
    return Panel(body, title=literal(title) if isinstance(title, str) else title, title_align="left")


def claim_facts(claim: Claim) -> list[tuple[str, object]]:
    """The claim's own fields as (name, value) rows, in the order `show` and the TUI list them."""
    return [
        ("gold label", claim.label),
        ("label in file", claim.raw_label if claim.raw_label != claim.label else None),
        ("reference time", claim.reference_time),
        ("claim date", claim.claim_date),
        ("importance", claim.importance),
        ("task", claim.task),
        ("domain", claim.domain),
        ("source", claim.source),
        ("article", claim.article_url),
        ("justification", claim.justification),
    ]


def _metadata(claim: Claim, dataset: Dataset | None, flags: list[Flag]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    rows = claim_facts(claim)
    rows.insert(2, ("label space", ", ".join(dataset.label_space.labels) if dataset else None))
    rows.append(("flags", ", ".join(f"{f.kind} ({f.source}{', ' + f.model if f.model else ''})" for f in flags)))
    rows += [(f"image {n}", image_line(image)) for n, image in enumerate(claim.images, start=1)]
    for name, value in rows:
        if value not in (None, "", [], {}):
            table.add_row(
                literal(name), literal(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
            )
    for key, value in claim.attributes.items():  # as the file held them: null and "" too
        shown = value if isinstance(value, str) and value else json.dumps(value, ensure_ascii=False)
        table.add_row(literal(f"attr.{key}"), literal(shown))
    return table


def image_line(image) -> str:
    """'photos/flood.png · image/png · 48.2 KB · 640×480 · sha256 1f3a9c0d2b7e'"""
    parts = [image.source]
    if image.sha256 is None:
        parts.append("not stored (an address: nothing is downloaded)" if image.url else "not stored")
    else:
        parts += [
            image.mime,
            _size(image.bytes),
            f"{image.width}×{image.height}" if image.width else None,
            f"sha256 {image.sha256[:12]}",
        ]
    if image.caption:
        parts.append(f"caption: {image.caption}")
    return " · ".join(part for part in parts if part)


def _size(count: int | None) -> str | None:
    if count is None:
        return None
    for unit in ("bytes", "KB", "MB"):
        if count < 1024 or unit == "MB":
            return f"{count:,} {unit}" if unit == "bytes" else f"{count:.1f} {unit}"
        count /= 1024
