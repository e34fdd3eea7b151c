"""Typos answered with the nearest name (commands, options, runs: one mechanism, the one
datasets use), long lists that say they were cut, counts in the right number, and
`--cutoff auto` over a run whose model has no known cutoff (an imported run)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from store import Prediction, Run
from store.names import listed
from tests.loopback_servers import Fault, LoopbackServer
from tests.run_fixtures import many_claims, write_mini
from workbench.cli import main
from workbench.importers import import_file
from workbench.words import counted


def cli(db_path, *args):
    return CliRunner().invoke(main, ["--db", str(db_path), *args], terminal_width=200)


def said(result) -> str:
    return " ".join(result.output.split())


@pytest.fixture
def demo_db(demo_store, db_path):
    from workbench.cli.demo import load_demo_team

    load_demo_team(demo_store)  # the demo's runs, demo-checker and demo-checker-ja
    return db_path


@pytest.mark.parametrize(
    "args, meant",
    [
        (["runz"], "No such command 'runz'. Did you mean run, runs?"),
        (["predicitons", "x"], "No such command 'predicitons'. Did you mean predictions"),
        (["claims", "--wher", "label:x"], "No such option '--wher'. Did you mean --where?"),
        (["run", "--max-cots", "1"], "No such option '--max-cots'. Did you mean --max-cost?"),
    ],
)
def test_a_misspelled_command_or_option_is_answered_with_the_nearest(demo_db, args, meant):
    result = cli(demo_db, *args)
    assert result.exit_code == 2 and meant in said(result)
    assert "--help'" not in said(result)  # not offered help for a typo of another option


@pytest.mark.parametrize(
    "command", [["predictions"], ["show-run"], ["metrics"], ["run", "--resume"], ["triage", "agreement"]]
)
def test_a_misspelled_run_name_is_answered_with_the_nearest(demo_db, command):
    result = cli(demo_db, *command, "demo-chekcer")
    assert result.exit_code == 1 and "did you mean demo-checker" in said(result)


def test_a_long_list_of_runs_in_an_error_says_how_many_it_left_out(demo_db, demo_store):
    claim_ids = demo_store.claims.ids("")[:2]
    for n in range(12):
        demo_store.runs.create(Run(name=f"extra-{n:02d}", model="openai:gpt-4o", config_key=f"k{n}"), claim_ids)
    result = cli(demo_db, "metrics", "nothing-like-it")
    total = len(demo_store.runs.list(kind=None))
    assert result.exit_code == 1 and f"and {total - 8} more" in said(result)


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)  # 2 shared cores
@given(st.lists(st.from_regex(r"[a-z0-9-]{1,6}", fullmatch=True), max_size=30), st.integers(1, 10))
def test_listed_shows_at_most_the_limit_and_counts_the_rest(names, limit):
    text = listed(names, limit)
    assert text.startswith(", ".join(names[:limit]))
    assert text.endswith(f" and {len(names) - limit} more") == (len(names) > limit)


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.integers(0, 10**7))
def test_a_count_agrees_with_its_noun(count):
    assert counted(count, "attempt") == (f"{count:,} attempt" if count == 1 else f"{count:,} attempts")
    assert counted(count, "try", "tries").endswith("try" if count == 1 else "tries")


def test_a_claim_that_fails_once_says_one_attempt(store, db_path, tmp_path):
    import_file(store, write_mini(tmp_path, many_claims(1), name="one"), "jsonl")
    with LoopbackServer("openai") as server:
        server.faults.append(Fault.status_code(500))
        result = cli(
            db_path,
            "run",
            "--dataset",
            "one",
            "--model",
            "openai-compatible:loop",
            "--base-url",
            server.url,
            "--param",
            "attempts=1",
        )
    assert result.exit_code == 1
    assert "(gave up after 1 attempt)" in said(result) and "1 attempts" not in said(result)
    assert "new run loop-jsfactcheck-claim (id 1): 1 claim, 1 to answer" in said(result)
    assert "1 of 1 claim has no answer" in said(result)


def test_cutoff_auto_reports_every_run_and_says_which_had_no_cutoff(demo_db, demo_store):
    imported = demo_store.runs.get("demo-checker")
    claim_ids = demo_store.runs.claim_ids(imported.id)
    known = demo_store.runs.create(Run(name="gpt", model="openai:gpt-4o-2024-08-06", config_key="gpt"), claim_ids)
    for claim_id in claim_ids:
        demo_store.runs.record(Prediction(run_id=known.id, claim_id=claim_id, status="ok", verdict="Supported"))
    result = cli(demo_db, "report", "gpt", "demo-checker", "--cutoff", "auto", "--format", "json", "--resamples", "0")
    assert result.exit_code == 0, result.output
    assert "note: run demo-checker has no cutoff: an imported run's model imported:demo-checker" in result.stderr
    runs = {run["run"]: run for run in json.loads(result.stdout)["runs"]}
    assert "cutoff" in runs["gpt"]["all"]["breakdowns"] and runs["gpt"]["cutoff_note"] is None
    assert "cutoff" not in runs["demo-checker"]["all"]["breakdowns"]
    assert "has no cutoff" in runs["demo-checker"]["cutoff_note"]
    markdown = cli(demo_db, "report", "gpt", "demo-checker", "--cutoff", "auto", "--by", "cutoff", "--resamples", "0")
    assert markdown.exit_code == 0 and "Note: run demo-checker has no cutoff" in markdown.stdout
