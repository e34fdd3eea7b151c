"""Untrusted text is shown exactly as typed everywhere: no markup, no escape codes, no crash."""

from __future__ import annotations

import pytest

from store import Claim, Dataset, Evidence, LabelSpace, Prediction, Run
from tests.support.tui import HOSTILE, make_app, screen_text, settle

EVIL_LABEL = "[b]Evil[/b]"
SHOWN = "[bold]x[/"  # what must be visible, literally
ESCAPED = "\\x1b[2J"  # the escape code made visible


@pytest.fixture
def hostile_store(store):
    """One claim with a hostile string in every text field, a run, a flag, a category."""
    space = LabelSpace(name="custom", labels=[EVIL_LABEL, "Other [/]"])
    page = f"Intro {HOSTILE}. The quoted {HOSTILE} passage. Outro {HOSTILE}."
    passage = f"The quoted {HOSTILE} passage."
    claim = Claim(
        external_id=f"ext {HOSTILE}",
        text=f"Claim {HOSTILE}",
        label=EVIL_LABEL,
        question=f"Q {HOSTILE}",
        response=f"Before. Claim {HOSTILE} After.",
        claim_start=8,
        claim_end=8 + len(f"Claim {HOSTILE}"),
        reference_time="2024-01-01",
        claim_date="2023-12-31",
        importance="Main",
        task=f"T{HOSTILE}",
        domain=f"D{HOSTILE}",
        source=f"S{HOSTILE}",
        article_url=f"http://a/{HOSTILE}",
        justification=f"J {HOSTILE}",
        attributes={"note": HOSTILE, "list": [HOSTILE], f"key {HOSTILE}\r\x07": "v"},
        evidence=[
            Evidence(
                kind="page",
                rank=0,
                url=f"http://u/{HOSTILE}",
                title=f"Title {HOSTILE}",
                text=page,
                passage=passage,
                passage_start=page.index(passage),
                passage_end=page.index(passage) + len(passage),
                is_cited=True,
            ),
            Evidence(
                kind="qa",
                rank=1,
                question=f"QA {HOSTILE}",
                text=f"Ans {HOSTILE}",
                answer_type="Boolean",
                explanation=f"Expl {HOSTILE}",
                url=f"http://q/{HOSTILE}",
            ),
        ],
    )
    store.datasets.import_claims(Dataset(name=f"data {HOSTILE}", source_format="jsonl", label_space=space), [claim])
    claim_id = store.claims.ids("")[0]
    run = store.runs.create(Run(name=f"run {HOSTILE}", model=f"m:{HOSTILE}", setting="claim"), [claim_id])
    store.runs.record(
        Prediction(
            run_id=run.id,
            claim_id=claim_id,
            status="ok",
            verdict="Other [/]",
            raw_verdict=HOSTILE,
            explanation=f"Because {HOSTILE}",
            raw_output=f"RAW {HOSTILE}",
        )
    )
    prediction = store.runs.prediction(run.id, claim_id)
    store.annotations.review(prediction.id, False, note=f"old {HOSTILE}", who=f"who {HOSTILE}")
    store.annotations.flag([claim_id], f"kind{HOSTILE}", note=f"note {HOSTILE}", who=f"who {HOSTILE}")
    store.annotations.add_category(f"Cat {HOSTILE}", key="9")
    return store


def check(app) -> str:
    """The visible text, with no control character (ESC, CR, BEL...) reaching the terminal."""
    text = screen_text(app)
    controls = [c for c in text if c != "\n" and (ord(c) < 32 or 127 <= ord(c) < 160)]
    assert not controls, controls
    return text


async def test_every_screen_shows_hostile_text_literally(hostile_store, db_path):
    app = make_app(db_path)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot, app)
        text = check(app)
        assert f"Claim {SHOWN}" in text and "[b]Evil[/b]" in text and "run [" in text
        await pilot.press("enter")
        await settle(pilot, app)
        text = check(app)
        assert f"Claim {SHOWN}" in text and f"Q {SHOWN}" in text and ESCAPED in text
        assert f"J {SHOWN}" in text and "[link=http://x]y[/link]" in text and f"note {SHOWN}" in text
        assert f"attr.key {SHOWN}" in text  # an attribute's name comes from the file too
        for key, expected in (
            ("2", f"Title {SHOWN}"),
            ("3", f"The quoted {SHOWN}"),
            ("4", f"http://u/{SHOWN}"),
            ("5", f"QA {SHOWN}"),
            ("6", f"Because {SHOWN}"),
        ):
            await pilot.press(key)
            await settle(pilot, app)
            assert expected in check(app), key
        await pilot.press("o")
        await settle(pilot, app)
        assert f"RAW {SHOWN}" in check(app)
        await pilot.press("escape", "escape", "t")
        await settle(pilot, app)
        text = check(app)
        assert f"Because {SHOWN}" in text and "Cat [bold]x[/" in text
        await pilot.press("e")  # the note prompt starts from the old (hostile) note
        await settle(pilot, app)
        assert f"old {SHOWN}" in check(app)
        await pilot.press("ctrl+u", *"[red]n[/]", "enter")
        await settle(pilot, app)
        assert "note: [red]n[/]" in check(app)
        await pilot.press("escape", "v")
        await settle(pilot, app)
        assert f"run {SHOWN}" in check(app)
        await pilot.press("escape", "r")
        await settle(pilot, app)
        assert f"Claim {SHOWN}" in check(app)  # the prompt preview
        await pilot.press("escape", "f", "ctrl+u", *"kin")  # the kind's suggestions come from the database
        await settle(pilot, app)
        check(app)
        await pilot.press("escape", "ctrl+p", *"errors of run")
        await settle(pilot, app)
        assert "Errors of run run [bold]x[/" in check(app)


async def test_a_hostile_filter_and_go_to_are_shown_literally(hostile_store, db_path):
    app = make_app(db_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        await pilot.press("slash", *'"[bold]unclosed [/', "enter")
        await settle(pilot, app)
        assert '"[bold]unclosed [/' in check(app)
        await pilot.press("escape", "g", *"[red]x[/", "enter")
        await settle(pilot, app)
        assert any("[red]x[/" in n.message for n in app._notifications)
