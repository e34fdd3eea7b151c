"""Fetching pages from the web, politely: robots.txt obeyed, at most `per_site` requests at a
time to one site (and `concurrency` in all), a Crawl-delay kept, retries with backoff on
429, 5xx, timeouts and dropped connections (a Retry-After is honoured, up to `max_wait`),
redirects followed up to a limit (each hop checked against its site's robots.txt), a size
limit enforced while the page streams in, binary downloads refused before their bytes are
read, and a clear User-Agent naming the workbench. Wayback Machine addresses are asked
for the page as saved (the id_ form, without the archive's toolbar).

    fetcher = WebFetcher(FetchSettings())
    outcome = await fetcher.fetch(url)   # (Page, attempts) to extract, or a failed ArticleRecord
    await fetcher.close()
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from urllib.parse import urljoin, urlsplit

import httpx

from store import ArticleRecord
from workbench.articles.html import ARCHIVE_HOSTS, raw_archive_address
from workbench.articles.pages import DEFAULT_MAX_BYTES, Page, failed, is_html, media_type
from workbench.articles.robots import RobotsCache, site_of

PRODUCT = "factcheck-workbench"
RETRY_STATUSES = {408, 425, 429, 500, 502, 503, 504}
REDIRECTS = {301, 302, 303, 307, 308}
SOURCE = "web"


def default_user_agent() -> str:
    from importlib import metadata

    try:
        version = metadata.version(PRODUCT)
    except metadata.PackageNotFoundError:
        version = "dev"
    return f"{PRODUCT}/{version} (fetches fact-check articles for research; obeys robots.txt)"


@dataclass
class FetchSettings:
    concurrency: int = 16
    per_site: int = 2
    timeout: float = 30.0
    """Seconds one request may take, from connecting to the last byte."""
    attempts: int = 3
    max_bytes: int = DEFAULT_MAX_BYTES
    max_redirects: int = 10
    max_wait: float = 120.0
    """The longest Retry-After honoured; a server asking for more is a failure."""
    backoff: float = 1.0
    """The first retry waits this long, each next one twice as long (a Retry-After wins)."""
    user_agent: str = field(default_factory=default_user_agent)
    robots: bool = True
    allow_private: bool = False
    """Private, loopback and link-local addresses may be fetched (the `search_fetch_private`
    setting: off, a dataset's address cannot make the workbench reach into your own network)."""
    archive_hosts: tuple[str, ...] = ARCHIVE_HOSTS


class _Retry(Exception):
    def __init__(self, cause: str, detail: str, wait: float | None = None, status: int | None = None):
        super().__init__(detail)
        self.cause, self.detail, self.wait, self.status = cause, detail, wait, status


class _Stop(Exception):
    def __init__(self, cause: str, detail: str, page: Page | None = None):
        super().__init__(detail)
        self.cause, self.detail, self.page = cause, detail, page


@dataclass
class _Redirect:
    location: str
    status: int


class _SiteGate:
    """At most `per_site` requests at once to a site, and the waits it asked for."""

    def __init__(self, per_site: int):
        self.slots = asyncio.Semaphore(per_site)
        self.not_before = 0.0
        self.delay = 0.0

    def hold(self, seconds: float) -> None:
        self.not_before = max(self.not_before, time.monotonic() + seconds)

    async def __aenter__(self):
        await self.slots.acquire()
        wait = self.not_before - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        if self.delay:
            self.hold(self.delay)
        return self

    async def __aexit__(self, *exc):
        self.slots.release()


class WebFetcher:
    """Fetches pages for one `articles fetch` (one HTTP client, robots.txt read once a site)."""

    def __init__(self, settings: FetchSettings):
        self.settings = settings
        limits = httpx.Limits(max_connections=settings.concurrency + 4, max_keepalive_connections=settings.concurrency)
        self.client = httpx.AsyncClient(follow_redirects=False, limits=limits, trust_env=False,
                                        timeout=httpx.Timeout(settings.timeout, connect=min(10.0, settings.timeout)),
                                        headers={"User-Agent": settings.user_agent,
                                                 "Accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1"})
        self.robots = RobotsCache(PRODUCT, self._robots_txt)
        self._gates: dict[str, _SiteGate] = {}
        self._slots = asyncio.Semaphore(settings.concurrency)
        """Requests in flight, in all (taken after the site's own slot)."""

    async def close(self) -> None:
        await self.client.aclose()

    def _gate(self, url: str) -> _SiteGate:
        site = site_of(url)
        if site not in self._gates:
            self._gates[site] = _SiteGate(self.settings.per_site)
        return self._gates[site]

    async def fetch(self, url: str) -> tuple[Page, int] | ArticleRecord:
        """The page at `url` (after redirects) and the requests it took, or why there is none."""
        address, spent = raw_archive_address(url.strip(), self.settings.archive_hosts), 0
        for _ in range(self.settings.max_redirects + 1):
            if not _web_address(address):
                return failed(url, SOURCE, "bad URL", f"{address!r} is not an http(s) address", attempts=max(spent, 1))
            refused = await self._refused_by_robots(address)
            if refused:
                return failed(url, SOURCE, *refused, attempts=max(spent, 1))
            outcome, used = await self._with_retries(url, address)
            spent += used
            if isinstance(outcome, _Redirect):
                address = raw_archive_address(urljoin(address, outcome.location), self.settings.archive_hosts)
                continue
            if isinstance(outcome, ArticleRecord):
                outcome.attempts = spent
                return outcome
            return outcome, spent
        return failed(url, SOURCE, "too many redirects", f"more than {self.settings.max_redirects} redirects"
                      f" (the last to {address})", attempts=spent)

    async def _refused_by_robots(self, address: str) -> tuple[str, str] | None:
        """(cause, detail) when the site's robots.txt (or the site being unreachable) stops us."""
        if not self.settings.robots:
            return None
        rules = await self.robots.rules(address)
        if rules.crawl_delay:
            self._gate(address).delay = min(rules.crawl_delay, self.settings.max_wait)
        if rules.allows(address, PRODUCT):
            return None
        if rules.unreachable:
            return "connection", rules.why
        return "robots.txt", rules.why or (f"{site_of(address)}/robots.txt does not allow {PRODUCT} to fetch"
                                           f" {urlsplit(address).path}")

    async def _with_retries(self, url: str, address: str):
        settings = self.settings
        for attempt in range(1, settings.attempts + 1):
            try:
                return await self._get(address), attempt
            except _Stop as stop:
                return failed(url, SOURCE, stop.cause, stop.detail, stop.page), attempt
            except _Retry as retry:
                too_long = retry.wait is not None and retry.wait > settings.max_wait
                if attempt == settings.attempts or too_long:
                    detail = retry.detail + (f" (it asked to wait {retry.wait:g} s; the limit is {settings.max_wait:g})"
                                             if too_long else f" ({attempt} tries)")
                    record = failed(url, SOURCE, retry.cause, detail, attempts=attempt)
                    record.http_status = retry.status
                    return record, attempt
                wait = retry.wait if retry.wait is not None else settings.backoff * 2 ** (attempt - 1)
                if retry.wait is not None:
                    self._gate(address).hold(wait)  # the whole site asked for the pause
                await asyncio.sleep(wait)
        raise AssertionError("unreachable")

    async def _get(self, address: str) -> Page | _Redirect:
        try:
            async with self._gate(address), self._slots:
                async with asyncio.timeout(self.settings.timeout):
                    async with self.client.stream("GET", address) as response:
                        return await self._answer(address, response)
        except TimeoutError:
            raise _Retry("timeout", f"no complete answer within {self.settings.timeout:g} s") from None
        except httpx.TimeoutException:
            raise _Retry("timeout", f"no answer within {self.settings.timeout:g} s") from None
        except (httpx.UnsupportedProtocol, httpx.InvalidURL) as error:
            raise _Stop("bad URL", str(error)) from None
        except httpx.TransportError as error:
            raise _Retry("connection", f"{type(error).__name__}: {error}"[:300]) from None

    async def _answer(self, address: str, response: httpx.Response) -> Page | _Redirect:
        status = response.status_code
        content_type = response.headers.get("content-type")
        if status in REDIRECTS and response.headers.get("location"):
            return _Redirect(response.headers["location"], status)
        if status in RETRY_STATUSES:
            raise _Retry(f"http {status}", f"the server answered {status}", _retry_after(response), status)
        if status >= 300:
            return Page(str(response.url), status, content_type, b"")
        if media_type(content_type) and not is_html(content_type, b""):
            raise _Stop("not HTML", f"the page is {media_type(content_type)}", Page(str(response.url), status,
                                                                                    content_type, b""))
        return Page(str(response.url), status, content_type, await self._body(response))

    async def _body(self, response: httpx.Response) -> bytes:
        limit = self.settings.max_bytes
        declared = response.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > limit:
            raise _Stop("too big", f"{int(declared):,} bytes declared; the limit is {limit:,}")
        body = bytearray()
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > limit:
                raise _Stop("too big", f"more than {limit:,} bytes (stopped reading there)")
        return bytes(body)

    async def _robots_txt(self, url: str) -> tuple[int | None, bytes, str | None]:
        """robots.txt of a site (up to five redirects, as RFC 9309 asks), never retried."""
        address = url
        try:
            for _ in range(6):
                async with self._gate(address), self._slots, asyncio.timeout(self.settings.timeout):
                    async with self.client.stream("GET", address) as response:
                        if response.status_code in REDIRECTS and response.headers.get("location"):
                            address = urljoin(address, response.headers["location"])
                            continue
                        body = bytearray()
                        async for chunk in response.aiter_bytes():
                            body += chunk
                            if len(body) > 512 * 1024:
                                break
                        return response.status_code, bytes(body), None
            return None, b"", "too many redirects"
        except (TimeoutError, httpx.HTTPError) as error:
            return None, b"", f"{type(error).__name__}: {error}"[:200]


def _web_address(address: str) -> bool:
    parts = urlsplit(address)
    return (parts.scheme in ("http", "https") and bool(parts.hostname)
            and not any(ch.isspace() or ord(ch) < 32 for ch in address))


def _retry_after(response: httpx.Response) -> float | None:
    """Seconds a Retry-After header asks for (a number, or an HTTP date), or None."""
    value = (response.headers.get("retry-after") or "").strip()
    if not value:
        return None
    if value.replace(".", "", 1).isdigit():
        return float(value)
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, moment.timestamp() - time.time())


__all__ = ["FetchSettings", "PRODUCT", "WebFetcher", "default_user_agent"]
