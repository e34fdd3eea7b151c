"""Run manifests: what `show-run` and `runs --json` show, and what `compare` says differs
besides the model, on real runs against an OpenAI-compatible server on loopback."""

from __future__ import annotations

import json
import sqlite3

import pytest
from click.testing import CliRunner

from tests.loopback_servers import LoopbackServer
from workbench.cli import main


def cli(db, *args):
    return CliRunner().invoke(main, ["--db", str(db), *map(str, args)], env={"COLUMNS": "200"}, catch_exceptions=False)


def _run(db, server, name, model="loop", *extra):
    result = cli(
        db,
        "run",
        "--model",
        f"openai-compatible:{model}",
        "--base-url",
        server.url,
        "--dataset",
        "demo",
        "--limit",
        "4",
        "--no-cache",
        "--name",
        name,
        *extra,
    )
    assert result.exit_code == 0, result.output


@pytest.fixture
def db(demo_store, db_path):
    return db_path


def test_show_run_lists_the_manifest_with_the_datas_hash(db):
    with LoopbackServer("openai") as server:
        _run(db, server, "first")
    data = json.loads(cli(db, "show-run", "first", "--json").output)["manifest"]
    assert data["model"] == "openai-compatible:loop" and data["dataset"] == "demo"
    assert data["claims"].startswith("4 claims, sha256 ")
    assert data["template"].startswith("jsfactcheck ") and data["setting"]
    assert "versions.factcheck-workbench" in data
    listed = {row["name"]: row for row in json.loads(cli(db, "runs", "--json").output)}
    assert listed["first"]["manifest"] == data
    text = " ".join(cli(db, "show-run", "first").output.split())
    assert "claims 4 claims, sha256" in text


def test_compare_says_only_the_model_differs(db):
    with LoopbackServer("openai") as server:
        _run(db, server, "a", "model-one")
        _run(db, server, "b", "model-two")
    out = " ".join(cli(db, "compare", "a", "b").output.split())
    assert "like for like: only the model differs between the runs" in out
    data = json.loads(cli(db, "compare", "a", "b", "--json").output)["comparability"]
    assert data == {"like_for_like": True, "varies": [], "differences": [], "unexplained": []}


def test_compare_names_what_else_differs_until_the_user_says_it_varies(db):
    with LoopbackServer("openai") as server:
        _run(db, server, "a", "model-one")
        _run(db, server, "b", "model-two", "--prompt", "jsfactcheck-claim-first", "--param", "temperature=0.7")
    out = " ".join(cli(db, "compare", "a", "b").output.split())
    assert "not like for like:" in out and "template (jsfactcheck " in out and "params.temperature" in out
    assert "--varies params,template" in out or "--varies template,params" in out
    data = json.loads(cli(db, "compare", "a", "b", "--json").output)["comparability"]
    assert data["like_for_like"] is False
    assert {"template", "params.temperature"} <= set(data["unexplained"])
    named = json.loads(cli(db, "compare", "a", "b", "--json", "--varies", "template,params").output)
    assert named["comparability"]["like_for_like"] is True and named["comparability"]["unexplained"] == []
    out = " ".join(cli(db, "compare", "a", "b", "--varies", "template", "--varies", "params").output.split())
    assert "like for like except what you named: " in out


def test_an_edited_dataset_is_not_the_same_data(db):
    with LoopbackServer("openai") as server:
        _run(db, server, "before")
        with sqlite3.connect(db) as connection:
            connection.execute("UPDATE claims SET text = text || ' (edited)' WHERE id = 2")
        _run(db, server, "after", "another-model")
    data = json.loads(cli(db, "compare", "before", "after", "--json").output)["comparability"]
    assert data["unexplained"] == ["claims"]


def test_an_unknown_varies_part_is_refused(db):
    result = cli(db, "compare", "a", "b", "--varies", "temprature")
    assert result.exit_code != 0 and "--varies 'temprature': not a part of a run's manifest" in result.output
