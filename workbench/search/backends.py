"""Search backends behind one small interface: `search(query, limit)` gives SearchResults,
`read(result)` the page's text where the backend has it.

    fts       offline: SQLite FTS5 (bm25) over the database's evidence pages and passages
              and imported knowledge-store documents (the default)
    searxng   a SearXNG instance's JSON API (--search-url, or `searxng_url` in the config)
    tavily    Tavily's search API (key in $TAVILY_API_KEY or [keys] tavily)

A backend call that times out, is refused (429) or fails (5xx) is tried again (three
tries, waiting 0.5 s then 1 s); one that still fails, or answers with something that is
not its JSON, is a SearchError the agent is told about (the claim goes on).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from dataclasses import asdict, dataclass
from typing import Any, Protocol

import httpx

from store import Store
from workbench.config import Settings
from workbench.errors import WorkbenchError

BACKENDS = ("fts", "searxng", "tavily")
TRIES = 3
TIMEOUT_S = 20.0


class SearchError(WorkbenchError):
    """A search that gave no results to show; the message says why (never a key)."""


@dataclass
class SearchResult:
    url: str | None
    title: str | None
    snippet: str | None
    published: str | None = None
    """The page's date as the backend gives it (YYYY-MM-DD...), when it gives one."""
    text: str | None = None
    """The page's text, when the backend sends it along (read needs no second call)."""
    ref: str | None = None
    """The offline backend's handle on the stored text."""


class SearchBackend(Protocol):
    name: str
    identity: dict[str, Any]

    async def search(self, query: str, limit: int) -> list[SearchResult]: ...

    async def read(self, result: SearchResult) -> str | None: ...

    def for_claim(self, claim) -> "SearchBackend":
        """The backend as one claim's searches see it (the web is the same for every claim)."""
        ...

    async def aclose(self) -> None: ...


def cache_key(backend: SearchBackend, query: str, limit: int) -> str:
    return hashlib.sha256(json.dumps([backend.identity, query, limit]).encode()).hexdigest()


async def cached_search(store: Store, backend: SearchBackend, query: str, limit: int) -> list[SearchResult]:
    """Results from the search cache, else from the backend (then cached): a re-run of a
    search run asks no search engine again."""
    key = cache_key(backend, query, limit)
    found = store.search.cached(key)
    if found is not None:
        return [SearchResult(**item) for item in found]
    results = await _with_tries(lambda: backend.search(query, limit))
    store.search.cache(key, backend.name, query, [asdict(r) for r in results])
    return results


async def _with_tries(call):
    delay = 0.5
    for attempt in range(TRIES):
        try:
            return await call()
        except _Retryable as error:
            if attempt == TRIES - 1:
                raise SearchError(str(error)) from None
            await asyncio.sleep(delay)
            delay *= 2


class _Retryable(Exception):
    pass


class FtsSearch:
    """The offline backend: the database's evidence, and the knowledge stores of the claim's
    dataset (a document imported for one claim, as AVeriTeC's are, only that claim finds)."""

    name = "fts"

    def __init__(self, store: Store, dataset: str | None = None, claim: str | None = None):
        self.store, self.dataset, self.claim = store, dataset, claim
        self.identity = {"backend": "fts", "dataset": dataset, "claim": claim}

    def for_claim(self, claim) -> FtsSearch:
        return FtsSearch(self.store, claim.dataset, claim.external_id)

    async def search(self, query: str, limit: int) -> list[SearchResult]:
        return [SearchResult(r["url"], r["title"], r["snippet"], r["published"], None, r["ref"])
                for r in self.store.search.full_text(query, limit, self.dataset, self.claim)]

    async def read(self, result: SearchResult) -> str | None:
        return self.store.search.full_text_of(result.ref) if result.ref else None

    async def aclose(self) -> None:
        pass


class _HttpSearch:
    """What the HTTP backends share: one client, errors told apart."""

    name = ""
    hints: dict[int, str] = {}
    """What a refusal usually means, by HTTP status."""

    def __init__(self, base_url: str, headers: dict[str, str] | None = None):
        self.base_url = base_url.rstrip("/")
        self.identity = {"backend": self.name, "url": self.base_url}
        self._client = httpx.AsyncClient(timeout=TIMEOUT_S, headers=headers or {})

    async def _json(self, method: str, path: str, **kwargs) -> Any:
        try:
            response = await self._client.request(method, self.base_url + path, **kwargs)
        except httpx.TimeoutException:
            raise _Retryable(f"{self.name} did not answer within {TIMEOUT_S:g} s") from None
        except httpx.HTTPError as error:
            raise _Retryable(f"{self.name} could not be reached ({type(error).__name__})") from None
        if response.status_code == 429 or response.status_code >= 500:
            raise _Retryable(f"{self.name} answered HTTP {response.status_code}")
        if response.status_code >= 400:
            hint = self.hints.get(response.status_code)
            raise SearchError(f"{self.name} refused the search: HTTP {response.status_code}"
                              + (f" ({hint})" if hint else ""))
        try:
            return response.json()
        except ValueError:
            raise SearchError(f"{self.name} answered with something that is not JSON") from None

    async def read(self, result: SearchResult) -> str | None:
        return result.text  # what the search sent along; nothing is fetched from the page itself

    def for_claim(self, claim) -> _HttpSearch:
        return self

    async def aclose(self) -> None:
        await self._client.aclose()


class SearxngSearch(_HttpSearch):
    name = "searxng"
    hints = {403: "this instance does not answer JSON: add json to search.formats in its settings.yml"}

    async def search(self, query: str, limit: int) -> list[SearchResult]:
        answer = await self._json("GET", "/search", params={"q": query, "format": "json"})
        rows = answer.get("results") if isinstance(answer, dict) else None
        if not isinstance(rows, list):
            raise SearchError("searxng answered JSON without a results list")
        return [SearchResult(_text(r.get("url")), _text(r.get("title")), _text(r.get("content")),
                             _text(r.get("publishedDate"))) for r in rows[:limit] if isinstance(r, dict)]


class TavilySearch(_HttpSearch):
    name = "tavily"
    hints = {401: "the API key was refused", 432: "the plan's credits are used up"}

    async def search(self, query: str, limit: int) -> list[SearchResult]:
        answer = await self._json("POST", "/search", json={"query": query, "max_results": limit,
                                                           "include_raw_content": True})
        rows = answer.get("results") if isinstance(answer, dict) else None
        if not isinstance(rows, list):
            raise SearchError("tavily answered JSON without a results list")
        return [SearchResult(_text(r.get("url")), _text(r.get("title")), _text(r.get("content")),
                             _text(r.get("published_date")), _text(r.get("raw_content")))
                for r in rows[:limit] if isinstance(r, dict)]


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def open_search(name: str, url: str | None, store: Store, settings: Settings) -> SearchBackend:
    """The backend a run asked for; SearchError says what is missing."""
    if name == "fts":
        return FtsSearch(store)
    if name == "searxng":
        base = url or settings.searxng_url
        if not base:
            raise SearchError("the searxng backend needs its address: --search-url URL or searxng_url in the config")
        return SearxngSearch(base)
    if name == "tavily":
        key = os.environ.get("TAVILY_API_KEY") or (settings.keys.get("tavily").get_secret_value()
                                                    if settings.keys.get("tavily") else None)
        if not key:
            raise SearchError("the tavily backend needs a key: set TAVILY_API_KEY or [keys] tavily in the config")
        return TavilySearch(url or "https://api.tavily.com", {"Authorization": f"Bearer {key}"})
    raise SearchError(f"no search backend {name!r}; backends: {', '.join(BACKENDS)}")
