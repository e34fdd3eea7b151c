"""Requests a run handed to a provider's batch API: the batch ids, so nothing is orphaned.

A row is reserved (`submitting`) before the requests leave, in one IMMEDIATE transaction
with the check that the run has no other batch out: two submits of one run cannot both
send. It becomes `submitted` with the provider's batch id, then `collected` once its
answers are read back, or `failed` when the provider gives up on the whole batch. A user
can mark a batch they no longer want to wait for `forgotten`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from store.connection import atomic
from store.records import now_iso

if TYPE_CHECKING:
    from sqlite3 import Connection

OPEN = ("submitting", "submitted")
"""A batch in these states still holds its run's claims."""


class BatchBusy(Exception):
    """The run already has a batch out (or a submit under way)."""

    def __init__(self, waiting: list[RunBatch]):
        super().__init__("the run already has a batch out")
        self.waiting = waiting


@dataclass(frozen=True)
class RunBatch:
    id: int
    run_id: int
    provider: str
    batch_id: str | None
    requests: int
    status: str
    provider_status: str | None
    note: str | None
    submitted_at: str
    collected_at: str | None


class BatchStore:
    def __init__(self, db: Connection):
        self.db = db

    def reserve(self, run_id: int, provider: str, sizes: list[int]) -> list[RunBatch]:
        """One `submitting` row per batch about to be sent; BatchBusy if the run has one out."""
        conn = self.db
        conn.execute("BEGIN IMMEDIATE")  # the check and the insert, with no writer in between
        try:
            waiting = self._select(f"run_id = ? AND status IN {OPEN}", [run_id])
            if waiting:
                raise BatchBusy(waiting)
            stamp = now_iso()
            ids = [
                conn.execute(
                    "INSERT INTO run_batches (run_id, provider, requests, submitted_at) VALUES (?, ?, ?, ?)",
                    [run_id, provider, size, stamp],
                ).lastrowid
                for size in sizes
            ]
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return [self.get(row_id) for row_id in ids]

    def submitted(self, row_id: int, batch_id: str) -> RunBatch:
        """The provider accepted the batch under `batch_id`."""
        with atomic(self.db):
            self.db.execute(
                "UPDATE run_batches SET status = 'submitted', batch_id = ? WHERE id = ?", [batch_id, row_id]
            )
        return self.get(row_id)

    def annotate(self, row_id: int, note: str) -> None:
        with atomic(self.db):
            self.db.execute("UPDATE run_batches SET note = ? WHERE id = ?", [note, row_id])

    def release(self, row_ids: list[int]) -> None:
        """Reservations whose requests were never sent (the submit failed before them)."""
        with atomic(self.db):
            self.db.executemany(
                "DELETE FROM run_batches WHERE id = ? AND status = 'submitting'", [(row_id,) for row_id in row_ids]
            )

    def get(self, row_id: int) -> RunBatch:
        return self._select("id = ?", [row_id])[0]

    def of_run(self, run_id: int, status: str | None = None) -> list[RunBatch]:
        """The run's batches, oldest first (only those in `status`, if given)."""
        if status is None:
            return self._select("run_id = ?", [run_id])
        return self._select("run_id = ? AND status = ?", [run_id, status])

    def waiting(self, run_id: int) -> list[RunBatch]:
        """The run's batches that still hold its claims (submitted, or a submit under way)."""
        return self._select(f"run_id = ? AND status IN {OPEN}", [run_id])

    def close(self, row_id: int, status: str, provider_status: str | None, note: str | None = None) -> None:
        """The batch is done with: its results were read (collected) or it failed as a whole."""
        with atomic(self.db):
            self.db.execute(
                "UPDATE run_batches SET status = ?, provider_status = ?, note = ?, collected_at = ? WHERE id = ?",
                [status, provider_status, note, now_iso(), row_id],
            )

    def forget(self, run_id: int) -> list[RunBatch]:
        """Stop waiting for the run's open batches (their answers will not be read)."""
        waiting = self.waiting(run_id)
        for row in waiting:
            self.close(row.id, "forgotten", row.provider_status, "forgotten by the user")
        return waiting

    def _select(self, where: str, params: list) -> list[RunBatch]:
        cursor = self.db.execute(f"SELECT * FROM run_batches WHERE {where} ORDER BY id", params)
        names = [d[0] for d in cursor.description]
        return [RunBatch(**dict(zip(names, row))) for row in cursor]


__all__ = ["BatchBusy", "BatchStore", "OPEN", "RunBatch"]
