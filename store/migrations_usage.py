"""The schema for quick sums of what a run spent (m019): one index holds every column the
sums read, so a 300,000-answer run's time and tokens are summed from the index alone."""

from __future__ import annotations

from typing import TYPE_CHECKING

from store.migration_registry import migration

if TYPE_CHECKING:
    from sqlite_utils import Database

SPENDING_COLUMNS = (
    "run_id, cached, latency_s, status, batched, tokens_in, tokens_out, tokens_cached,"
    " prompt_eval_tokens, prompt_eval_ms, eval_tokens, eval_ms"
)


@migration
def m019_answer_spending_index(db: Database) -> None:
    """Widen m016c's index (a run's answers in order of seconds) with what a run's spending
    sums: reading each answer's row instead took most of `metrics` on a big run."""
    db.executescript(
        f"""
        DROP INDEX IF EXISTS predictions_run_seconds;
        CREATE INDEX predictions_run_usage ON predictions({SPENDING_COLUMNS});
        """
    )
