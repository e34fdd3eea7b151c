"""Item 6 of issue 20: at 80x24 no key in a footer is cut. The footer leaves out whole keys,
least important first; the keys of what is happening now (K while a run goes, u once there
is something to undo) and ? stay."""

from __future__ import annotations

import json

import pytest
from textual.widgets._footer import FooterKey

from tests.loopback_servers import LoopbackServer
from tests.support.contamination import make_scores
from tests.support.tui import add_run, gold, make_app, screen_text, settle, until, wrong_label
from workbench.tui.widgets.footer import KeyFooter


def footer_keys(app) -> list[FooterKey]:
    return [key for key in app.screen.query_one(KeyFooter).query(FooterKey) if key.display]


def assert_whole(app) -> None:
    """Every key shown lies wholly on the bar, left of the palette key."""
    footer = app.screen.query_one(KeyFooter)
    keys = footer_keys(app)
    palette = [key for key in keys if key.has_class("-command-palette")]
    limit = palette[0].region.x if palette else footer.region.right
    for key in keys:
        if key in palette:
            continue
        assert key.region.width > 0 and key.region.right <= limit, (key.key, key.region, limit)
    line = screen_text(app).splitlines()[-1]
    for key in keys:
        assert key.description in line


@pytest.fixture
def runs(demo_store):
    ids = demo_store.claims.ids("dataset:demo -label:Unclear -label:Unevaluable")[:6]
    return add_run(demo_store, "sys", {i: ("ok", wrong_label(gold(demo_store, i))) for i in ids})


@pytest.mark.parametrize(
    "keys",
    [[], ["enter"], ["enter", "v"], ["t"], ["m"], ["C"], ["question_mark"]],
    ids=["browser", "detail", "verdicts", "triage", "metrics", "contamination", "help"],
)
async def test_no_key_is_cut_on_any_screen_at_80x24(demo_store, db_path, runs, keys):
    make_scores(demo_store, "gguf:A")
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        for key in keys:
            await pilot.press(key)
            await settle(pilot, app)
        await until(pilot, lambda: bool(app.screen.query(KeyFooter)) and footer_keys(app))
        assert_whole(app)


async def test_k_and_u_stay_when_the_bar_is_full(demo_store, db_path):
    def slow(body):
        return json.dumps({"verdict": "Supported", "explanation": "slowly"})

    from workbench.runs.engine import RunRequest, prepare_run

    app = make_app(db_path)
    with LoopbackServer("openai", latency=0.5, answer=slow) as server:
        prepared = prepare_run(
            demo_store,
            RunRequest(model="openai-compatible:slow", base_url=server.url, dataset="demo", concurrency=1, name="slow"),
        )
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, app)
            await pilot.press("f", "enter")
            await until(pilot, lambda: bool(app.undo_stack))
            assert app.runs.start(prepared)  # (settle would wait for the whole run: the workers are waited on)
            await until(pilot, lambda: "Cancel run" in {key.description for key in footer_keys(app)})
            shown = {key.description for key in footer_keys(app)}
            assert {"Cancel run", "Undo", "Help"} <= shown and "Quit" not in shown
            assert_whole(app)
            await pilot.press("K")
            await until(pilot, lambda: not app.runs.active)


async def test_the_run_dialogs_preview_shows_the_first_messages_at_24_rows(demo_store, db_path):
    from workbench.tui.screens.run_dialog import RunDialog

    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("r")
        await settle(pilot, app)
        assert isinstance(app.screen, RunDialog)
        text = screen_text(app)
        assert "── system ──" in text and "You check facts." in text
        box = app.screen.query_one("#run-preview-box")
        assert box.can_focus and box.virtual_size.height > box.size.height  # the rest is a scroll away


@pytest.mark.parametrize(
    "kind, name, url, setting, search, says",
    [
        ("default", "", None, "claim", "", "loading gguf:default (a local model: a few seconds the first time)"),
        ("openai", "gpt-4o-mini", None, "claim", "", "the OpenAI key"),
        (
            "anthropic",
            "claude-x",
            None,
            "claim+image",
            "",
            "the Anthropic key; asking the model once whether it takes images",
        ),
        (
            "openai-compatible",
            "qwen",
            "http://gpu:8000/v1",
            "claim",
            "fts",
            "the server at http://gpu:8000/v1 and its key; the fts search backend",
        ),
    ],
)
def test_starting_a_run_says_what_it_does_for_the_model_chosen(kind, name, url, setting, search, says):
    from workbench.tui.run_preview import RunChoice, checking_text

    text = checking_text(RunChoice(model_kind=kind, model_name=name, base_url=url, setting=setting, search=search))
    assert text == f"checking the setup: {says}, the template and the claims…"
    assert kind in ("default", "gguf") or "local model" not in text
