"""The run dialog offers the local models with type-ahead, says what a typed name resolves
to, and estimates the run before it starts; the progress line gives claims/min and ETA."""

from __future__ import annotations

import time

from store import RunProgress
from tests.support.local_models import hf_model, ollama_model, tiny_gguf
from tests.support.tui import make_app, open_with_key, rendered, settle
from workbench.tui.screens.run_dialog import RunDialog
from workbench.tui.widgets.run_status import RunState, progress_line


async def open_run_dialog(pilot, app) -> RunDialog:
    """The browser settled, r pressed: the run dialog, settled too."""
    return await open_with_key(pilot, app, "r", RunDialog)


async def test_local_models_are_offered_by_type_ahead_and_resolved_as_typed(demo_store, db_path, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("OLLAMA_MODELS", str(tmp_path / "ollama"))
    hf_model(tmp_path / "hf" / "hub", "acme/Qwen-Tiny-GGUF", "qwen-tiny-Q4_K_M.gguf", context=32768)
    ollama_model(tmp_path / "ollama", "llama-mini", "latest")
    ollama_model(tmp_path / "ollama", "llama-mini", "q8", blob_file=tiny_gguf(tmp_path / "q8.gguf", file_type=7))
    app = make_app(db_path)
    async with app.run_test(size=(100, 32)) as pilot:
        dialog = await open_run_dialog(pilot, app)
        dialog.query_one("#run-model-kind").value = "gguf"
        await settle(pilot, app)
        assert "local models found" in rendered(dialog.query_one("#run-model-hint"))
        name = dialog.query_one("#run-model-name")
        name.focus()
        await pilot.press("q", "w", "e")
        await settle(pilot, app)
        assert name._suggestion == "qwen-tiny-Q4_K_M"  # the rest of the name, offered as typed
        await pilot.press("right")  # takes the suggestion
        await settle(pilot, app)
        assert name.value == "qwen-tiny-Q4_K_M"
        hint = rendered(dialog.query_one("#run-model-hint"))
        assert "→ gguf:acme/Qwen-Tiny-GGUF/qwen-tiny-Q4_K_M · Q4_K_M" in hint and "context 32,768" in hint
        name.value = "llama-mini:"
        await settle(pilot, app)
        assert "fits 2 local models" in rendered(dialog.query_one("#run-model-hint"))


async def test_the_dialog_estimates_tokens_cost_and_time_before_starting(demo_store, db_path, tmp_path):
    (tmp_path / "no-config.toml").write_text('[prices."openai-compatible:loop"]\ninput = 3.0\noutput = 15.0\n')
    app = make_app(db_path)
    async with app.run_test(size=(100, 32)) as pilot:
        dialog = await open_run_dialog(pilot, app)
        estimate = rendered(dialog.query_one("#run-estimate"))
        assert "estimate for 1 claim: ~" in estimate and "no charge per token (local)" in estimate
        dialog.filter_text = "dataset:demo"  # as if the browser's filter said so
        dialog.query_one("#scope-filter").value = True
        dialog.query_one("#run-model-kind").value = "openai-compatible"
        await settle(pilot, app)
        dialog.query_one("#run-model-name").value = "loop"
        dialog.query_one("#run-base-url").value = "http://127.0.0.1:9/v1"
        await settle(pilot, app)
        estimate = rendered(dialog.query_one("#run-estimate"))
        total = len(demo_store.claims.ids("dataset:demo"))
        assert f"estimate for {total} claims" in estimate and "at most $" in estimate
        assert "openai-compatible:loop's price" in estimate
        dialog.query_one("#run-model-name").value = "other"
        await settle(pilot, app)
        assert "cost unknown" in rendered(dialog.query_one("#run-estimate"))
        assert demo_store.runs.list() == []  # estimating made no run


def test_the_progress_line_gives_claims_per_minute_and_the_time_left():
    state = RunState(
        run_id=1,
        name="r",
        total=40,
        done=10,
        progress=RunProgress(total=40, ok=10),
        status="running",
        started=time.monotonic() - 60,
        finished_here=10,
    )
    line = progress_line(state).plain
    assert "10.0 claims/min · ETA 3m 00s" in line
    state.status = "finished"
    assert "claims/min" not in progress_line(state).plain
