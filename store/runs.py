"""Runs and their predictions (one committed row per finished item); the response cache
is store/response_cache.py."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from store.connection import atomic, rows_as_dicts
from store.records import as_dict, now_iso, to_json
from store.response_cache import CachedResponse, ResponseCacheMixin
from store.run_owners import owner_gone, this_process
from store.run_records import Run

if TYPE_CHECKING:
    from sqlite3 import Connection

    from store.answer_records import Prediction
    from store.claim_records import Claim, ClaimImage, Evidence

_RUN_JSON = ("model_identity", "params", "versions", "engine")
BATCH_OWNER = "batch"
"""The owner of a run whose requests wait in a provider's batch API (no process runs it)."""
_PREDICTION_COLUMNS = [
    "run_id",
    "claim_id",
    "status",
    "verdict",
    "raw_verdict",
    "explanation",
    "raw_output",
    "parsed",
    "error",
    "attempts",
    "latency_s",
    "tokens_in",
    "tokens_out",
    "finish_reason",
    "cached",
    "created_at",
    "prompt_eval_tokens",
    "prompt_eval_ms",
    "eval_tokens",
    "eval_ms",
    "tokens_cached",
    "batched",
]
_UPSERT_PREDICTION = (
    "INSERT INTO predictions ({cols}) VALUES ({marks}) ON CONFLICT (run_id, claim_id) DO UPDATE SET {sets}"
).format(
    cols=", ".join(_PREDICTION_COLUMNS),
    marks=", ".join("?" * len(_PREDICTION_COLUMNS)),
    sets=", ".join(f"{c} = excluded.{c}" for c in _PREDICTION_COLUMNS[2:]),
)


@dataclass
class RunProgress:
    """How far a run has got."""

    total: int = 0
    ok: int = 0
    abstain: int = 0
    parse_failure: int = 0
    error: int = 0
    cached: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    latency_s: float = 0.0

    @property
    def done(self) -> int:
        """Items with an answer (errors are not answers; resume retries them)."""
        return self.ok + self.abstain + self.parse_failure

    @property
    def missing(self) -> int:
        return self.total - self.done - self.error


