"""A search run's trajectory for one claim, drawn as Rich Text (for `workbench trajectory`
and the TUI), and as plain data.

Everything in it is untrusted (the model's text, queries, pages): literal text only.
"""

from __future__ import annotations

import dataclasses
import re

from rich.text import Text

from store import Step, StoredResult
from workbench.render.display import literal, one_line

KIND_MARKS = {"search": "⌕", "read": "▤", "answer": "✎", "invalid": "!", "limit": "■"}
TOOL_WORDS = {"search_images": "search images", "search_by_image": "search by image", "view_image": "view image"}
"""How image steps are named (a step's kind is search or read; its tool says which)."""
_NUMBER = re.compile(r"\d+")
ImageFacts = dict[str, tuple[str, int, int, int]]
"""sha256 -> (mime, bytes, width, height) of the images a trajectory showed (store.search.image_facts)."""


def trajectory_text(
    steps: list[Step], width: int = 100, pair_labels: list[str] | None = None, facts: ImageFacts | None = None
) -> Text:
    """Each step: what the model did (or wrote), then the results, dropped ones marked; a
    search after the first carries its reformulation label when a judge gave one."""
    text = Text()
    if not steps:
        text.append("no trajectory: this run did not search for this claim", style="dim")
        return text
    labels = iter(pair_labels or [])
    searches = [0]
    for step in steps:
        text.append_text(step_text(step, width, labels, searches, facts or {}))
    return text


def step_text(step: Step, width: int, labels, searches: list[int], facts: ImageFacts) -> Text:
    """One step and its results (`labels` and `searches` carry the reformulation labels along)."""
    text = Text()
    name = TOOL_WORDS.get(step.tool or "", step.kind) if step.kind in ("search", "read") else step.kind
    text.append(f"{step.step:>2} {KIND_MARKS.get(step.kind, '?')} {name}", style="bold")
    if step.query:
        text.append(" ")
        text.append_text(literal(one_line(step.query, width), "cyan"))
    if step.kind == "search" and step.query:
        searches[0] += 1
        label = next(labels, None) if searches[0] > 1 else None
        if label:
            text.append(f"  ← {label}", style="magenta")
    elif step.kind == "read" and step.arguments:
        number = _NUMBER.search(step.arguments)  # view image N, read result N
        text.append(
            f"{'' if step.tool == 'view_image' else ' result'} "
            f"{number.group() if number else one_line(step.arguments, 20)}"
        )
    if step.note:
        text.append("  (")
        text.append_text(literal(one_line(step.note, width)))
        text.append(")")
    text.append("\n")
    if step.text:
        text.append_text(literal(_indented(step.text), "dim"))
        text.append("\n")
    for result in step.results:
        text.append_text(result_text(result, facts))
    return text


def result_text(result: StoredResult, facts: ImageFacts) -> Text:
    """One result's line: title, date, site, page (dropped ones struck through, with the
    reason); an image result's picture address below, and what was shown of it."""
    text = Text()
    style = "dim strike" if result.dropped else ""
    text.append(f"     [{result.rank + 1}] ", style="dim")
    heading = result.title or (None if result.url else result.snippet) or "(no title)"
    text.append_text(literal(one_line(heading, 60), style or "bold"))
    if result.published:
        text.append(f" {result.published[:10]}", style="dim")
    if result.source:
        text.append(" · ", style="dim")
        text.append_text(literal(one_line(result.source, 30), style or "italic"))
    if result.url:
        text.append(" ")
        text.append_text(literal(one_line(result.url, 70), "underline" if not result.dropped else style))
    if result.dropped:
        text.append(f"  dropped: {result.dropped}", style="yellow")
    text.append("\n")
    if result.image_url:
        text.append("         picture ", style="dim")
        text.append_text(literal(one_line(result.image_url, 80), "dim"))
        text.append("\n")
    if result.sha256:
        text.append("         shown to the model: ", style="green")
        text.append(image_facts_line(result.sha256, facts), style="green")
        text.append("\n")
    return text


def image_facts_line(sha256: str, facts: ImageFacts) -> str:
    """'PNG 40×30 · 137 bytes · sha256 ab12cd34ef56…'."""
    found = facts.get(sha256)
    if found is None:
        return f"sha256 {sha256[:12]}…"
    mime, size, width, height = found
    return f"{mime.removeprefix('image/').upper()} {width}×{height} · {size:,} bytes · sha256 {sha256[:12]}…"


def trajectories_body(trajectories: list[tuple[str, list[Step], list[str]]], facts: ImageFacts | None = None) -> Text:
    """Every search run's trajectory for one claim (the detail view's Trajectory tab)."""
    if not trajectories:
        return Text("no search run has searched for this claim (workbench run --search fts)", style="dim")
    body = Text()
    for name, steps, labels in trajectories:
        body.append_text(run_heading(name))
        body.append_text(trajectory_text(steps, pair_labels=labels, facts=facts))
        body.append("\n")
    return body


def run_heading(name: str) -> Text:
    heading = Text("run ", style="bold")
    heading.append_text(literal(name, "bold"))
    heading.append("\n")
    return heading


def image_origin(steps: list[Step], position: int, viewed: StoredResult) -> str | None:
    """What found an image the model looked at: the latest search before it whose results
    hold that picture ('images: QUERY', or 'search by the claim's image')."""
    for step in reversed(steps[:position]):
        if step.kind == "search" and any(r.image_url == viewed.image_url for r in step.results):
            return f"images: {step.query}" if step.query else "search by the claim's image"
    return None


def viewed_images(steps: list[Step]) -> list[tuple[Step, StoredResult]]:
    """The images a trajectory showed its model, each with the step that looked."""
    return [(step, result) for step in steps for result in step.results if result.sha256]


def _indented(text: str, limit: int = 1200) -> str:
    body = text if len(text) <= limit else text[:limit] + "…"
    return "\n".join("     " + line for line in body.splitlines())


def trajectory_dicts(steps: list[Step]) -> list[dict]:
    return [dataclasses.asdict(step) for step in steps]
