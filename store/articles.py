"""Oracle articles fetched from the addresses claims name (table articles, migration m014).

One row per address: the last attempt, fetched or failed with its cause. Each result is
written in its own transaction the moment it exists, so a fetch that is stopped keeps
everything it finished and a second fetch asks only for what is missing or failed.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

from store.connection import atomic
from store.records import now_iso

if TYPE_CHECKING:
    from sqlite3 import Connection

_CHUNK = 500


@dataclass
class ArticleRecord:
    """What one attempt to get an article ended with."""

    url: str
    """The address as the claim names it (claims.article_url)."""
    status: str
    """fetched or failed."""
    source: str
    """Where it came from: web, or the saved folder / WARC file it was read from."""
    cause: str | None = None
    """Why it failed, in a few words: "http 404", "timeout", "robots.txt", "not HTML", ..."""
    detail: str | None = None
    final_url: str | None = None
    http_status: int | None = None
    content_type: str | None = None
    title: str | None = None
    text: str | None = None
    html_sha256: str | None = None
    html_bytes: int | None = None
    attempts: int = 1
    fetched_at: str | None = None


_COLUMNS = [f.name for f in fields(ArticleRecord)]
# A failed attempt never replaces a fetched article (a site down today keeps yesterday's text).
_UPSERT = (
    f"INSERT INTO articles ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})"
    " ON CONFLICT (url) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in _COLUMNS[1:])
    + " WHERE articles.status != 'fetched' OR excluded.status = 'fetched'"
)
_HAS_TEXT = "a.status = 'fetched' AND trim(coalesce(a.text, '')) != ''"


@dataclass
class ArticleCounts:
    """Where a set of claims stands: how many have an address, a fetched text, a failure."""

    claims: int = 0
    with_url: int = 0
    fetched: int = 0
    failed: int = 0
    missing: int = 0
    """Claims with an address nothing was tried for yet."""
    causes: dict[str, int] | None = None
    """Failure cause -> claims."""


class ArticleStore:
    """Fetched articles by address, and which claims still need one."""

    def __init__(self, db: Connection):
        self.db = db

    def save(self, record: ArticleRecord) -> bool:
        """Insert or replace the row for the record's address (one transaction); False when a
        failure was not stored because the address has a fetched article already."""
        values = {**record.__dict__, "fetched_at": record.fetched_at or now_iso()}
        with atomic(self.db):
            cursor = self.db.execute(_UPSERT, [values[c] for c in _COLUMNS])
        return cursor.rowcount > 0

    def get(self, url: str) -> ArticleRecord | None:
        cursor = self.db.execute(f"SELECT {', '.join(_COLUMNS)} FROM articles WHERE url = ?", [url])
        row = cursor.fetchone()
        return ArticleRecord(*row) if row else None

    def for_claim(self, claim_id: int) -> ArticleRecord | None:
        """The article row of a claim's address (fetched or failed), or None."""
        cursor = self.db.execute(
            f"SELECT {', '.join('a.' + c for c in _COLUMNS)} FROM claims c JOIN articles a ON a.url = c.article_url"
            " WHERE c.id = ?",
            [claim_id],
        )
        row = cursor.fetchone()
        return ArticleRecord(*row) if row else None

    def text_for_claim(self, claim_id: int) -> str | None:
        """The fetched main text of a claim's article, or None."""
        row = self.db.execute(
            f"SELECT a.text FROM claims c JOIN articles a ON a.url = c.article_url WHERE c.id = ? AND {_HAS_TEXT}",
            [claim_id],
        ).fetchone()
        return row[0] if row else None

    def claims_with_text(self, claim_ids: list[int]) -> set[int]:
        """Those of the claims whose address has a fetched text."""
        found: set[int] = set()
        for start in range(0, len(claim_ids), _CHUNK):
            chunk = claim_ids[start : start + _CHUNK]
            found |= {
                r[0]
                for r in self.db.execute(
                    f"SELECT c.id FROM claims c JOIN articles a ON a.url = c.article_url"
                    f" WHERE c.id IN ({', '.join('?' * len(chunk))}) AND {_HAS_TEXT}",
                    chunk,
                )
            }
        return found

    def addresses(self, claim_ids: list[int]) -> dict[str, list[int]]:
        """Address -> the claims naming it, for the claims that name one."""
        found: dict[str, list[int]] = {}
        for start in range(0, len(claim_ids), _CHUNK):
            chunk = claim_ids[start : start + _CHUNK]
            for claim_id, url in self.db.execute(
                f"SELECT id, article_url FROM claims WHERE id IN ({', '.join('?' * len(chunk))})"
                " AND trim(coalesce(article_url, '')) != '' ORDER BY id",
                chunk,
            ):
                found.setdefault(url, []).append(claim_id)
        return found

    def statuses(self, urls: list[str]) -> dict[str, str]:
        """Address -> fetched / failed, for the addresses that have a row."""
        found: dict[str, str] = {}
        for start in range(0, len(urls), _CHUNK):
            chunk = urls[start : start + _CHUNK]
            found.update(
                dict(
                    self.db.execute(
                        f"SELECT url, status FROM articles WHERE url IN ({', '.join('?' * len(chunk))})", chunk
                    ).fetchall()
                )
            )
        return found

    def attempts(self, url: str) -> int:
        row = self.db.execute("SELECT attempts FROM articles WHERE url = ?", [url]).fetchone()
        return row[0] if row else 0

    def counts(self, claim_ids: list[int]) -> ArticleCounts:
        """How the claims' articles stand (a claim counts once, by its own address)."""
        counts = ArticleCounts(claims=len(claim_ids), causes={})
        by_url = self.addresses(claim_ids)
        counts.with_url = sum(len(ids) for ids in by_url.values())
        rows = {}
        urls = list(by_url)
        for start in range(0, len(urls), _CHUNK):
            chunk = urls[start : start + _CHUNK]
            rows.update(
                {
                    url: (status, cause, text)
                    for url, status, cause, text in self.db.execute(
                        f"SELECT url, status, cause, trim(coalesce(text, '')) != '' FROM articles"
                        f" WHERE url IN ({', '.join('?' * len(chunk))})",
                        chunk,
                    )
                }
            )
        for url, ids in by_url.items():
            status, cause, has_text = rows.get(url, (None, None, False))
            if status == "fetched" and has_text:
                counts.fetched += len(ids)
            elif status is None:
                counts.missing += len(ids)
            else:
                counts.failed += len(ids)
                counts.causes[cause or "no text"] = counts.causes.get(cause or "no text", 0) + len(ids)
        return counts

    def dataset_counts(self, dataset_id: int) -> ArticleCounts:
        """counts() for a whole dataset, in two aggregate queries (what the TUI shows)."""
        has_url = "trim(coalesce(c.article_url, '')) != ''"
        row = self.db.execute(
            f"SELECT count(*), sum({has_url}), sum({has_url} AND a.status = 'fetched' AND trim(coalesce(a.text, ''))"
            f" != ''), sum({has_url} AND a.id IS NULL) FROM claims c LEFT JOIN articles a ON a.url = c.article_url"
            " WHERE c.dataset_id = ?",
            [dataset_id],
        ).fetchone()
        claims, with_url, fetched, missing = (value or 0 for value in row)
        causes = dict(
            self.db.execute(
                "SELECT coalesce(a.cause, 'no text'), count(*) FROM claims c JOIN articles a ON a.url = c.article_url"
                " WHERE c.dataset_id = ? AND NOT (a.status = 'fetched' AND trim(coalesce(a.text, '')) != '')"
                " GROUP BY 1",
                [dataset_id],
            ).fetchall()
        )
        return ArticleCounts(claims, with_url, fetched, with_url - fetched - missing, missing, causes)

    def failures(self, claim_ids: list[int], limit: int = 50) -> list[tuple[int, ArticleRecord]]:
        """(a claim, its failed article) for the first failed addresses of these claims."""
        by_url = self.addresses(claim_ids)
        failed = []
        for url, ids in by_url.items():
            record = self.get(url)
            if record is not None and record.status == "failed":
                failed.append((ids[0], record))
                if len(failed) >= limit:
                    break
        return failed


__all__ = ["ArticleCounts", "ArticleRecord", "ArticleStore"]
