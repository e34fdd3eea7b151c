"""What runs spent: their answers' time and tokens summed, the model's seconds in order
(percentiles), and what a model's earlier answers recorded (estimates before a run)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlite3 import Connection


class UsageStore:
    """Sums and walks over predictions for time and money (workbench.usage reads these)."""

    def __init__(self, db: Connection):
        self.db = db

    def spending(self, run_id: int) -> dict:
        """A run's answers in time and tokens, summed in SQL (a 300,000-answer run stays quick):
        answers the model gave and those from the cache, their seconds, their tokens by
        whether a batch answered them, and a local model's evaluated tokens and times.
        Errors are not answers; cached answers are counted and nothing else."""
        spent = "total({0}) FILTER (WHERE NOT cached AND {1}batched)"
        tokens = ", ".join(
            spent.format(c, n) for n in ("", "NOT ") for c in ("tokens_in", "tokens_out", "tokens_cached")
        )
        # One pass over the covering index predictions_run_usage (m019), not two over the rows.
        row = self.db.execute(
            "SELECT count(*) FILTER (WHERE NOT cached), count(*) FILTER (WHERE cached),"
            " count(latency_s) FILTER (WHERE NOT cached), total(latency_s) FILTER (WHERE NOT cached),"
            " total(prompt_eval_tokens), total(prompt_eval_ms), total(eval_tokens), total(eval_ms),"
            f" count(*) FILTER (WHERE NOT cached AND batched), {tokens}"
            " FROM predictions INDEXED BY predictions_run_usage"
            " WHERE run_id = ? AND status IN ('ok', 'abstain', 'parse_failure')",
            [run_id],
        ).fetchone()
        batched = row[8]
        tokens = {
            batched_answers: tuple(int(n) for n in sums)
            for batched_answers, sums, answers in ((True, row[9:12], batched), (False, row[12:15], row[0] - batched))
            if answers
        }
        return {
            "answers": row[0],
            "from_cache": row[1],
            "timed": row[2],
            "seconds_total": row[3],
            "prompt_eval": (row[4], row[5]),
            "eval": (row[6], row[7]),
            "tokens": tokens,
        }

    def latencies_at(self, run_id: int, positions: list[int], count: int) -> dict[int, float]:
        """The model's seconds for the answers at these 0-based positions in ascending order,
        of the run's `count` timed answers (RunStore.spending's "timed"): each a walk along
        predictions_run_usage from its nearer end, never reading every answer."""
        found = {}
        for position in positions:
            ascending = position <= count - 1 - position
            offset = position if ascending else count - 1 - position
            row = self.db.execute(
                "SELECT latency_s FROM predictions INDEXED BY predictions_run_usage WHERE run_id = ? AND cached = 0"
                f" AND latency_s IS NOT NULL ORDER BY latency_s {'ASC' if ascending else 'DESC'} LIMIT 1 OFFSET ?",
                [run_id, offset],
            ).fetchone()
            if row is not None:
                found[position] = row[0]
        return found

    def model_history(self, model: str, prompt_name: str | None = None) -> dict:
        """What earlier answers (not from the cache) by `model` recorded: their number, mean
        generated tokens and seconds (with this template when given), and a local model's
        prompt and generation speed over all its answers."""
        where = "r.model = ? AND p.cached = 0 AND p.status IN ('ok', 'abstain', 'parse_failure')"
        template = " AND r.prompt_name = ?" if prompt_name else ""
        answers, tokens_out, seconds = self.db.execute(
            f"SELECT count(*), avg(p.tokens_out), avg(p.latency_s) FROM predictions p JOIN runs r ON r.id = p.run_id"
            f" WHERE {where}{template}",
            [model] + ([prompt_name] if prompt_name else []),
        ).fetchone()
        p_tokens, p_ms, e_tokens, e_ms = self.db.execute(
            "SELECT sum(p.prompt_eval_tokens), sum(p.prompt_eval_ms), sum(p.eval_tokens), sum(p.eval_ms)"
            f" FROM predictions p JOIN runs r ON r.id = p.run_id WHERE {where}",
            [model],
        ).fetchone()
        return {
            "answers": answers,
            "mean_tokens_out": tokens_out,
            "mean_seconds": seconds,
            "prompt_per_second": p_tokens / p_ms * 1000 if p_ms else None,
            "generated_per_second": e_tokens / e_ms * 1000 if e_ms else None,
        }
