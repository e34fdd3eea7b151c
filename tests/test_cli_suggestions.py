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


@pytest.mark.parametrize(
    "args, typed", [(["claims", "--model", "x"], "--model"), (["runs", "--dataset", "x"], "--dataset")]
)
def test_an_option_of_another_command_is_not_answered_with_an_unrelated_one(demo_db, args, typed):
    result = cli(demo_db, *args)
    assert result.exit_code == 2 and f"No such option '{typed}'." in said(result)
    assert "Did you mean" not in said(result)  # was "--help" and "--annotator": only the dashes matched


def every_command(group=None, path=()):
    """(path, click.Context) for every command of the CLI, subcommands of groups included."""
    import click

    group = group or main
    # The CLI's own help names (-h too): click keeps the help option a command first made, so a
    # context without them would change what `--help` and the generated reference show later.
    names = main.context_settings.get("help_option_names", ["--help"])
    parent = click.Context(group, info_name=" ".join(("workbench", *path)), help_option_names=names)
    for name in group.list_commands(parent):
        command = group.get_command(parent, name)
        if isinstance(command, click.Group):
            yield from every_command(command, (*path, name))
        else:
            yield (*path, name), click.Context(command, info_name=name, parent=parent)


COMMANDS = list(every_command())


def long_options(ctx) -> list[str]:
    return [n for p in ctx.command.get_params(ctx) for n in (*p.opts, *p.secondary_opts) if n.startswith("--")]


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None, max_examples=300)
@given(st.sampled_from(COMMANDS), st.data())
def test_an_option_typo_is_offered_its_own_option_or_one_as_near(command, data):
    import difflib

    from workbench.cli import nearest_option

    _, ctx = command
    options = [o for o in long_options(ctx) if len(o) > 5]
    if not options:
        return
    option = data.draw(st.sampled_from(options))
    cut = data.draw(st.integers(2, len(option) - 1))  # one letter dropped, never a dash
    typed = option[:cut] + option[cut + 1 :]
    meant = nearest_option(ctx, typed)
    assert meant in long_options(ctx)

    def near(name):
        return difflib.SequenceMatcher(None, typed.lstrip("-"), name.lstrip("-")).ratio()

    assert near(meant) >= near(option)


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None, max_examples=300)
@given(st.sampled_from(COMMANDS), st.from_regex(r"--[a-z][a-z-]{0,14}", fullmatch=True))
def test_any_unknown_option_is_offered_a_near_option_of_that_command_or_nothing(command, typed):
    import difflib

    from workbench.cli import nearest_option

    _, ctx = command
    meant = nearest_option(ctx, typed)
    if meant is not None:
        assert meant in long_options(ctx)
        bare = typed.lstrip("-")
        ratio = difflib.SequenceMatcher(None, bare, meant.lstrip("-")).ratio()
        lowered = difflib.SequenceMatcher(None, bare.lower(), meant.lstrip("-").lower()).ratio()
        assert max(ratio, lowered) >= 0.6  # near without the dashes every option shares
