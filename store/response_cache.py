"""The response cache: model responses stored under a hash of the model identity, the
exact messages and the sampling params, so a repeated configuration costs nothing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from store.connection import atomic
from store.records import now_iso

if TYPE_CHECKING:
    from sqlite3 import Connection


@dataclass
class CachedResponse:
    text: str
    tokens_in: int | None
    tokens_out: int | None
    finish_reason: str | None
    tool_calls: str | None = None
    """The answer's tool calls as JSON (a search run's step), None when it made none."""


class ResponseCacheMixin:
    """RunStore's response cache part: reads and writes response_cache."""

    db: Connection

    def cached_response(self, key: str) -> CachedResponse | None:
        """A model response stored under this cache key."""
        row = self.db.execute(
            "SELECT text, tokens_in, tokens_out, finish_reason, tool_calls FROM response_cache WHERE key = ?", [key]
        ).fetchone()
        return CachedResponse(*row) if row else None

    def cache_response(self, key: str, model_identity: str, response: CachedResponse) -> None:
        """Remember a model response (never any credential: the key is a hash)."""
        with atomic(self.db):
            self._insert_cached(key, model_identity, response, now_iso())

    def _insert_cached(self, key: str, model_identity: str, response: CachedResponse, created_at: str) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO response_cache"
            " (key, model_identity, text, tokens_in, tokens_out, finish_reason, tool_calls, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                key,
                model_identity,
                response.text,
                response.tokens_in,
                response.tokens_out,
                response.finish_reason,
                response.tool_calls,
                created_at,
            ],
        )
