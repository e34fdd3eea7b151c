"""Prices turn stored tokens into money per run, per claim and per judge run; --max-cost
stops a run cleanly; unknown prices say so. API models on loopback servers."""

from __future__ import annotations

import json

import pytest

from store import Store
from tests.loopback_servers import LoopbackServer
from tests.support.prices import USAGE, capped_run, cli, dear_prices, priced_claims, priced_run, said
from workbench.usage.prices import PER, built_in_prices, price_table

MINI = built_in_prices()["openai:gpt-4o-mini"]


@pytest.fixture
def priced_db(store, db_path, tmp_path, monkeypatch):
    priced_claims(store, tmp_path, monkeypatch)
    return db_path


@pytest.fixture
def config(tmp_path):
    """Write the test's config file (the autouse fixture points WORKBENCH_CONFIG at it)."""
    path = tmp_path / "no-config.toml"

    def write(text: str):
        path.write_text(text, encoding="utf-8")
        return path

    return write


def runs_json(db_path) -> list[dict]:
    return json.loads(cli(db_path, "runs", "--json").output)


def test_the_built_in_table_is_dated_and_finds_dated_snapshots():
    table = price_table()
    assert MINI.as_of is not None and MINI.input == 0.15 and MINI.output == 0.60
    assert table.for_model("openai:gpt-4o-mini-2024-07-18") == MINI
    assert table.for_model("anthropic:claude-3-5-haiku-20241022").model == "anthropic:claude-3-5-haiku"
    assert table.for_model("anthropic:claude-3-5-haiku-latest").model == "anthropic:claude-3-5-haiku"
    assert table.for_model("openai-compatible:my-server-model") is None  # unknown, not free
    assert table.for_model("gguf:default").local


def test_costs_per_run_and_per_claim_from_stored_tokens(priced_db):
    usage = {"prompt_tokens": 1200, "completion_tokens": 80, "prompt_tokens_details": {"cached_tokens": 1000}}
    with LoopbackServer("openai", usage=usage) as server:
        result = priced_run(priced_db, server, "priced")
        assert result.exit_code == 0, result.output
        again = priced_run(priced_db, server, "again")  # answered from the cache: no cost
    per_answer = (200 * MINI.input + 1000 * MINI.cached_input + 80 * MINI.output) / PER
    assert "estimate for 12 claims" in said(result) and "at most $" in said(result)
    rows = {row["name"]: row for row in runs_json(priced_db)}
    priced = rows["priced"]["usage"]
    assert priced["cost_usd"] == pytest.approx(12 * per_answer, abs=1e-6)
    assert priced["cost_per_claim_usd"] == pytest.approx(per_answer, abs=1e-6)
    assert priced["tokens_cached"] == 12_000 and priced["price"]["as_of"] == MINI.as_of.isoformat()
    assert priced["seconds_per_claim"]["median"] is not None
    assert (
        again.exit_code == 0 and rows["again"]["usage"]["cost_usd"] == 0 and rows["again"]["usage"]["from_cache"] == 12
    )
    listing = said(cli(priced_db, "runs"))
    assert f"cost ${12 * per_answer:.4f} (${per_answer:.4f} per claim)" in listing
    metrics = said(cli(priced_db, "metrics", "priced", "--resamples", "0"))
    assert "time and cost:" in metrics and f"cost ${12 * per_answer:.4f}" in metrics and "p95" in metrics
    report = cli(priced_db, "report", "priced", "--resamples", "0").output
    assert "Time and cost" in report and f"${12 * per_answer:.4f}" in report
    as_json = json.loads(cli(priced_db, "report", "priced", "--format", "json", "--resamples", "0").output)
    assert as_json["runs"][0]["usage"]["cost_usd"] == pytest.approx(12 * per_answer, abs=1e-6)


def test_an_unknown_price_is_unknown_never_zero(priced_db):
    with LoopbackServer("openai") as server:
        result = cli(
            priced_db,
            "run",
            "--dataset",
            "many",
            "--model",
            "openai-compatible:house-model",
            "--base-url",
            server.url,
            "--name",
            "house",
        )
    assert result.exit_code == 0
    assert "cost unknown (no price for this model" in said(result)
    usage = runs_json(priced_db)[0]["usage"]
    assert usage["cost_usd"] is None and usage["price_known"] is False and usage["tokens_in"] == 12 * 11
    assert "cost unknown (no price for" in said(cli(priced_db, "runs"))
    assert "| unknown (no price" in cli(priced_db, "report", "house", "--resamples", "0").output


def test_a_price_in_the_config_prices_a_model_and_beats_the_table(priced_db, config):
    config(
        '[prices."openai-compatible:house-model"]\ninput = 2.0\noutput = 4.0\nas_of = 2026-11-01\n'
        '[prices."openai:gpt-4o-mini"]\ninput = 1.0\noutput = 1.0\n'
    )
    table = price_table()
    assert (
        table.for_model("openai:gpt-4o-mini").input == 1.0 and "config" in table.for_model("openai:gpt-4o-mini").source
    )
    with LoopbackServer("openai") as server:
        assert (
            cli(
                priced_db,
                "run",
                "--dataset",
                "many",
                "--model",
                "openai-compatible:house-model",
                "--base-url",
                server.url,
            ).exit_code
            == 0
        )
    assert runs_json(priced_db)[0]["usage"]["cost_usd"] == pytest.approx(12 * (11 * 2.0 + 7 * 4.0) / PER)


