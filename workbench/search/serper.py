"""Serper (google.serper.dev): Google's web and image results, and Google Lens's matches for
an image, the search the contamination study's agent used.

    POST /search  {"q", "num"}  ->  organic: [{title, link, snippet, date, position}]
    POST /images  {"q", "num"}  ->  images:  [{title, imageUrl, link, source, domain, ...}]
    POST /lens    {"url"}       ->  organic: [{title, link, source, imageUrl, ...}]

The key goes in the X-API-KEY header, from $SERPER_API_KEY or [keys] serper in the config;
it is never part of the backend's identity (the search cache's key), a message or the
database. A result's date ("Mar 4, 2024", "3 days ago") is read into YYYY-MM-DD for the
leakage guards; the page an image is on is its `url`, so the guards see it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx

from workbench.dates import utc_day
from workbench.search.backends import SearchError, SearchResult, _HttpSearch, _text

SERPER_URL = "https://google.serper.dev"
MAX_RESULTS = 100


class SerperSearch(_HttpSearch):
    name = "serper"
    hints = {
        400: "the request was refused; often the account is out of credits",
        401: "the API key was refused",
        403: "the API key was refused or lacks access to this endpoint",
    }
    images = lens = True

    async def search(self, query: str, limit: int) -> list[SearchResult]:
        rows = await self._rows("/search", {"q": query, "num": min(limit, MAX_RESULTS)}, "organic")
        now = datetime.now(UTC)
        return [
            SearchResult(
                _text(r.get("link")), _text(r.get("title")), _text(r.get("snippet")), _dated(r.get("date"), now)
            )
            for r in rows[:limit]
        ]

    async def search_images(self, query: str, limit: int) -> list[SearchResult]:
        rows = await self._rows("/images", {"q": query, "num": min(limit, MAX_RESULTS)}, "images")
        return [_image(r) for r in rows if _text(r.get("imageUrl"))][:limit]

    async def search_by_image(self, image_url: str, limit: int) -> list[SearchResult]:
        """Google Lens's matches for a picture at a public address (Serper fetches it)."""
        answer = await self._json("POST", "/lens", json={"url": image_url})
        rows = _list(answer, "organic", "visualMatches", "visual_matches")
        if rows is None:
            raise SearchError("serper answered its lens search without an organic list")
        return [_image(r) for r in rows if _text(r.get("link")) or _text(r.get("imageUrl"))][:limit]

    async def _rows(self, path: str, body: dict, key: str) -> list[dict]:
        answer = await self._json("POST", path, json=body)
        rows = _list(answer, key)
        if rows is None:
            raise SearchError(f"serper answered {path} without an {key} list")
        return rows

    def _said(self, response: httpx.Response) -> str | None:
        try:
            body = response.json()
        except ValueError:
            return None
        message = body.get("message") if isinstance(body, dict) else None
        return " ".join(message.split())[:160] if isinstance(message, str) and message.strip() else None


def _list(answer: Any, *keys: str) -> list[dict] | None:
    if not isinstance(answer, dict):
        return None
    for key in keys:
        if isinstance(answer.get(key), list):
            return [row for row in answer[key] if isinstance(row, dict)]
    return None


def _image(row: dict) -> SearchResult:
    return SearchResult(
        _text(row.get("link")),
        _text(row.get("title")),
        None,
        _dated(row.get("date")),
        image_url=_text(row.get("imageUrl")),
        source=_text(row.get("source")) or _text(row.get("domain")),
    )


def _dated(value: Any, now: datetime | None = None) -> str | None:
    given = _text(value)
    return utc_day(given, now) or given