class RunStore(ResponseCacheMixin):
    """Creating runs, recording predictions, reading them back."""

    def __init__(self, db: Connection):
        self.db = db

    def create(self, run: Run, claim_ids: list[int]) -> Run:
        """Record a run and the exact claims it covers, in order."""
        values = as_dict(run, exclude={"id"})
        for key in _RUN_JSON:
            values[key] = to_json(values[key])
        values["created_at"] = values["created_at"] or now_iso()
        with atomic(self.db):
            cursor = self.db.execute(
                f"INSERT INTO runs ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})", list(values.values())
            )
            run_id = cursor.lastrowid
            self.db.executemany(
                "INSERT INTO run_claims (run_id, claim_id, position) VALUES (?, ?, ?)",
                [(run_id, claim_id, n) for n, claim_id in enumerate(claim_ids)],
            )
        return self.get(run_id)

    def create_with_predictions(self, run: Run, claim_ids: list[int], predictions: list[Prediction]) -> Run:
        """A finished run made elsewhere: the run, its claims and every answer, in one
        transaction (an imported predictions file: all of it, or nothing)."""
        with atomic(self.db):
            created = self.create(run, claim_ids)
            rows = []
            for prediction in predictions:
                values = as_dict(prediction, exclude={"id"})
                values.update(
                    run_id=created.id,
                    created_at=values["created_at"] or now_iso(),
                    parsed=None if values["parsed"] is None else to_json(values["parsed"]),
                )
                rows.append([values[c] for c in _PREDICTION_COLUMNS])
            self.db.executemany(_UPSERT_PREDICTION, rows)
        return self.get(created.id)

    def get(self, reference: int | str) -> Run | None:
        """A run by id or name."""
        row = self.db.execute(
            "SELECT * FROM runs WHERE CAST(id AS TEXT) = ? OR name = ? ORDER BY name = ? DESC LIMIT 1",
            [str(reference), str(reference), str(reference)],
        )
        rows = rows_as_dicts(row)
        return _run(rows[0]) if rows else None

    def list(self, kind: str | None = "verdict") -> list[Run]:
        """Runs, newest first."""
        sql, params = "SELECT * FROM runs", []
        if kind:
            sql, params = sql + " WHERE kind = ?", [kind]
        return [_run(r) for r in rows_as_dicts(self.db.execute(sql + " ORDER BY id DESC", params))]

    def latest_with_config(self, config_key: str) -> Run | None:
        """The newest run made with the same configuration (for re-running a command)."""
        found = self.with_config(config_key, limit=1)
        return found[0] if found else None

    def with_config(self, config_key: str, limit: int = 100) -> list[Run]:
        """Runs made with one configuration, newest first."""
        sql = "SELECT * FROM runs WHERE config_key = ? ORDER BY id DESC LIMIT ?"
        return [_run(row) for row in rows_as_dicts(self.db.execute(sql, [config_key, limit]))]

    def unique_name(self, base: str) -> str:
        """`base`, or `base-2`, `base-3`... whichever is free."""
        taken = {r[0] for r in self.db.execute("SELECT name FROM runs WHERE name LIKE ?", [base + "%"])}
        if base not in taken:
            return base
        n = 2
        while f"{base}-{n}" in taken:
            n += 1
        return f"{base}-{n}"

    def set_status(self, run_id: int, status: str) -> None:
        """Mark a run running / finished / cancelled / failed, stamping the time."""
        stamp = {
            "running": "started_at",
            "finished": "finished_at",
            "cancelled": "finished_at",
            "failed": "finished_at",
        }.get(status)
        owner = this_process() if status == "running" else None
        with atomic(self.db):
            self.db.execute("UPDATE runs SET status = ?, owner = ? WHERE id = ?", [status, owner, run_id])
            if stamp:
                self.db.execute(f"UPDATE runs SET {stamp} = ? WHERE id = ?", [now_iso(), run_id])

    def error_causes(self, run_id: int, limit: int = 5) -> list[tuple[str, int]]:
        """The run's distinct error messages with how many claims ended with each, most first."""
        return self.db.execute(
            "SELECT ifnull(error, 'no message'), count(*) FROM predictions WHERE run_id = ? AND status = 'error'"
            " GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ?",
            [run_id, limit],
        ).fetchall()

    def statuses(self, run_ids: list[int]) -> dict[int, str]:
        """run id -> status, for the runs that exist."""
        marks = ", ".join("?" * len(run_ids))
        return dict(self.db.execute(f"SELECT id, status FROM runs WHERE id IN ({marks})", run_ids).fetchall())

    def set_max_cost(self, run_id: int, dollars: float | None) -> None:
        """Keep a run's budget (--max-cost) with it, for a resume."""
        with atomic(self.db):
            self.db.execute("UPDATE runs SET max_cost = ? WHERE id = ?", [dollars, run_id])

    def set_batched(self, run_id: int) -> None:
        """Mark a run as waiting on a provider's batch API: it reads "batched", never "interrupted"."""
        with atomic(self.db):
            self.db.execute(
                "UPDATE runs SET status = 'running', owner = ?, started_at = coalesce(started_at, ?) WHERE id = ?",
                [BATCH_OWNER, now_iso(), run_id],
            )

    def claim_count(self, run_id: int) -> int:
        """How many claims the run's subset holds."""
        return self.db.execute("SELECT count(*) FROM run_claims WHERE run_id = ?", [run_id]).fetchone()[0]

    def claim_ids(self, run_id: int) -> list[int]:
        """The run's claims in their original order."""
        rows = self.db.execute("SELECT claim_id FROM run_claims WHERE run_id = ? ORDER BY position", [run_id])
        return [r[0] for r in rows]

    def claim_span(self, run_id: int) -> tuple[int | None, int | None]:
        """The run's lowest and highest claim id (two index seeks)."""
        # Two subqueries: SQLite seeks the index for a lone min() or max(), not for both at once.
        return tuple(
            self.db.execute(
                "SELECT (SELECT min(claim_id) FROM run_claims WHERE run_id = ?),"
                " (SELECT max(claim_id) FROM run_claims WHERE run_id = ?)",
                [run_id, run_id],
            ).fetchone()
        )

    def pending_claim_ids(self, run_id: int) -> list[int]:
        """Claims still without an answer: never tried, or ended in an error."""
        rows = self.db.execute(
            "SELECT rc.claim_id FROM run_claims rc LEFT JOIN predictions p"
            " ON p.run_id = rc.run_id AND p.claim_id = rc.claim_id"
            " WHERE rc.run_id = ? AND (p.id IS NULL OR p.status = 'error') ORDER BY rc.position",
            [run_id],
        )
        return [r[0] for r in rows]

    def explained_claim_ids(self, run_id: int) -> list[int]:
        """Claims the run answered (a verdict or an abstention) with an explanation, in run order."""
        rows = self.db.execute(
            "SELECT p.claim_id FROM predictions p JOIN run_claims rc ON rc.run_id = p.run_id"
            " AND rc.claim_id = p.claim_id WHERE p.run_id = ? AND p.status IN ('ok', 'abstain')"
            " AND trim(coalesce(p.explanation, '')) != '' ORDER BY rc.position",
            [run_id],
        )
        return [r[0] for r in rows]

    def errored_attempts(self, run_id: int) -> dict[int, int]:
        """claim id -> calls already spent, for the claims whose last try ended in an error
        (the only claims with a prediction that are asked again)."""
        rows = self.db.execute(
            "SELECT claim_id, attempts FROM predictions WHERE run_id = ? AND status = 'error'", [run_id]
        )
        return dict(rows.fetchall())

    def record(self, prediction: Prediction, cache: tuple[str, str, CachedResponse] | None = None) -> None:
        """Commit one finished item now (replacing an earlier error for the same claim).

        `cache` = (key, model identity, response): remember the response it came from in
        the same transaction (one commit per answer instead of two).
        """
        values = as_dict(prediction, exclude={"id"})
        values["parsed"] = None if values["parsed"] is None else to_json(values["parsed"])
        values["created_at"] = values["created_at"] or now_iso()
        with atomic(self.db):
            self.db.execute(_UPSERT_PREDICTION, [values[c] for c in _PREDICTION_COLUMNS])
            if cache is not None:
                self._insert_cached(*cache, values["created_at"])

    def progress(self, run_id: int) -> RunProgress:
        """Counts, tokens spent (cached answers cost nothing) and latency for a run."""
        total = self.db.execute("SELECT count(*) FROM run_claims WHERE run_id = ?", [run_id]).fetchone()[0]
        progress = RunProgress(total=total)
        for status, n, cached, t_in, t_out, latency in self.db.execute(
            # Tokens of answers served from the cache were spent by an earlier run, not this one.
            "SELECT status, count(*), sum(cached), sum(CASE WHEN cached THEN 0 ELSE tokens_in END),"
            " sum(CASE WHEN cached THEN 0 ELSE tokens_out END), sum(latency_s)"
            " FROM predictions WHERE run_id = ? GROUP BY status",
            [run_id],
        ):
            setattr(progress, status, n)
            progress.cached += cached or 0
            progress.tokens_in += t_in or 0
            progress.tokens_out += t_out or 0
            progress.latency_s += latency or 0.0
        return progress

    def judge_runs(self, run_id: int) -> list[Run]:
        """The judge runs that scored this run's explanations, oldest first."""
        rows = rows_as_dicts(self.db.execute("SELECT * FROM runs WHERE target_run_id = ? ORDER BY id", [run_id]))
        return [_run(r) for r in rows]

    def predictions(self, run_id: int, where: str = "1", params: list | None = None) -> list[Prediction]:
        """A run's predictions in run order; `where` narrows them (SQL over `p` and `c`)."""
        rows = rows_as_dicts(
            self.db.execute(
                "SELECT p.* FROM predictions p JOIN claims c ON c.id = p.claim_id"
                " JOIN run_claims rc ON rc.run_id = p.run_id AND rc.claim_id = p.claim_id"
                f" WHERE p.run_id = ? AND ({where}) ORDER BY rc.position",
                [run_id] + (params or []),
            )
        )
        return _predictions(rows)

    def prediction(self, run_id: int, claim_id: int) -> Prediction | None:
        """One run's answer for one claim."""
        rows = rows_as_dicts(
            self.db.execute("SELECT * FROM predictions WHERE run_id = ? AND claim_id = ?", [run_id, claim_id])
        )
        return _predictions(rows)[0] if rows else None

    def predictions_for_claim(self, claim_id: int) -> list[tuple[Run, Prediction]]:
        """Every run's answer for a claim, oldest run first (the side-by-side view)."""
        rows = rows_as_dicts(
            self.db.execute(
                "SELECT p.* FROM predictions p JOIN runs r ON r.id = p.run_id"
                " WHERE p.claim_id = ? AND r.kind = 'verdict' ORDER BY r.id",
                [claim_id],
            )
        )
        return [(self.get(r["run_id"]), p) for r, p in zip(rows, _predictions(rows))]

    def delete(self, run_id: int) -> None:
        """Remove a run and everything it produced."""
        with atomic(self.db):
            self.db.execute("DELETE FROM runs WHERE id = ?", [run_id])

    def claims(self, claim_ids: list[int]) -> list[Claim]:
        """Claims whole (as ClaimStore.get makes them) in the given order, read in two
        queries: the run engine fetches its pending claims in batches ahead of its
        workers instead of two queries per item. Unknown ids are left out."""
        from store.claim_records import Claim, ClaimImage, Evidence  # not made for a listing of runs

        if not claim_ids:
            return []
        marks = ", ".join("?" * len(claim_ids))
        evidence: dict[int, list[Evidence]] = {claim_id: [] for claim_id in claim_ids}
        cursor = self.db.execute(
            f"SELECT * FROM evidence WHERE claim_id IN ({marks}) ORDER BY claim_id, rank, id", claim_ids
        )
        for row in rows_as_dicts(cursor):
            claim_id = row.pop("claim_id")
            row.pop("id")
            row["attributes"] = json.loads(row["attributes"] or "{}")
            row["is_cited"] = bool(row["is_cited"])
            evidence[claim_id].append(Evidence(**row))
        images: dict[int, list[ClaimImage]] = {claim_id: [] for claim_id in claim_ids}
        cursor = self.db.execute(
            "SELECT ci.claim_id, ci.rank, ci.source, ci.url, ci.sha256, i.mime, i.bytes, i.width, i.height,"
            " ci.caption FROM claim_images ci LEFT JOIN images i ON i.sha256 = ci.sha256"
            f" WHERE ci.claim_id IN ({marks}) ORDER BY ci.claim_id, ci.rank, ci.id",
            claim_ids,
        )
        for row in rows_as_dicts(cursor):
            images[row.pop("claim_id")].append(ClaimImage(**row))
        cursor = self.db.execute(
            "SELECT c.*, d.name AS dataset FROM claims c JOIN datasets d ON d.id = c.dataset_id"
            f" WHERE c.id IN ({marks})",
            claim_ids,
        )
        found = {}
        for row in rows_as_dicts(cursor):
            row["attributes"] = json.loads(row["attributes"] or "{}")
            row.pop("dataset_id"), row.pop("content_hash")
            row["evidence"] = evidence[row["id"]]
            row["images"] = images[row["id"]]
            found[row["id"]] = Claim(**row)
        return [found[claim_id] for claim_id in claim_ids if claim_id in found]


def _run(row: dict) -> Run:
    for key in _RUN_JSON:
        row[key] = json.loads(row[key] or "{}")
    if row["status"] == "running" and row.get("owner") == BATCH_OWNER:
        row["status"] = "batched"
    elif row["status"] == "running" and owner_gone(row.get("owner")):
        row["status"] = "interrupted"
    return Run(**row)


def _predictions(rows: list[dict]) -> list[Prediction]:
    """Rows of `predictions` as records (their dataclass made when answers are first read)."""
    from store.answer_records import Prediction

    for row in rows:
        row["parsed"] = None if row["parsed"] is None else json.loads(row["parsed"])
        row["cached"], row["batched"] = bool(row["cached"]), bool(row["batched"])
    return [Prediction(**row) for row in rows]
