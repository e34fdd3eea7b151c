"""The schema for spot-checks with local and priced models (m016): per-answer timings from
llama.cpp, provider-cached and batch-priced tokens, and the engine settings of a run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from store.migration_registry import migration

if TYPE_CHECKING:
    from sqlite_utils import Database


@migration
def m016_answer_timings(db: Database) -> None:
    """What each answer cost in time and tokens beyond tokens_in/out and latency_s.

    prompt_eval_tokens / prompt_eval_ms: prompt tokens a local model evaluated and the time
    it took (a prefix shared with an earlier prompt is not evaluated again); eval_tokens /
    eval_ms: the same for generation (llama.cpp's own timings). tokens_cached: prompt
    tokens a provider served from its prompt cache. batched: the answer came from a
    provider's batch API (billed at its batch price).
    """
    db.executescript(
        """
        ALTER TABLE predictions ADD COLUMN prompt_eval_tokens INTEGER;
        ALTER TABLE predictions ADD COLUMN prompt_eval_ms REAL;
        ALTER TABLE predictions ADD COLUMN eval_tokens INTEGER;
        ALTER TABLE predictions ADD COLUMN eval_ms REAL;
        ALTER TABLE predictions ADD COLUMN tokens_cached INTEGER;
        ALTER TABLE predictions ADD COLUMN batched INTEGER NOT NULL DEFAULT 0;
        """
    )


@migration
def m016b_run_engine(db: Database) -> None:
    """The engine settings a run was started with (threads, batch size, build), as JSON."""
    db.executescript("ALTER TABLE runs ADD COLUMN engine TEXT;")


@migration
def m016c_answer_seconds_index(db: Database) -> None:
    """The model's seconds per answer in order within a run: a run's median and 95th
    percentile time per claim are two short index walks, not a sort of every answer."""
    db.executescript("CREATE INDEX predictions_run_seconds ON predictions(run_id, cached, latency_s);")
