"""Fetching pages from the web, politely: robots.txt obeyed, at most `per_site` requests at a
time to one site (and `concurrency` in all), a Crawl-delay kept, retries with backoff on
429, 5xx, timeouts and dropped connections (a Retry-After is honoured, up to `max_wait`),
redirects followed up to a limit (each hop checked against its site's robots.txt, and
refused when its address is private unless allowed: workbench.articles.guarded), a size
limit enforced while the page streams in, binary downloads refused before their bytes are
read, and a clear User-Agent naming the workbench. Wayback Machine addresses are asked
for the page as saved (the id_ form, without the archive's toolbar).

    fetcher = WebFetcher(FetchSettings())
    outcome = await fetcher.fetch(url)   # (Page, attempts) to extract, or a failed ArticleRecord
    await fetcher.close()
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx

from store import ArticleRecord
from workbench.articles.guarded import Answer, Guard, Refused, guarded_get
from workbench.articles.html import ARCHIVE_HOSTS, raw_archive_address
from workbench.articles.pages import DEFAULT_MAX_BYTES, Page, failed, is_html, media_type
from workbench.articles.robots import ROBOTS_MAX_BYTES, RobotsCache, site_of
from workbench.retrying import backoff, with_retries
from workbench.words import counted

PRODUCT = "factcheck-workbench"
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
    private_hosts: frozenset[str] = frozenset()
    """host:port of servers that may be fetched although private (a lab's own server)."""
    archive_hosts: tuple[str, ...] = ARCHIVE_HOSTS


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
        self.client = httpx.AsyncClient(
            follow_redirects=False,
            limits=limits,
            trust_env=False,
            timeout=httpx.Timeout(settings.timeout, connect=min(10.0, settings.timeout)),
            headers={"User-Agent": settings.user_agent, "Accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1"},
        )
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
        settings, requests = self.settings, [0]

        @contextlib.asynccontextmanager
        async def slot(address: str):
            async with self._gate(address), self._slots:
                requests[0] += 1
                yield

        guard = self._page_guard(slot)

        def again(error: BaseException) -> bool:
            return isinstance(error, Refused) and error.retryable and (error.retry_after or 0) <= settings.max_wait

        def hold(seconds: float, error: BaseException) -> None:
            if getattr(error, "retry_after", None) is not None:
                self._gate(_last_address(error, url)).hold(seconds)  # the whole site asked for the pause

        try:
            answer = await with_retries(
                lambda: guarded_get(self.client, url, guard),
                attempts=settings.attempts,
                retry_if=again,
                wait=backoff(settings.backoff),
                on_wait=hold,
            )
        except Refused as refused:
            return self._failure(url, refused, max(requests[0], 1))
        return Page(answer.url, answer.status, answer.content_type, answer.body), requests[0]

    def _page_guard(self, slot) -> Guard:
        """A page's rules: robots.txt on every hop, HTML only, Wayback addresses in raw form."""
        settings = self.settings
        return Guard(
            settings.max_bytes,
            settings.allow_private,
            settings.private_hosts,
            settings.max_redirects,
            settings.timeout,
            permit=self._robots_permit if settings.robots else None,
            accept=_html_only,
            slot=slot,
            rewrite=lambda address: raw_archive_address(address, settings.archive_hosts),
        )

    def _failure(self, url: str, refused: Refused, requests: int) -> ArticleRecord:
        detail = refused.detail
        if refused.retryable:
            too_long = refused.retry_after is not None and refused.retry_after > self.settings.max_wait
            detail += (
                f" (it asked to wait {refused.retry_after:g} s; the limit is {self.settings.max_wait:g})"
                if too_long
                else f" ({counted(self.settings.attempts, 'try', 'tries')})"
            )
        answer = refused.answer
        page = Page(answer.url, answer.status, answer.content_type, b"") if answer is not None else None
        record = failed(url, SOURCE, refused.cause, detail, page, attempts=requests)
        record.http_status = refused.status if refused.status is not None else record.http_status
        return record

    async def _robots_permit(self, address: str) -> Refused | None:
        """Why the site's robots.txt (or the site being unreachable) stops us, or None."""
        rules = await self.robots.rules(address)
        if rules.crawl_delay:
            self._gate(address).delay = min(rules.crawl_delay, self.settings.max_wait)
        if rules.allows(address, PRODUCT):
            return None
        if rules.unreachable:
            return Refused("connection", rules.why)
        return Refused(
            "robots.txt",
            rules.why or (f"{site_of(address)}/robots.txt does not allow {PRODUCT} to fetch {urlsplit(address).path}"),
        )

    async def _robots_txt(self, url: str) -> tuple[int | None, bytes, str | None]:
        """robots.txt of a site (up to five redirects, as RFC 9309 asks, each hop guarded like
        a page's), never retried; its first ROBOTS_MAX_BYTES read."""
        guard = Guard(
            ROBOTS_MAX_BYTES,
            self.settings.allow_private,
            self.settings.private_hosts,
            5,
            self.settings.timeout,
            cut_at_limit=True,
            slot=lambda address: _both(self._gate(address), self._slots),
        )
        try:
            answer = await guarded_get(self.client, url, guard)
        except Refused as refused:
            if refused.status is not None:  # a 5xx or 429 answer: robots.txt is there, not readable now
                return refused.status, b"", None
            return None, b"", refused.detail[:200]
        return answer.status, answer.body, None


def _html_only(answer: Answer) -> None:
    """Binary downloads are refused before their bytes are read."""
    kind = media_type(answer.content_type)
    if kind and not is_html(answer.content_type, b""):
        raise Refused("not HTML", f"the page is {kind}", answer=answer)


def _last_address(refused: Refused, url: str) -> str:
    return refused.answer.url if refused.answer is not None else url


@contextlib.asynccontextmanager
async def _both(first, second):
    async with first, second:
        yield


__all__ = ["FetchSettings", "PRODUCT", "WebFetcher", "default_user_agent"]
