"""One retry loop and one Retry-After reader (workbench.retrying) for articles, images, search
and model calls: against real servers on 127.0.0.1 answering 429 and 503 with Retry-After as
seconds and as an HTTP date."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from email.utils import formatdate

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.article_fetching import PARAGRAPHS, article, claims_for, fetch
from tests.loopback_images import png
from tests.loopback_pages import PageServer, Route, article_html
from workbench.retrying import backoff, retry_after_seconds, with_retries
from workbench.search.image_fetch import FetchedImage, ImageFetcher


def http_date(seconds_from_now: float) -> str:
    return formatdate(time.time() + seconds_from_now, usegmt=True)


def test_retry_after_in_seconds_and_as_an_http_date():
    assert retry_after_seconds({"retry-after": "7"}) == 7.0
    assert retry_after_seconds({"retry-after": "0.5"}) == 0.5
    assert retry_after_seconds({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert 8.0 < retry_after_seconds({"retry-after": http_date(10)}) <= 10.0
    assert retry_after_seconds({"retry-after": http_date(-60)}) == 0.0  # a moment already past
    assert retry_after_seconds({"retry-after": "soon"}) is None and retry_after_seconds({}) is None


@given(st.integers(0, 10**7))
def test_an_http_date_reads_as_the_seconds_until_it(seconds):
    now = 1_800_000_000.0
    assert retry_after_seconds({"retry-after": formatdate(now + seconds, usegmt=True)}, now=now) == seconds


def waits_between(site: PageServer, path: str) -> list[float]:
    times = [at for at, arrived, _ in site.arrivals if arrived == path]
    return [later - earlier for earlier, later in zip(times, times[1:])]


@pytest.mark.parametrize("status", [429, 503])
def test_an_article_server_asking_to_wait_until_a_date_is_waited_for(store, db_path, tmp_path, status):
    with PageServer() as site:
        site.page("/busy", article_html("A check", PARAGRAPHS))
        claims_for(store, tmp_path, {"busy": site.url + "/busy"})
        site.faults["/busy"] = deque([(status, {"Retry-After": http_date(3)})])
        fetch(db_path, store)
        found = article(store, site.url + "/busy")
        assert (found.status, found.attempts) == ("fetched", 2)
        assert waits_between(site, "/busy")[0] >= 0.95  # the date, not the 0.01 s backoff


def fetch_image(store, url: str):
    async def go():
        fetcher = ImageFetcher(store, allow_private=True)
        try:
            return await fetcher.fetch(url)
        finally:
            await fetcher.aclose()

    return asyncio.run(go())


@pytest.mark.parametrize("status, retry_after", [(429, "1"), (503, "date")])
def test_an_image_server_asking_to_wait_is_waited_for(store, status, retry_after):
    with PageServer() as site:
        site.routes["/photo.png"] = Route(200, png(), {"Content-Type": "image/png"})
        asked = http_date(3) if retry_after == "date" else retry_after
        site.faults["/photo.png"] = deque([(status, {"Retry-After": asked})])
        fetched = fetch_image(store, site.url + "/photo.png")
        assert isinstance(fetched, FetchedImage) and (fetched.width, fetched.height) == (40, 30)
        assert site.paths() == ["/photo.png", "/photo.png"] and waits_between(site, "/photo.png")[0] >= 0.95


def test_an_image_server_asking_for_an_hour_is_not_waited_for(store):
    with PageServer() as site:
        site.faults["/photo.png"] = deque([(503, {"Retry-After": "3600"})])
        started = time.monotonic()
        refused = fetch_image(store, site.url + "/photo.png")
        assert refused.reason == "the server answered HTTP 503" and not refused.lasting
        assert time.monotonic() - started < 30 and site.paths() == ["/photo.png"]


class Busy(Exception):
    def __init__(self, retry_after: float | None = None):
        super().__init__("busy")
        self.retry_after = retry_after


def test_the_loop_stops_at_its_attempts_and_raises_the_last_failure():
    calls, waits = [], []

    async def call():
        calls.append(time.monotonic())
        raise Busy(0.01 if len(calls) == 2 else None)

    with pytest.raises(Busy):
        asyncio.run(
            with_retries(
                call,
                attempts=3,
                retry_if=lambda e: isinstance(e, Busy),
                wait=backoff(0.02),
                on_wait=lambda seconds, error: waits.append(seconds),
            )
        )
    assert len(calls) == 3 and waits == [0.02, 0.01]  # the second failure's Retry-After wins


def test_a_failure_not_worth_retrying_is_raised_at_once_and_cancellation_is_never_retried():
    calls = []

    async def refused():
        calls.append(1)
        raise ValueError("no")

    with pytest.raises(ValueError):
        asyncio.run(with_retries(refused, attempts=5, retry_if=lambda e: isinstance(e, Busy), wait=backoff(0.01)))
    assert len(calls) == 1

    async def cancelled():
        calls.append(2)
        raise asyncio.CancelledError

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(with_retries(cancelled, attempts=5, retry_if=lambda e: True, wait=backoff(0.01)))
    assert calls.count(2) == 1


def search_once(store, url: str, query: str):
    from workbench.search.backends import SearxngSearch, cached_search

    async def go():
        backend = SearxngSearch(url)
        try:
            return await cached_search(store, backend, query, 5)
        finally:
            await backend.aclose()

    return asyncio.run(go())


def test_a_search_engine_asking_to_wait_is_waited_for_within_reason(store):
    from tests.loopback_search import SearchServer
    from workbench.search.backends import SearchError

    rows = [{"url": "https://news.example.org/a", "title": "Ballots", "content": "Ballots found in a river."}]
    with SearchServer("searxng", results=lambda query: rows) as search:
        search.faults.extend(["429 wait 1", f"503 wait {http_date(3)}"])
        started = time.monotonic()
        found = search_once(store, search.url, "ballots in the river")
        assert [r.title for r in found] == ["Ballots"] and len(search.queries) == 3
        assert time.monotonic() - started >= 1.9  # 1 s asked, then a date 2-3 s ahead (the backoff: 0.5 s, 1 s)
        search.faults.append("503 wait 3600")
        with pytest.raises(SearchError, match="asked to wait 3600 s"):
            search_once(store, search.url, "another query")
        assert len(search.queries) == 4  # not tried again