@pytest.mark.parametrize(
    "text, key",
    [
        ('[prices."openai:gpt-4o"]\ninptu = 2.5\noutput = 10\n', 'prices."openai:gpt-4o".inptu: not a setting here'),
        ('[prices."openai:gpt-4o"]\ninput = "cheap"\noutput = 10\n', 'prices."openai:gpt-4o".input:'),
        ('[prices."openai:gpt-4o"]\ninput = -1\noutput = 10\n', 'prices."openai:gpt-4o".input:'),
        ('[prices."openai:gpt-4o"]\noutput = 10\n', 'prices."openai:gpt-4o".input: Field required'),
    ],
)
def test_a_typo_in_the_price_table_is_one_line_naming_file_and_key(priced_db, config, text, key):
    path = config(text)
    result = cli(
        priced_db, "models"
    )  # a command that reads the whole config (the reading ones read only their settings)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and key in lines[0]


def test_a_broken_built_in_table_names_its_file_and_key():
    from workbench.config import ConfigError

    with pytest.raises(ConfigError, match=r'prices.toml: models."openai:x": output: Field required'):
        built_in_prices('[models."openai:x"]\ninput = 1\n', "prices.toml")


def test_max_cost_stops_cleanly_before_a_request_could_pass_it_and_resume_goes_on(priced_db, tmp_path):
    dear_prices(tmp_path)
    with LoopbackServer("openai", usage=USAGE) as server:
        stopped = capped_run(priced_db, server, "--max-cost", "0.40")
        assert stopped.exit_code == 1, stopped.output
        assert "stopped at the budget" in said(stopped) and "--max-cost MORE" in said(stopped)
        answered = len(server.answer_arrivals())
        assert 0 < answered < 12
        store = Store.open(priced_db)
        run = store.runs.get("capped")
        assert run.status == "cancelled" and len(store.runs.predictions(run.id)) == answered  # every answer kept
        store.close()
        spent = runs_json(priced_db)[0]["usage"]["cost_usd"]
        assert spent == pytest.approx(answered * 350 * 100 / PER) and spent <= 0.40

        refused = capped_run(priced_db, server, "--resume", "capped", "--max-cost", "0.40")
        assert refused.exit_code == 1 and "is less than one request can cost" in said(refused)
        assert len(server.answer_arrivals()) == answered  # refused before any request

        finished = cli(priced_db, "run", "--resume", "capped", "--max-cost", "5")
        assert finished.exit_code == 0, finished.output
        assert len(server.answer_arrivals()) == 12  # the rest, each claim asked once
    assert runs_json(priced_db)[0]["usage"]["answers"] == 12


def test_a_budget_smaller_than_one_request_is_refused_before_starting(priced_db):
    with LoopbackServer("openai") as server:
        result = capped_run(priced_db, server, "--max-cost", "0.00001")
        assert result.exit_code == 1
        assert "--max-cost $0.0000 is less than one request can cost" in said(result)
        assert "raise --max-cost or lower --param max_tokens" in said(result)
        assert server.answer_arrivals() == []
    assert runs_json(priced_db) == []  # no run left behind


def test_a_budget_needs_a_known_price_and_a_priced_model(priced_db):
    with LoopbackServer("openai") as server:
        unknown = cli(
            priced_db,
            "run",
            "--dataset",
            "many",
            "--model",
            "openai-compatible:house",
            "--base-url",
            server.url,
            "--max-cost",
            "1",
        )
        assert unknown.exit_code == 1 and "--max-cost needs the price of openai-compatible:house" in said(unknown)
        assert 'add [prices."openai-compatible:house"]' in said(unknown)
        assert server.answer_arrivals() == []
    local = cli(priced_db, "run", "--dataset", "many", "--max-cost", "1", "--limit", "1")
    assert local.exit_code == 1 and "runs on this machine at no charge" in said(local)
    assert runs_json(priced_db) == []


def test_batch_answers_are_priced_at_batch_prices(priced_db):
    with LoopbackServer("openai") as server:
        submitted = priced_run(priced_db, server, "b", "--batch")
        assert submitted.exit_code == 0, submitted.output
        assert cli(priced_db, "batch", "collect", "b").exit_code == 0
    usage = runs_json(priced_db)[0]["usage"]
    assert usage["cost_usd"] == pytest.approx(12 * (11 * MINI.batch_input + 7 * MINI.batch_output) / PER)


def test_a_judge_runs_cost_is_shown_beside_the_run_it_scored(priced_db):
    def judge(body):
        return '{"score": 7, "justification": "fine"}'

    with LoopbackServer("openai") as server:
        assert priced_run(priced_db, server, "answers").exit_code == 0
    with LoopbackServer("openai", answer=judge) as server:
        judged = cli(
            priced_db, "judge", "answers", "--judge", "openai:gpt-4o-mini", "--base-url", server.url, "--name", "judged"
        )
        assert judged.exit_code == 0, judged.output
    per_run = 12 * (11 * MINI.input + 7 * MINI.output) / PER
    metrics = said(cli(priced_db, "metrics", "answers", "--resamples", "0"))
    assert f"judge run judged: ${per_run:.4f}" in metrics
    usage = next(r for r in runs_json(priced_db) if r["name"] == "answers")["usage"]
    assert usage["judges"][0]["run"] == "judged" and usage["judges"][0]["cost_usd"] == pytest.approx(per_run)
