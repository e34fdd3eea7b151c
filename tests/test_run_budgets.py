"""A run keeps its --max-cost: a resume goes on under the same budget (what was spent
before counts), its hints carry the budget, and --max-cost on a resume replaces it, said
in the output. OpenAI-compatible wire format on a loopback server."""

from __future__ import annotations

import json

import pytest

from store import Store
from tests.loopback_servers import Fault, LoopbackServer
from tests.support.prices import USAGE, capped_run, cli, dear_prices, priced_claims, said


@pytest.fixture
def priced_db(store, db_path, tmp_path, monkeypatch):
    priced_claims(store, tmp_path, monkeypatch)
    dear_prices(tmp_path)
    return db_path


def capped(db_path, server, *extra):
    """A failed request is not asked again: a test's faults fail exactly the claims it says."""
    return capped_run(db_path, server, "--param", "attempts=1", *extra)


def stored_budget(db_path) -> float | None:
    store = Store.open(db_path)
    try:
        return store.runs.get("capped").max_cost
    finally:
        store.close()


def spent(db_path) -> float:
    (run,) = json.loads(cli(db_path, "runs", "--json").output)
    return run["usage"]["cost_usd"]


def test_a_resumed_run_keeps_its_budget_and_stops_at_it(priced_db):
    with LoopbackServer("openai", usage=USAGE) as server:
        server.faults.extend([Fault.status_code(400)] * 12)  # every claim fails: nothing spent
        failed = capped(priced_db, server, "--max-cost", "0.40")
        assert failed.exit_code == 1
        assert f"`workbench --db {priced_db} run --resume capped --max-cost 0.4` retries them" in said(failed)
        assert stored_budget(priced_db) == 0.40

        resumed = cli(priced_db, "run", "--resume", "capped")  # no --max-cost: the run's own budget
        assert resumed.exit_code == 1, resumed.output
        assert "budget: the run's --max-cost $0.40 still holds ($0 spent so far)" in said(resumed)
        assert "stopped at the budget" in said(resumed)
        first = len(server.answer_arrivals())
        assert 0 < first < 12  # stopped by the budget, not by running out of claims
        assert first * 0.035 <= 0.40

        again = cli(priced_db, "run", "--resume", "capped")  # what was spent counts
        assert again.exit_code == 1 and len(server.answer_arrivals()) < 12
        assert spent(priced_db) <= 0.40

        raised = cli(priced_db, "run", "--resume", "capped", "--max-cost", "1")
        assert raised.exit_code == 0 and "budget: --max-cost $1.00 replaces the run's $0.40" in said(raised)
        assert len(server.answer_arrivals()) == 12 and stored_budget(priced_db) == 1.0


def test_a_run_without_a_budget_resumes_without_one(priced_db):
    with LoopbackServer("openai", usage=USAGE) as server:
        server.faults.extend([Fault.status_code(400)] * 12)
        failed = capped(priced_db, server)
        assert failed.exit_code == 1 and f"`workbench --db {priced_db} run --resume capped` retries" in said(failed)
        resumed = cli(priced_db, "run", "--resume", "capped")
        assert resumed.exit_code == 0 and "budget" not in said(resumed)
    assert stored_budget(priced_db) is None


def test_a_kept_budget_refuses_a_batch_resume(priced_db):
    with LoopbackServer("openai", usage=USAGE) as server:
        server.faults.extend([Fault.status_code(400)] * 12)
        capped(priced_db, server, "--max-cost", "0.40")
        batch = cli(priced_db, "run", "--resume", "capped", "--batch")
        assert batch.exit_code == 1 and "keeps a budget (--max-cost $0.40)" in said(batch)
        assert len(server.answer_arrivals()) == 0
        freed = cli(priced_db, "run", "--resume", "capped", "--batch", "--max-cost", "none")
        assert freed.exit_code == 0 and "removed; no limit now" in said(freed), freed.output
    assert stored_budget(priced_db) is None


def test_max_cost_none_removes_a_kept_budget_on_resume(priced_db):
    with LoopbackServer("openai", usage=USAGE) as server:
        server.faults.extend([Fault.status_code(400)] * 12)
        capped(priced_db, server, "--max-cost", "0.10")
        assert stored_budget(priced_db) == 0.10
        freed = cli(priced_db, "run", "--resume", "capped", "--max-cost", "none")
        assert freed.exit_code == 0, freed.output
        assert "budget: the run's --max-cost $0.10 removed; no limit now" in said(freed)
        assert len(server.answer_arrivals()) == 12  # past what $0.10 would have allowed
    assert stored_budget(priced_db) is None


def test_a_word_that_is_not_dollars_is_refused_naming_none(priced_db):
    result = cli(priced_db, "run", "--dataset", "many", "--max-cost", "lots")
    assert result.exit_code == 2 and "'lots' is not a number of dollars (or 'none'" in said(result)


def test_a_kept_budget_too_small_for_a_request_names_the_runs_remaining_budget(priced_db):
    with LoopbackServer("openai", usage=USAGE) as server:
        first = capped(priced_db, server, "--max-cost", "0.40")  # stops when the next could pass $0.40
        assert first.exit_code == 1 and "stopped at the budget" in said(first)
        answered = len(server.answer_arrivals())
        resumed = cli(priced_db, "run", "--resume", "capped")
        assert resumed.exit_code == 1
        assert "the run's remaining budget," in said(resumed) and "of the $0.40 it keeps" in said(resumed)
        assert "--max-cost $0.40 is less than" not in said(resumed)  # a flag this command did not give
        assert len(server.answer_arrivals()) == answered
