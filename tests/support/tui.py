"""Helpers for the TUI tests: generated claims, runs with chosen outcomes, driving the app."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text

from store import Claim, Dataset, Evidence, Prediction, Run, Store
from workbench.labels import JSFACTCHECK

if TYPE_CHECKING:
    from workbench.tui.screens.run_dialog import RunDialog

HOSTILE = "[bold]x[/ \x1b[2J [link=http://x]y[/link] [/] \x1b[31mred"
"""Markup, an unclosed tag, a terminal escape and a link: must show as typed."""


def generated_claims(n: int, start: int = 1, text: str = "Synthetic claim number {n} about topic {t}") -> list[Claim]:
    labels = JSFACTCHECK.labels
    importance = ["Main", "Sub", "Irrelevant"]
    claims = []
    for i in range(start, start + n):
        page = f"Page text {i}. " * 20 + f"The quoted passage for claim {i}." + " More text." * 20
        passage = f"The quoted passage for claim {i}."
        claims.append(
            Claim(
                external_id=f"g-{i:06d}",
                text=text.format(n=i, t=i % 7),
                label=labels[i % 3],
                importance=importance[i % 3],
                task=["KV", "RD", "EV"][i % 3],
                domain=["health", "politics"][i % 2],
                claim_date=f"2024-{(i % 12) + 1:02d}-{(i % 28) + 1:02d}",
                evidence=[
                    Evidence(
                        kind="page",
                        url=f"https://example.org/{i}",
                        title=f"Page {i}",
                        text=page,
                        passage=passage,
                        passage_start=page.index(passage),
                        passage_end=page.index(passage) + len(passage),
                        is_cited=True,
                    )
                ],
            )
        )
    return claims


def add_claims(store: Store, n: int, dataset: str = "synthetic", **kwargs) -> list[int]:
    """Import `n` generated claims into a jsfactcheck-space dataset; returns their ids."""
    store.datasets.import_claims(
        Dataset(name=dataset, source_format="jsonl", label_space=JSFACTCHECK), generated_claims(n, **kwargs)
    )
    return store.claims.ids(f"dataset:{dataset}")


def add_run(
    store: Store,
    name: str,
    answers: dict[int, tuple[str, str | None]],
    model: str = "test:model",
    explanation: str = "Because the evidence says so.",
    raw: str | None = None,
) -> Run:
    """A run whose claims got these (status, verdict) answers."""
    run = store.runs.create(Run(name=name, model=model, setting="claim", status="finished"), list(answers))
    for claim_id, (status, verdict) in answers.items():
        store.runs.record(
            Prediction(
                run_id=run.id,
                claim_id=claim_id,
                status=status,
                verdict=verdict,
                raw_verdict=verdict,
                explanation=explanation if status != "error" else None,
                raw_output=raw if raw is not None else f'{{"verdict": "{verdict}", "explanation": "{explanation}"}}',
                error="HTTP 500 from the server" if status == "error" else None,
            )
        )
    return run


def gold(store: Store, claim_id: int) -> str:
    return store.claims.get(claim_id).label


def wrong_label(label: str) -> str:
    return next(x for x in JSFACTCHECK.labels if x != label)


def screen_text(app) -> str:
    """Everything visible, as plain text (one string per screen line)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join(strip.text for strip in strips)


def rendered(widget) -> str:
    """The plain text a Static/Label shows."""
    content = widget.content
    if isinstance(content, Text):
        return content.plain
    return str(getattr(content, "plain", content))


async def settle(pilot, app) -> None:
    """Let messages flow and every worker finish, including workers those start (no sleeps)."""
    for _ in range(3):
        await pilot.pause()
        running = [worker for worker in app.workers if not worker.is_finished]
        # A worker replaced by a newer one (exclusive) ends cancelled: that is fine here.
        await asyncio.gather(*(worker.wait() for worker in running), return_exceptions=True)
    await pilot.pause()


async def open_with_key(pilot, app, key: str, screen_type):
    """The app settled, `key` pressed: the screen it opens (of `screen_type`), settled too."""
    await settle(pilot, app)
    await pilot.press(key)
    await settle(pilot, app)
    assert isinstance(app.screen, screen_type)
    return app.screen


async def until(pilot, condition, rounds: int = 3000) -> None:
    """Let the app run (timers, workers, messages) until `condition` holds; each round waits
    for the app to go idle, no fixed sleeps."""
    for _ in range(rounds):
        if condition():
            return
        await pilot.pause()
    raise AssertionError("the app never reached the expected state")


def make_app(db_path: Path, **kwargs):
    from workbench.tui.app import WorkbenchApp

    return WorkbenchApp(db_path, poll_seconds=kwargs.pop("poll_seconds", 0), **kwargs)


REPO_ROOT = Path(__file__).resolve().parents[2]


async def open_claim(pilot, app, claim_id: int) -> None:
    """Open a claim's detail screen from the browser."""
    from workbench.tui.screens.detail import ClaimDetailScreen

    app.browser.table.jump_to(claim_id)
    await settle(pilot, app)
    await pilot.press("enter")
    await settle(pilot, app)
    assert isinstance(app.screen, ClaimDetailScreen)


async def type_filter(pilot, app, text: str) -> None:
    """Type a filter into the claims browser's filter bar and apply it."""
    from workbench.tui.widgets.filter_bar import FilterBar

    await pilot.press("slash")
    bar = app.screen.query_one(FilterBar)
    bar.input.value = text
    await settle(pilot, app)
    await pilot.press("enter")
    await settle(pilot, app)


def status(app) -> str:
    """The claims browser's status line."""
    return rendered(app.screen.query_one("#status"))


async def open_dialog_on_server(pilot, app, url: str) -> RunDialog:
    """Open the run dialog with an OpenAI-compatible model named "loop" at `url`."""
    await pilot.press("r")
    await settle(pilot, app)
    dialog = app.screen
    dialog.query_one("#run-model-kind").value = "openai-compatible"
    await settle(pilot, app)
    dialog.query_one("#run-model-name").value = "loop"
    dialog.query_one("#run-base-url").value = url
    return dialog
