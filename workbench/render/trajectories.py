"""A search run's trajectory for one claim, drawn (CLI and TUI), and as plain data.

Everything in it is untrusted (the model's text, queries, pages): literal Text only.
"""

from __future__ import annotations

import dataclasses

from rich.text import Text

from store import Step
from workbench.render.display import literal, one_line

KIND_MARKS = {"search": "⌕", "read": "▤", "answer": "✎", "invalid": "!", "limit": "■"}


def trajectory_text(steps: list[Step], width: int = 100, pair_labels: list[str] | None = None) -> Text:
    """Each step: what the model did (or wrote), then the results, dropped ones marked; a
    search after the first carries its reformulation label when a judge gave one."""
    labels = iter(pair_labels or [])
    searches = 0
    text = Text()
    if not steps:
        text.append("no trajectory: this run did not search for this claim", style="dim")
        return text
    for step in steps:
        text.append(f"{step.step:>2} {KIND_MARKS.get(step.kind, '?')} {step.kind}", style="bold")
        if step.query:
            text.append(" ")
            text.append_text(literal(one_line(step.query, width), "cyan"))
        if step.kind == "search" and step.query:
            searches += 1
            label = next(labels, None) if searches > 1 else None
            if label:
                text.append(f"  ← {label}", style="magenta")
        elif step.kind == "read" and step.arguments:
            text.append(f" result {one_line(step.arguments, 20)}")
        if step.note:
            text.append("  (")
            text.append_text(literal(one_line(step.note, width)))
            text.append(")", style="")
        text.append("\n")
        if step.text:
            text.append_text(literal(_indented(step.text), "dim"))
            text.append("\n")
        for result in step.results:
            style = "dim strike" if result.dropped else ""
            text.append(f"     [{result.rank + 1}] ", style="dim")
            heading = result.title or (None if result.url else result.snippet) or "(no title)"
            text.append_text(literal(one_line(heading, 60), style or "bold"))
            if result.published:
                text.append(f" {result.published[:10]}", style="dim")
            if result.url:
                text.append(" ")
                text.append_text(literal(one_line(result.url, 70), "underline" if not result.dropped else style))
            if result.dropped:
                text.append(f"  dropped: {result.dropped}", style="yellow")
            text.append("\n")
    return text


def trajectories_body(trajectories: list[tuple[str, list[Step], list[str]]]) -> Text:
    """Every search run's trajectory for one claim (the detail view's Trajectory tab)."""
    if not trajectories:
        return Text("no search run has searched for this claim (workbench run --search fts)", style="dim")
    body = Text()
    for name, steps, labels in trajectories:
        body.append("run ", style="bold")
        body.append_text(literal(name, "bold"))
        body.append("\n")
        body.append_text(trajectory_text(steps, pair_labels=labels))
        body.append("\n")
    return body


def _indented(text: str, limit: int = 1200) -> str:
    body = text if len(text) <= limit else text[:limit] + "…"
    return "\n".join("     " + line for line in body.splitlines())


def trajectory_dicts(steps: list[Step]) -> list[dict]:
    return [dataclasses.asdict(step) for step in steps]
