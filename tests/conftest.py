"""Shared fixtures: real SQLite files in temporary folders, the real shared data when present."""

from __future__ import annotations

from pathlib import Path

import pytest

from store import Store

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
AVERITEC_DEV = SHARED_DATA / "averitec" / "dev.json"
AVERITEC_BASELINE = SHARED_DATA / "averitec" / "dev_baseline_predictions.json"
DEMO_DATA = REPO / "workbench" / "demo_data"

# Fixtures the support modules define, for every test module (they need not import them).
pytest_plugins = ["tests.support.judging", "tests.support.reading"]


@pytest.fixture(autouse=True)
def isolated_environment(tmp_path, monkeypatch):
    """No test reads the developer's config, keys or default database."""
    monkeypatch.setenv("WORKBENCH_CONFIG", str(tmp_path / "no-config.toml"))
    monkeypatch.delenv("WORKBENCH_DB", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    for name in ("TAVILY_API_KEY", "SERPER_API_KEY", "WORKBENCH_SEARCH_FETCH_PRIVATE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("WORKBENCH_ANNOTATOR", "tester")
    # Nor the developer's own models: gguf:NAME finds only what a test puts there.
    monkeypatch.setenv("HF_HOME", str(tmp_path / "no-hf-home"))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("OLLAMA_MODELS", str(tmp_path / "no-ollama"))


@pytest.fixture
def db_path(tmp_path) -> Path:
    return tmp_path / "workbench.db"


@pytest.fixture
def store(db_path) -> Store:
    s = Store.open(db_path)
    yield s
    s.close()


@pytest.fixture
def demo_store(store) -> Store:
    """A store holding the bundled demo datasets."""
    from workbench.cli.demo import load_demo

    load_demo(store)
    return store


def require_shared(path: Path) -> Path:
    """The path, or skip: ../shared holds real data that a user's fresh clone does not have."""
    if not path.exists():
        pytest.skip(f"{path} is absent (the real data lives in ../shared beside the repo)")
    return path
