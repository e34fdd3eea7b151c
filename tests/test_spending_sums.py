"""A run's spending (answers, seconds, tokens by batch) is summed in one pass over one index
(m019), and the sums are those of its answers whatever they hold."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from store import Prediction, Run, Store
from store.migrations import apply_migrations
from tests.run_fixtures import load_mini

maybe_count = st.none() | st.integers(0, 5000)
maybe_ms = st.none() | st.floats(0, 1e5, allow_nan=False)
answers = st.lists(
    st.fixed_dictionaries(
        {
            "status": st.sampled_from(["ok", "abstain", "parse_failure", "error"]),
            "cached": st.booleans(),
            "batched": st.booleans(),
            "latency_s": maybe_ms,
            "tokens_in": maybe_count,
            "tokens_out": maybe_count,
            "tokens_cached": maybe_count,
            "prompt_eval_tokens": maybe_count,
            "prompt_eval_ms": maybe_ms,
            "eval_tokens": maybe_count,
            "eval_ms": maybe_ms,
        }
    ),
    max_size=5,
)


def expected_spending(rows: list[dict]) -> dict:
    """The sums as the spending's docstring states them, worked out in Python."""
    answered = [r for r in rows if r["status"] != "error"]
    fresh = [r for r in answered if not r["cached"]]

    def total(key, among):
        return sum(r[key] or 0 for r in among)

    tokens = {}
    for batched in (True, False):
        group = [r for r in fresh if r["batched"] == batched]
        if group:
            tokens[batched] = tuple(total(k, group) for k in ("tokens_in", "tokens_out", "tokens_cached"))
    return {
        "answers": len(fresh),
        "from_cache": len(answered) - len(fresh),
        "timed": sum(r["latency_s"] is not None for r in fresh),
        "seconds_total": pytest.approx(total("latency_s", fresh)),
        "prompt_eval": (total("prompt_eval_tokens", answered), pytest.approx(total("prompt_eval_ms", answered))),
        "eval": (total("eval_tokens", answered), pytest.approx(total("eval_ms", answered))),
        "tokens": tokens,
    }


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=answers)
def test_spending_sums_what_the_answers_hold(store, tmp_path, rows):
    ids = load_mini(store, tmp_path) if not store.datasets.list() else store.claims.ids("")
    rows = rows[: len(ids)]  # one answer a claim
    run = store.runs.create(Run(name=f"r{len(store.runs.list())}", model="openai:m"), ids[: len(rows)])
    for claim_id, row in zip(ids, rows):
        store.runs.record(Prediction(run_id=run.id, claim_id=claim_id, **row))
    assert store.usage.spending(run.id) == expected_spending(rows)


def test_spending_reads_one_index_and_no_answer_row(store):
    plan = " ".join(
        str(step[-1])
        for step in store.conn.execute(
            "EXPLAIN QUERY PLAN SELECT count(*), total(latency_s), total(tokens_in), total(eval_ms)"
            " FROM predictions INDEXED BY predictions_run_usage"
            " WHERE run_id = 1 AND status IN ('ok', 'abstain', 'parse_failure') AND NOT cached AND batched"
        )
    )
    assert "COVERING INDEX predictions_run_usage" in plan


def test_upgrading_widens_the_seconds_index_and_keeps_the_percentiles(db_path, tmp_path):
    from store import open_database

    old = open_database(db_path)
    apply_migrations(old, stop_before="m019_answer_spending_index")
    old.close()
    store = Store.open(db_path)
    try:
        ids = load_mini(store, tmp_path)
        run = store.runs.create(Run(name="r", model="openai:m"), ids[:3])
        for claim_id, seconds in zip(ids, (3.0, 1.0, 2.0)):
            store.runs.record(Prediction(run_id=run.id, claim_id=claim_id, status="ok", latency_s=seconds))
        names = {name for (name,) in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert "predictions_run_usage" in names and "predictions_run_seconds" not in names
        assert store.usage.latencies_at(run.id, [0, 2], 3) == {0: 1.0, 2: 3.0}
        assert store.usage.spending(run.id)["seconds_total"] == 6.0
    finally:
        store.close()
