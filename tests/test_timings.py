"""Every local answer records llama.cpp's own timings; runs show claims/min and the time
left while they go, and time per claim (median, p95) once answered."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from store import Run
from workbench.cli import main
from workbench.usage.prices import LOCAL, Price
from workbench.usage.summary import percentile, summarise


def cli(db_path, *args):
    return CliRunner().invoke(main, ["--db", str(db_path), *args], terminal_width=200)


@pytest.mark.parametrize("values", [[3.0], [1.0, 2.0], [5.0, 1.0, 4.0, 2.0, 3.0], list(np.linspace(0.1, 9.7, 37))])
def test_percentiles_are_numpys(values):
    for share in (0.5, 0.95):
        assert percentile(values, share) == pytest.approx(float(np.percentile(values, share * 100)))
    assert percentile([], 0.5) is None


def test_cached_answers_and_errors_take_no_time_and_cost_nothing(store, tmp_path):
    from store import Prediction
    from tests.run_fixtures import load_mini

    ids = load_mini(store, tmp_path)
    run = store.runs.create(Run(name="r", model="openai:m"), ids[:5])
    rows = [("ok", False, 2.0), ("ok", False, 4.0), ("abstain", False, 6.0), ("ok", True, 0.0), ("error", False, None)]
    for claim_id, (status, cached, latency) in zip(ids, rows):
        store.runs.record(
            Prediction(
                run_id=run.id,
                claim_id=claim_id,
                status=status,
                cached=cached,
                latency_s=latency,
                tokens_in=None if status == "error" else 1000,
                tokens_out=None if status == "error" else 100,
            )
        )
    price = Price("openai:m", input=1.0, output=2.0)
    spending = store.usage.spending(run.id)
    usage = summarise(run, spending, lambda at: store.usage.latencies_at(run.id, at, spending["timed"]), price)
    assert (usage.answers, usage.from_cache) == (3, 1)
    assert usage.seconds_median == 4.0 and usage.seconds_p95 == pytest.approx(5.8)  # numpy's: 5.8
    assert usage.cost == pytest.approx(3 * (1000 * 1.0 + 100 * 2.0) / 1e6)
    assert usage.cost_per_claim == pytest.approx(usage.cost / 3)
    assert (
        summarise(run, spending, lambda at: store.usage.latencies_at(run.id, at, spending["timed"]), None).cost is None
    )  # unknown, not 0
    assert summarise(run, spending, lambda at: store.usage.latencies_at(run.id, at, spending["timed"]), LOCAL).cost == 0


def test_percentiles_from_the_store_are_numpys(store, tmp_path):
    from store import Prediction
    from tests.run_fixtures import many_claims, write_mini
    from workbench.importers import import_file

    import_file(store, write_mini(tmp_path, many_claims(40), name="many"), "jsonl")
    ids = store.claims.ids("dataset:many")
    run = store.runs.create(Run(name="r", model="openai:m"), ids)
    seconds = list(np.random.default_rng(3).gamma(2.0, 1.5, len(ids)))
    for claim_id, latency in zip(ids, seconds):
        store.runs.record(Prediction(run_id=run.id, claim_id=claim_id, status="ok", latency_s=float(latency)))
    spending = store.usage.spending(run.id)
    usage = summarise(run, spending, lambda at: store.usage.latencies_at(run.id, at, spending["timed"]), None)
    assert usage.seconds_median == pytest.approx(float(np.percentile(seconds, 50)))
    assert usage.seconds_p95 == pytest.approx(float(np.percentile(seconds, 95)))


@pytest.mark.slow
def test_a_local_run_records_llama_cpps_timings_and_shows_them(demo_store, db_path):
    result = cli(
        db_path,
        "run",
        "--dataset",
        "demo",
        "--limit",
        "3",
        "--setting",
        "claim+time",
        "--param",
        "max_tokens=16",
        "--name",
        "timed",
    )
    assert result.exit_code == 0, result.output
    shown = " ".join(result.output.split())
    assert "engine: llama.cpp" in shown and "thread" in shown and "batch 512" in shown
    assert "claims/min · ETA" in shown
    run = demo_store.runs.get("timed")
    assert run.engine["n_batch"] == 512 and run.engine["n_threads"] >= 1 and "AVX" in run.engine["build"]
    answers = demo_store.runs.predictions(run.id)
    for answer in answers:
        assert 0 < answer.prompt_eval_tokens <= answer.tokens_in and answer.prompt_eval_ms > 0
        assert answer.eval_tokens > 0 and answer.eval_ms > 0 and answer.latency_s > 0
    # The claims share the system prompt and the template's opening: only the first evaluates it.
    assert any(a.prompt_eval_tokens < a.tokens_in - 20 for a in answers)
    usage = json.loads(cli(db_path, "runs", "--json").output)[0]["usage"]
    assert usage["prompt_tokens_per_second"] > 0 and usage["generated_tokens_per_second"] > 0
    assert usage["seconds_per_claim"]["median"] > 0 and usage["cost_usd"] == 0 and usage["price"]["local"]
    metrics = " ".join(cli(db_path, "metrics", "timed", "--resamples", "0").output.split())
    assert "per claim (p95" in metrics and "tok/s" in metrics and "cost $0 (local)" in metrics
