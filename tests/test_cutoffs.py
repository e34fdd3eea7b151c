"""The model-cutoff table: data, extendable in the config, read by --cutoff (a model's name or
auto) wherever a cutoff date is asked for, without changing what a date means."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.cutoffs import CutoffError, cutoff_table, find_cutoff, first_day_after, split_date


def test_a_cutoff_is_the_period_the_model_may_know():
    assert first_day_after("2023-10") == "2023-11-01"
    assert first_day_after("2023-12") == "2024-01-01"
    assert first_day_after("2024-09-30") == "2024-10-01"
    assert first_day_after("2023") == "2024-01-01"
    with pytest.raises(CutoffError, match="not a real date"):
        first_day_after("2023-13")


def test_models_are_found_by_their_longest_name():
    table = cutoff_table({})
    assert find_cutoff("openai:gpt-4o-2024-08-06", table).model == "gpt-4o"
    assert find_cutoff("openai:gpt-4o-mini-2024-07-18", table).model == "gpt-4o-mini"
    assert find_cutoff("anthropic:claude-sonnet-4-5-20250929", table).model == "claude-sonnet-4-5"
    assert find_cutoff("openai-compatible:meta-llama/Llama-3.1-8B-Instruct", table).model == "llama-3.1"
    assert find_cutoff("openai:gpt-4", table) is None  # gpt-4 is not gpt-4o
    assert split_date("2024-06-01", table) == "2024-06-01"  # a date is used as it is
    assert split_date("gpt-4.1", table) == "2024-07-01"
    with pytest.raises(CutoffError, match="did you mean gpt-4o"):
        split_date("gpt-4oo", table)


def test_the_config_adds_and_corrects_models(tmp_path, monkeypatch):
    config = tmp_path / "config.toml"
    config.write_text('[model_cutoffs]\n"my-finetune" = "2025-03"\n"gpt-4o" = "2023-12-31"\n')
    monkeypatch.setenv("WORKBENCH_CONFIG", str(config))
    table = cutoff_table()
    assert table["my-finetune"].first_day_after == "2025-04-01" and table["my-finetune"].origin == str(config)
    assert split_date("gpt-4o") == "2024-01-01"
    config.write_text('[model_cutoffs]\n"bad" = "last spring"\n')
    with pytest.raises(CutoffError, match=r"\[model_cutoffs\] 'bad'"):
        cutoff_table()


def test_the_cutoffs_command_lists_the_table(tmp_path, monkeypatch):
    config = tmp_path / "config.toml"
    config.write_text('[model_cutoffs]\n"[bold]mine" = "2025-03"\n')
    monkeypatch.setenv("WORKBENCH_CONFIG", str(config))
    result = CliRunner().invoke(main, ["cutoffs"])
    assert result.exit_code == 0, result.output
    assert "gpt-4o" in result.output and "2023-11-01" in result.output and "[bold]mine" in result.output
    rows = json.loads(CliRunner().invoke(main, ["cutoffs", "--json"]).output)
    assert {"model": "gpt-4.1", "cutoff": "2024-06", "first_day_after": "2024-07-01", "origin": "built-in"} in rows


@pytest.fixture
def two_runs(tmp_path):
    """A database with runs of two models over claims dated either side of 2023-11-01."""
    from store import Claim, Dataset, Prediction, Run, Store
    from workbench.labels import JSFACTCHECK

    db = tmp_path / "w.db"
    store = Store.open(db)
    dataset = Dataset(name="d", source_format="workbench", label_space=JSFACTCHECK)
    claims = [
        Claim(external_id=str(n), text=f"claim {n}", label="Supported", claim_date=day)
        for n, day in enumerate(["2023-06-01", "2023-10-31", "2023-11-01", "2024-08-01"])
    ]
    store.datasets.import_claims(dataset, claims)
    ids = store.claims.ids("")
    for name, model in (("old", "openai:gpt-4o-2024-08-06"), ("new", "openai:gpt-4.1-mini")):
        run = store.runs.create(Run(name=name, model=model, config_key=name), ids)
        for claim_id in ids:
            store.runs.record(Prediction(run_id=run.id, claim_id=claim_id, status="ok", verdict="Supported"))
    store.close()
    return db


def buckets(db, *args):
    result = CliRunner().invoke(
        main, ["--db", str(db), "metrics", *args, "--by", "cutoff", "--json", "--resamples", "0"]
    )
    assert result.exit_code == 0, result.output
    return {
        run["run"]: {k: v["scored"] for k, v in run["all"]["breakdowns"]["cutoff"].items()}
        for run in json.loads(result.output)["runs"]
    }


def test_metrics_cutoff_takes_a_model_name_or_auto(two_runs):
    assert buckets(two_runs, "old", "--cutoff", "2023-11-01") == buckets(two_runs, "old", "--cutoff", "gpt-4o")
    assert buckets(two_runs, "old", "--cutoff", "gpt-4o") == {"old": {"before": 2, "after": 2}}
    both = buckets(two_runs, "old", "new", "--cutoff", "auto")
    assert both == {"old": {"before": 2, "after": 2}, "new": {"before": 3, "after": 1}}
    assert buckets(two_runs, "new", "--cutoff", "new=gpt-4o") == {"new": {"before": 2, "after": 2}}
    result = CliRunner().invoke(main, ["--db", str(two_runs), "metrics", "old", "--cutoff", "gpt-9"])
    assert result.exit_code == 1 and "neither a date like 2024-06-01 nor a model" in result.output
