"""A claim rendered with Rich, untrusted text literal, as Text for the TUI's detail and
triage screens (the CLI's `show` draws its panels in workbench/render/claim_panels.py).

Evidence is shown exactly as each input setting presents it to a model (the windows
come from workbench.prompting.evidence), with the quoted passage highlighted where it lies.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from store import Claim, ClaimJudgment, Flag, Prediction, Run
from store.text_matches import text_matcher
from workbench.prompting.evidence import Window, full_window, page_windows, qa_pairs, reference_passages
from workbench.render.claim_panels import claim_facts, highlighted
from workbench.render.display import literal, printable
from workbench.render.search_marks import SEARCH_MATCH, marked
from workbench.render.verdicts import field_line, verdict_line

PASSAGE = "bold reverse"
NONE = Text("(none for this claim)", style="dim italic")


def claim_header(claim: Claim) -> Text:
    """'claim 42 · demo:js-7 · gold Refuted · Main' on one line."""
    line = Text(f"claim {claim.id}", style="bold")
    line.append(f" · {printable(claim.dataset)}:{printable(claim.external_id)}")
    line.append(" · gold ")
    line.append(printable(claim.label or "—"), style="bold")
    if claim.importance:
        line.append(f" · {claim.importance}")
    return line


def claim_body(claim: Claim, flags: list[Flag], find: str = "") -> Text:
    """The claim, its metadata and attributes, then the question and the full response; what
    the filter `find` searches for is marked in the claim."""
    body = Text()
    body.append_text(marked(claim.text, text_matcher(find).spans(claim.text), "bold"))
    body.append("\n\n")
    rows = claim_facts(claim)
    rows += [
        (f"attr.{key}", value if isinstance(value, str) else str(value)) for key, value in claim.attributes.items()
    ]
    for name, value in rows:
        if value not in (None, "", [], {}):
            body.append_text(field_line(name, value))
            body.append("\n")
    for flag in flags:
        body.append_text(field_line("flag", flag_summary(flag)))
        body.append("\n")
    if claim.question or claim.response:
        body.append("\nQuestion\n", style="bold underline")
        body.append_text(literal(claim.question or "(none)"))
        body.append("\n\nResponse", style="bold underline")
        span = None
        if claim.claim_start is not None and claim.claim_end is not None:
            span = (claim.claim_start, claim.claim_end)
            body.append("  (the claim's place is highlighted)", style="dim")
        body.append("\n")
        body.append_text(highlighted(claim.response or "", span, PASSAGE))
    return body


def flag_summary(flag: Flag) -> str:
    parts = [flag.kind, flag.source]
    if flag.model:
        parts.append(flag.model)
    if flag.who:
        parts.append(f"by {flag.who}")
    text = " · ".join(printable(p) for p in parts)
    return text + (f" — {printable(flag.note)}" if flag.note else "")


def _source_line(number: int, url: str | None, title: str | None, cited: bool) -> Text:
    line = Text(f"[{number}] ", style="bold")
    if cited:
        line.append("CITED", style="bold underline")
        line.append(" ")
    line.append(printable(title or "(no title)"), style="bold")
    line.append("\n")
    line.append(printable(url or "(no url)"), style="underline dim")
    line.append("\n")
    return line


def reference_body(claim: Claim, find: str = "") -> Text:
    """The Reference setting: the annotators' quoted passages (or a dataset's snippets); what
    the `evidence:` terms of the filter `find` search for is marked."""
    windows = reference_passages(claim)
    if not windows:
        return NONE.copy()
    body = Text()
    for n, window in enumerate(windows, start=1):
        body.append_text(_source_line(n, window.url, window.title, window.is_cited))
        body.append_text(_found(literal(window.text), find))
        body.append("\n\n")
    return body


def full_body(claim: Claim, find: str = "") -> Text:
    """The Full setting: the cited page's window around the passage, passage highlighted (and
    what `find`'s evidence: terms search for marked)."""
    window = full_window(claim)
    if window is None:
        return NONE.copy()
    body = _source_line(1, window.url, window.title, window.is_cited)
    body.append(
        f"characters {window.start:,}–{window.end:,} of {window.total_chars:,}"
        " (the window a model sees; the quoted passage highlighted)\n\n",
        style="dim",
    )
    body.append_text(_window_text(window, find))
    return body


