"""Which run a `run` command answers into: a new name makes a new run, never another run
continued; the same command continues its own unfinished run; --resume continues the run
it names. API model on a loopback server."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from store import Store
from tests.loopback_servers import Fault, LoopbackServer
from tests.run_fixtures import many_claims, write_mini
from workbench.cli import main
from workbench.importers import import_file


@pytest.fixture
def five_db(store, db_path, tmp_path):
    import_file(store, write_mini(tmp_path, many_claims(5), name="five"), "jsonl")
    return db_path


def cli(db_path, *args):
    return CliRunner().invoke(main, ["--db", str(db_path), *args], terminal_width=200)


def said(result) -> str:
    return " ".join(result.output.split())


def run_five(db_path, server, *extra):
    """The same configuration every time: five claims, one model, one try per claim."""
    return cli(
        db_path,
        "run",
        "--dataset",
        "five",
        "--model",
        "openai-compatible:loop",
        "--base-url",
        server.url,
        "--concurrency",
        "1",
        "--param",
        "attempts=1",
        *extra,
    )


def answered(db_path, name) -> int:
    store = Store.open(db_path)
    try:
        run = store.runs.get(name)
        return store.runs.progress(run.id).done
    finally:
        store.close()


def unfinished_cc2(db_path, server):
    """Run cc2 with two claims left unanswered (the server fails them)."""
    server.faults.extend([Fault.status_code(500), Fault.status_code(500)])
    first = run_five(db_path, server, "--name", "cc2")
    assert first.exit_code == 1 and "new run cc2 (id 1)" in said(first)
    assert answered(db_path, "cc2") == 3


def test_a_new_name_makes_a_new_run_even_when_another_run_of_that_configuration_is_unfinished(five_db):
    with LoopbackServer("openai") as server:
        unfinished_cc2(five_db, server)
        store = Store.open(five_db)
        store.runs.set_status(store.runs.get("cc2").id, "cancelled")  # as a Ctrl-C leaves it
        store.close()
        named = run_five(five_db, server, "--name", "cc3")
    assert named.exit_code == 0, named.output
    text = said(named)
    assert "new run cc3 (id 2): 5 claims, 5 to answer" in text and "continuing" not in text
    assert (
        f"run cc2 has the same configuration and is unfinished; it is left as it is (`workbench --db {five_db} run --resume cc2` continues it)"
        in text
    )
    assert answered(five_db, "cc3") == 5 and answered(five_db, "cc2") == 3  # cc2 untouched


def test_the_same_command_continues_its_own_run_and_resume_continues_the_run_it_names(five_db):
    with LoopbackServer("openai") as server:
        unfinished_cc2(five_db, server)
        server.faults.append(Fault.status_code(500))
        again = run_five(five_db, server, "--name", "cc2")  # the same command again
        assert "continuing run cc2 (id 1): 5 claims, 2 to answer" in said(again)
        assert again.exit_code == 1 and f"`workbench --db {five_db} run --resume cc2` retries them" in said(again)
        unnamed = run_five(five_db, server)  # no name: the newest unfinished run of this configuration
        assert unnamed.exit_code == 0 and "continuing run cc2 (id 1): 5 claims, 1 to answer" in said(unnamed)
        finished_again = run_five(five_db, server, "--name", "cc2")
        assert finished_again.exit_code == 0
        assert "new run cc2-2 (id 2)" in said(finished_again)
        assert "a run named cc2 already exists (finished, or made with another configuration)" in said(finished_again)
    assert [run.name for run in Store.open(five_db).runs.list()] == ["cc2-2", "cc2"]


def test_resume_with_another_name_is_refused_before_any_work(five_db):
    with LoopbackServer("openai") as server:
        unfinished_cc2(five_db, server)
        both = cli(five_db, "run", "--resume", "cc2", "--name", "cc9")
        assert both.exit_code == 1 and "--resume continues run cc2 under its own name" in said(both)
        resumed = cli(five_db, "run", "--resume", "cc2", "--name", "cc2")
        assert resumed.exit_code == 0 and "continuing run cc2 (id 1): 5 claims, 2 to answer" in said(resumed)
    assert [run.name for run in Store.open(five_db).runs.list()] == ["cc2"]
