"""Requests a run handed to a provider's batch API: the batch ids, so nothing is orphaned.

A batch is `submitted` until its results are read back into predictions (`collected`) or
the provider gives up on the whole batch (`failed`, with the provider's reason).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlite_utils import Database

from store.records import now_iso


@dataclass(frozen=True)
class RunBatch:
    id: int
    run_id: int
    provider: str
    batch_id: str
    requests: int
    status: str
    provider_status: str | None
    note: str | None
    submitted_at: str
    collected_at: str | None


class BatchStore:
    def __init__(self, db: Database):
        self.db = db

    def add(self, run_id: int, provider: str, batch_id: str, requests: int) -> RunBatch:
        with self.db.atomic():
            cursor = self.db.execute(
                "INSERT INTO run_batches (run_id, provider, batch_id, requests, submitted_at) VALUES (?, ?, ?, ?, ?)",
                [run_id, provider, batch_id, requests, now_iso()])
        return self.get(cursor.lastrowid)

    def get(self, row_id: int) -> RunBatch:
        return self._select("id = ?", [row_id])[0]

    def of_run(self, run_id: int, status: str | None = None) -> list[RunBatch]:
        """The run's batches, oldest first (only those in `status`, if given)."""
        if status is None:
            return self._select("run_id = ?", [run_id])
        return self._select("run_id = ? AND status = ?", [run_id, status])

    def close(self, row_id: int, status: str, provider_status: str | None, note: str | None = None) -> None:
        """The batch is done with: its results were read (collected) or it failed as a whole."""
        with self.db.atomic():
            self.db.execute("UPDATE run_batches SET status = ?, provider_status = ?, note = ?, collected_at = ?"
                            " WHERE id = ?", [status, provider_status, note, now_iso(), row_id])

    def _select(self, where: str, params: list) -> list[RunBatch]:
        cursor = self.db.execute(f"SELECT * FROM run_batches WHERE {where} ORDER BY id", params)
        names = [d[0] for d in cursor.description]
        return [RunBatch(**dict(zip(names, row))) for row in cursor]


__all__ = ["BatchStore", "RunBatch"]
