"""The datasets view (D): each dataset's claims and what curation kept, the highlighted one's
funnel and articles at 80x24, enter/a to browse its kept or all claims; names as typed."""

from __future__ import annotations

import re

from store import ArticleRecord
from tests.claimreview_files import claim_review, write_json
from tests.support.tui import HOSTILE, make_app, open_with_key, screen_text, settle
from workbench.curation.steps import CurationRequest, curate
from workbench.curation.window import window
from workbench.importers import ImportRequest, run_import
from workbench.tui.screens.datasets import DatasetsScreen


def curated_db(store, tmp_path, name: str):
    reviews = [
        claim_review(
            f"Claim number {n} about the harbour.", "False", f"https://a.example/{n}", day=f"2024-{n + 3:02d}-10"
        )
        for n in range(6)
    ]
    reviews.append(
        claim_review(
            "Claim number 5 about the harbour.", "False", "https://b.example/5", day="2024-09-11", author=HOSTILE
        )
    )
    run_import(store, ImportRequest(write_json(tmp_path / "cr.json", reviews), dataset=name))
    curate(store, CurationRequest(name, window=window(after="2024-05"), dedup="minhash"))
    store.articles.save(ArticleRecord(url="https://a.example/4", status="fetched", source="web", text="An article."))
    store.articles.save(ArticleRecord(url="https://a.example/5", status="failed", source="web", cause="http 404"))


def counts(lines: list[str], step: str) -> list[str]:
    """In, out and left of a funnel row (the first three whole numbers after the step's name)."""
    line = next(line for line in lines if line.split()[:1] == [step])
    return re.findall(r"(?<!\S)\d[\d,]*(?!\S)", line)[:3]


async def open_datasets(pilot, app) -> DatasetsScreen:
    return await open_with_key(pilot, app, "D", DatasetsScreen)


async def test_the_funnel_of_the_highlighted_dataset(store, db_path, tmp_path):
    curated_db(store, tmp_path, "harbour")
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_datasets(pilot, app)
        lines = screen_text(app).splitlines()  # all of it fits at 80x24
        assert lines[2].split() == ["harbour", "7", "3", "jsfactcheck"]
        first = next(i for i, line in enumerate(lines) if line.split()[:1] == ["imported"])
        last = next(i for i, line in enumerate(lines) if line.split()[:1] == ["kept"])
        funnel = lines[first:last]
        rows = {line.split()[0]: line.split()[1:] for line in funnel if line.strip()}  # a wrapped note adds rows
        assert counts(lines, "date") == ["7", "3", "4"] and counts(lines, "duplicate") == ["4", "1", "3"]
        assert rows["language"] == ["not", "run"] and rows["screen"] == ["not", "run"]
        text = "\n".join(lines)
        assert "review date from" in text and "2024-06-01" in text
        assert "kept 3 of 7 claims: dataset:harbour -flagged:curated-out" in text
        assert "1 fetched, 1 failed, 5 not tried yet" in text and "http 404" in text
        await pilot.press("enter")
        await settle(pilot, app)
        assert app.screen is app.browser
        assert app.browser.filter_bar.text == "dataset:harbour -flagged:curated-out"
        assert app.browser.table.total == 3
        await pilot.press("D")
        await settle(pilot, app)
        await pilot.press("a")
        await settle(pilot, app)
        assert app.browser.filter_bar.text == "dataset:harbour" and app.browser.table.total == 7


async def test_names_and_notes_are_shown_as_typed(store, db_path, tmp_path):
    curated_db(store, tmp_path, "odd name [bold]")
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_datasets(pilot, app)
        assert "curation of odd name [bold]" in screen_text(app)
        assert "publisher" in screen_text(app)
        await pilot.press("enter")
        await settle(pilot, app)
        assert app.browser.filter_bar.text == 'dataset:"odd name [bold]" -flagged:curated-out'
        assert app.browser.table.total == 3


async def test_a_dataset_not_curated_says_so(demo_store, db_path):
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_datasets(pilot, app)
        assert "not curated yet" in screen_text(app)
        assert f"workbench --db {db_path} curate demo" in " ".join(screen_text(app).split())
        await pilot.press("escape")
        await settle(pilot, app)
        assert app.screen is app.browser
