"""Search backends behind one small interface: `search(query, limit)` gives SearchResults,
`read(result)` the page's text where the backend has it.

    fts       offline: SQLite FTS5 (bm25) over the database's evidence pages and passages
              and imported knowledge-store documents (the default)
    searxng   a SearXNG instance's JSON API (--search-url, or `searxng_url` in the config);
              image search through its images category
    tavily    Tavily's search API (key in $TAVILY_API_KEY or [keys] tavily)
    serper    Google's results through Serper (key in $SERPER_API_KEY or [keys] serper):
              web search, image search and search by image (serper.py)

A backend that can search images has `search_images(query, limit)` (results whose
`image_url` is the picture and `url` the page it is on); one that can search by an image
has `search_by_image(image_url, limit)`.

A backend call that times out, is refused (429) or fails (5xx) is tried again (three
tries, waiting 0.5 s then 1 s); one that still fails, or answers with something that is
not its JSON, is a SearchError the agent is told about (the claim goes on).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass
from typing import Any, Protocol

import httpx

from store import Store
from workbench.backends.base import scrub
from workbench.config import Settings
from workbench.dates import utc_day
from workbench.errors import WorkbenchError
from workbench.retrying import backoff, retry_after_seconds, with_retries

BACKENDS = ("fts", "searxng", "tavily", "serper")
IMAGE_BACKENDS = ("searxng", "serper")
"""The backends with image search."""
TRIES = 3
MAX_WAIT_S = 30.0
"""The longest Retry-After a search waits for (the model's turn is waiting)."""
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
    image_url: str | None = None
    """An image result's picture (`url` is then the page it is on)."""
    source: str | None = None
    """The site's name as the backend gives it (an image result's source)."""


class SearchBackend(Protocol):
    name: str
    identity: dict[str, Any]

    async def search(self, query: str, limit: int) -> list[SearchResult]: ...

    async def read(self, result: SearchResult) -> str | None: ...

    def for_claim(self, claim) -> SearchBackend:
        """The backend as one claim's searches see it (the web is the same for every claim)."""
        ...

    async def aclose(self) -> None: ...


SEARCH_KINDS = ("web", "images", "by image")
"""web: search(query); images: search_images(query); by image: search_by_image(image URL)."""


def cache_key(backend: SearchBackend, query: str, limit: int, kind: str = "web") -> str:
    asked = [backend.identity, query, limit] if kind == "web" else [backend.identity, kind, query, limit]
    return hashlib.sha256(json.dumps(asked).encode()).hexdigest()


async def cached_search(
    store: Store, backend: SearchBackend, query: str, limit: int, kind: str = "web"
) -> list[SearchResult]:
    """Results from the search cache, else from the backend (then cached): a re-run of a
    search run asks no search engine again. `kind`: one of SEARCH_KINDS (for `by image`
    the query is the image's address)."""
    key = cache_key(backend, query, limit, kind)
    found = store.search.cached(key)
    if found is not None:
        return [SearchResult(**item) for item in found]
    call = {
        "web": lambda: backend.search(query, limit),
        "images": lambda: backend.search_images(query, limit),
        "by image": lambda: backend.search_by_image(query, limit),
    }[kind]
    results = await _with_tries(call)
    store.search.cache(
        key, backend.name if kind == "web" else f"{backend.name} {kind}", query, [asdict(r) for r in results]
    )
    return results


async def _with_tries(call):
    def again(error: BaseException) -> bool:
        return isinstance(error, _Retryable) and (error.retry_after or 0) <= MAX_WAIT_S

    try:
        return await with_retries(call, attempts=TRIES, retry_if=again, wait=backoff(0.5))
    except _Retryable as error:
        raise SearchError(str(error)) from None


class _Retryable(Exception):
    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


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
        return [
            SearchResult(r["url"], r["title"], r["snippet"], r["published"], None, r["ref"])
            for r in self.store.search.full_text(query, limit, self.dataset, self.claim)
        ]

    async def read(self, result: SearchResult) -> str | None:
        return self.store.search.full_text_of(result.ref) if result.ref else None

    async def aclose(self) -> None:
        pass


class _HttpSearch:
    """What the HTTP backends share: one client, errors told apart."""

    name = ""
    hints: dict[int, str] = {}
    """What a refusal usually means, by HTTP status."""
    images = lens = False
    """Whether the backend searches images, and by an image."""

    def __init__(self, base_url: str, headers: dict[str, str] | None = None):
        self.base_url = base_url.rstrip("/")
        self.identity = {"backend": self.name, "url": self.base_url}
        self._secrets = [part for value in (headers or {}).values() for part in (value, *value.split()[-1:])]
        """Header values (keys; "Bearer KEY" and KEY) no message may repeat, even echoed by a server."""
        self._client = httpx.AsyncClient(timeout=TIMEOUT_S, headers=headers or {})

    async def _json(self, method: str, path: str, **kwargs) -> Any:
        try:
            response = await self._client.request(method, self.base_url + path, **kwargs)
        except httpx.TimeoutException:
            raise _Retryable(f"{self.name} did not answer within {TIMEOUT_S:g} s") from None
        except httpx.HTTPError as error:
            raise _Retryable(f"{self.name} could not be reached ({type(error).__name__})") from None
        if response.status_code == 429 or response.status_code >= 500:
            wait = retry_after_seconds(response.headers)
            raise _Retryable(
                f"{self.name} answered HTTP {response.status_code}"
                + (f" (it asked to wait {wait:g} s)" if wait is not None and wait > MAX_WAIT_S else ""),
                wait,
            )
        if response.status_code >= 400:
            hint = self.hints.get(response.status_code)
            said = self._said(response)
            raise SearchError(
                scrub(
                    f"{self.name} refused the search: HTTP {response.status_code}"
                    + (f" ({hint})" if hint else "")
                    + (f"; it said: {said}" if said else ""),
                    self._secrets,
                )
            )
        try:
            return response.json()
        except ValueError:
            raise SearchError(f"{self.name} answered with something that is not JSON") from None

    def _said(self, response: httpx.Response) -> str | None:
        """The reason a refusal gives in its body (Serper: {"message": ...}), if any."""
        return None

    async def read(self, result: SearchResult) -> str | None:
        return result.text  # what the search sent along; nothing is fetched from the page itself

    def for_claim(self, claim) -> _HttpSearch:
        return self

    async def aclose(self) -> None:
        await self._client.aclose()


class SearxngSearch(_HttpSearch):
    name = "searxng"
    hints = {403: "this instance does not answer JSON: add json to search.formats in its settings.yml"}
    images = True

    async def search(self, query: str, limit: int) -> list[SearchResult]:
        rows = await self._rows({"q": query, "format": "json"})
        return [
            SearchResult(
                _text(r.get("url")), _text(r.get("title")), _text(r.get("content")), _day(r.get("publishedDate"))
            )
            for r in rows[:limit]
        ]

    async def search_images(self, query: str, limit: int) -> list[SearchResult]:
        """The images category: img_src is the picture, url the page it is on."""
        rows = await self._rows({"q": query, "format": "json", "categories": "images"})
        return [
            SearchResult(
                _text(r.get("url")),
                _text(r.get("title")),
                _text(r.get("content")),
                _day(r.get("publishedDate")),
                image_url=_text(r.get("img_src")),
                source=_text(r.get("source")) or _text(r.get("engine")),
            )
            for r in rows
            if _text(r.get("img_src"))
        ][:limit]

    async def _rows(self, params: dict) -> list[dict]:
        answer = await self._json("GET", "/search", params=params)
        rows = answer.get("results") if isinstance(answer, dict) else None
        if not isinstance(rows, list):
            raise SearchError("searxng answered JSON without a results list")
        return [r for r in rows if isinstance(r, dict)]


class TavilySearch(_HttpSearch):
    name = "tavily"
    hints = {401: "the API key was refused", 432: "the plan's credits are used up"}

    async def search(self, query: str, limit: int) -> list[SearchResult]:
        answer = await self._json(
            "POST", "/search", json={"query": query, "max_results": limit, "include_raw_content": True}
        )
        rows = answer.get("results") if isinstance(answer, dict) else None
        if not isinstance(rows, list):
            raise SearchError("tavily answered JSON without a results list")
        return [
            SearchResult(
                _text(r.get("url")),
                _text(r.get("title")),
                _text(r.get("content")),
                _day(r.get("published_date")),
                _text(r.get("raw_content")),
            )
            for r in rows[:limit]
            if isinstance(r, dict)
        ]


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _day(value: Any) -> str | None:
    """A result's date as YYYY-MM-DD where it can be read, else as given."""
    given = _text(value)
    return utc_day(given) or given


def open_search(name: str, url: str | None, store: Store, settings: Settings) -> SearchBackend:
    """The backend a run asked for (serper: workbench.search.opening); SearchError says
    what is missing."""
    if name == "fts":
        return FtsSearch(store)
    needs = check_search(name, url, settings)
    if name == "searxng":
        return SearxngSearch(needs)
    if name == "tavily":
        return TavilySearch(url or "https://api.tavily.com", {"Authorization": f"Bearer {needs}"})
    raise SearchError(f"the {name} backend is opened by workbench.search.opening.open_any")


KEYS = {"tavily": "TAVILY_API_KEY", "serper": "SERPER_API_KEY"}


def check_search(name: str, url: str | None, settings: Settings) -> str | None:
    """What the backend needs (searxng: its address; tavily, serper: the key), checked
    before a run starts; SearchError says what is missing (never the key itself)."""
    if name == "fts":
        return None
    if name == "searxng":
        base = url or settings.searxng_url
        if not base:
            raise SearchError("the searxng backend needs its address: --search-url URL or searxng_url in the config")
        return base
    if name not in KEYS:
        raise SearchError(f"no search backend {name!r}; backends: {', '.join(BACKENDS)}")
    secret = settings.keys.get(name)
    key = os.environ.get(KEYS[name]) or (secret.get_secret_value() if secret else None)
    if not key:
        raise SearchError(f"the {name} backend needs a key: set {KEYS[name]} or [keys] {name} in the config")
    return key