def _window_text(window: Window, find: str = "") -> Text:
    """A window's text, passage highlighted, with … where the window cuts the page (as a model sees)."""
    text = Text("…", style="dim") if window.clipped_before else Text()
    text.append_text(_found(highlighted(window.text, window.highlight, PASSAGE), find))
    if window.clipped_after:
        text.append("…", style="dim")
    return text


def _found(text: Text, find: str) -> Text:
    """`text` with what the filter's evidence: terms search for marked (over the passage's style)."""
    for start, end in text_matcher(find, "evidence").spans(text.plain):
        text.stylize(SEARCH_MATCH, start, end)
    return text


def pages_body(claim: Claim, find: str = "") -> Text:
    """The Pages setting: every candidate page's window, the cited one marked."""
    windows = page_windows(claim)
    if not windows:
        return NONE.copy()
    body = Text()
    for n, window in enumerate(windows, start=1):
        body.append_text(_source_line(n, window.url, window.title, window.is_cited))
        body.append_text(_window_text(window, find))
        body.append("\n\n")
    return body


def qa_body(claim: Claim) -> Text:
    """AVeriTeC question-answer evidence, in order."""
    pairs = qa_pairs(claim)
    if not pairs:
        return NONE.copy()
    body = Text()
    for n, item in enumerate(pairs, start=1):
        body.append(f"Q{n} ", style="bold")
        body.append_text(literal(item.question or ""))
        body.append("\n   A ", style="bold")
        body.append_text(literal(item.text or "No answer could be found."))
        if item.answer_type:
            body.append(f"  ({printable(item.answer_type)})", style="dim")
        if item.explanation:
            body.append("\n     ")
            body.append_text(literal(item.explanation, "italic"))
        if item.url:
            body.append("\n     ")
            body.append(printable(item.url), style="underline dim")
        body.append("\n\n")
    return body


def verdict_item(
    run: Run, prediction: Prediction, gold: str | None, scored: set[str] | None, judgments: Sequence[ClaimJudgment] = ()
) -> Text:
    """One run's answer: run name and model, verdict beside gold, explanation, and how
    judges and people scored the explanation."""
    item = Text(printable(run.name), style="bold")
    item.append(f"  {printable(run.model)}", style="dim")
    if run.setting:
        item.append(f" · {printable(run.setting)}", style="dim")
    item.append("\n  ")
    item.append_text(verdict_line(prediction, gold, scored))
    explanation = prediction.explanation or ("" if prediction.status == "ok" else prediction.error)
    if explanation:
        item.append("\n  ")
        item.append_text(literal(explanation))
    for judgment in judgments:
        item.append("\n  ")
        item.append_text(judgment_line(judgment, prediction.outcome))
    return item


def judgment_line(judgment: ClaimJudgment, outcome: str | None) -> Text:
    """'EQ 8 by judge-run: why' (or what went wrong), with a mark when the score is
    outside the band the rubric allows for the verdict."""
    line = Text("EQ ", style="bold")
    if judgment.score is None:
        line.append("unreadable" if judgment.status == "parse_failure" else "no judgment", style="dim")
    else:
        line.append(f"{judgment.score:g}", style="bold")
        low, high = (5, 10) if outcome == "correct" else (0, 4)
        if not low <= judgment.score <= high:
            line.append(f" (outside the rubric's {low}-{high})", style="red")
    line.append(" by ")
    line.append_text(literal(judgment.judge, "dim"))
    if judgment.justification:
        line.append(": ")
        line.append_text(literal(judgment.justification))
    return line
