"""Priced runs for the price and budget tests: twelve claims, an API model answering on a
loopback server, a price dear enough that a few answers reach a budget."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tests.run_fixtures import many_claims, write_mini
from workbench.cli import main
from workbench.importers import import_file

KEY = "sk-test-not-a-real-key"
MODEL = "openai:gpt-4o-mini"
USAGE = {"prompt_tokens": 300, "completion_tokens": 50}
"""What each answer costs: $0.035 at dear prices ($100 per million tokens)."""


def priced_claims(store, tmp_path: Path, monkeypatch) -> None:
    """The twelve claims of dataset `many` in `store`, and an OpenAI key (never a real one)."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    import_file(store, write_mini(tmp_path, many_claims(12), name="many"), "jsonl")


def dear_prices(tmp_path: Path, model: str = MODEL) -> Path:
    """Price `model` at $100 per million tokens in the test's config file (the autouse
    fixture points WORKBENCH_CONFIG at it), so a few answers reach a budget."""
    path = tmp_path / "no-config.toml"
    path.write_text(f'[prices."{model}"]\ninput = 100\noutput = 100\n', encoding="utf-8")
    return path


def cli(db_path, *args):
    return CliRunner().invoke(main, ["--db", str(db_path), *args], terminal_width=200)


def said(result) -> str:
    """The output with its lines joined (a long line wraps wherever the width falls)."""
    return " ".join(result.output.split())


def priced_run(db_path, server, name: str, *extra):
    """`workbench run` of the twelve claims with the priced model answering on `server`."""
    return cli(db_path, "run", "--dataset", "many", "--model", MODEL, "--base-url", server.url, "--name", name, *extra)


def capped_run(db_path, server, *extra):
    """The run a --max-cost test drives: named capped, one request at a time, short answers."""
    return priced_run(db_path, server, "capped", "--concurrency", "1", "--param", "max_tokens=100", *extra)
