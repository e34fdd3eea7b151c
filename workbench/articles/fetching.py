"""`workbench articles fetch`: which addresses to get, and getting them (from the web, or from
saved pages and WARC files), each result stored the moment it exists.

    plan = plan_fetch(store, FetchRequest(dataset="cr"))
    summary = fetch_articles(db_path, plan, on_result=print)

An address already fetched is skipped (unless `refetch`); one that failed is tried again.
Each site has its own workers (as many as it may get requests at once), so a slow or busy
site holds up only itself. The pages' main text is extracted in worker processes, off the
thread that talks to the network; one thread writes the results.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from store import ArticleRecord, FilterError, Store
from workbench.articles.robots import site_of
from workbench.articles.web import FetchSettings
from workbench.errors import WorkbenchError


class FetchError(WorkbenchError, ValueError):
    """A fetch that cannot start; the message says why."""


@dataclass
class FetchRequest:
    dataset: str | None = None
    filter: str = ""
    refetch: bool = False
    sources: list[Path] = field(default_factory=list)
    """--from: saved page folders and WARC files, read instead of the network."""
    settings: FetchSettings = field(default_factory=FetchSettings)


@dataclass
class FetchPlan:
    request: FetchRequest
    urls: list[str]
    """The addresses to get, in turns across sites."""
    claims: int
    with_url: int
    already: int
    """Addresses skipped because their article is fetched already."""


@dataclass
class FetchSummary:
    fetched: int = 0
    failed: int = 0
    causes: Counter = field(default_factory=Counter)
    cancelled: bool = False

    def add(self, record: ArticleRecord) -> None:
        if record.status == "fetched":
            self.fetched += 1
        else:
            self.failed += 1
            self.causes[record.cause or "?"] += 1


def plan_fetch(store: Store, request: FetchRequest) -> FetchPlan:
    """The addresses the request's claims name that still need an article."""
    if request.dataset and store.datasets.get(request.dataset) is None:
        names = ", ".join(d.name for d in store.datasets.list()) or "none; import one first"
        raise FetchError(f"no dataset {request.dataset!r}; datasets: {names}")
    text = (f'dataset:"{request.dataset}" ' if request.dataset else "") + (request.filter or "")
    try:
        claim_ids = store.claims.ids(text)
    except FilterError as error:
        raise FetchError(f"bad filter: {error}") from None
    if not claim_ids:
        raise FetchError("no claims match" + (f" {text.strip()!r}" if text.strip() else ""))
    by_url = store.articles.addresses(claim_ids)
    if not by_url:
        raise FetchError(f"none of the {len(claim_ids):,} claims names an article address (article_url)")
    statuses = {} if request.refetch else store.articles.statuses(list(by_url))
    wanted = [url for url in by_url if statuses.get(url) != "fetched"]
    return FetchPlan(
        request, in_turns(wanted), len(claim_ids), sum(len(ids) for ids in by_url.values()), len(by_url) - len(wanted)
    )


def in_turns(urls: list[str]) -> list[str]:
    """Addresses reordered one site at a time: a, b, c, a, b, c, ..."""
    by_site: dict[str, list[str]] = {}
    for url in urls:
        by_site.setdefault(_site(url), []).append(url)
    queues = list(by_site.values())
    ordered = []
    while queues:
        ordered += [queue.pop(0) for queue in queues]
        queues = [queue for queue in queues if queue]
    return ordered


def _site(url: str) -> str:
    try:
        return site_of(url)
    except ValueError:
        return ""


def fetch_articles(
    db_path: Path,
    plan: FetchPlan,
    on_result: Callable[[ArticleRecord], None] | None = None,
    cancel: threading.Event | None = None,
) -> FetchSummary:
    """Get every planned address; results are stored as they come (one transaction each)."""
    cancel = cancel or threading.Event()
    on_result = on_result or (lambda record: None)
    if plan.request.sources:
        return _from_saved(db_path, plan, on_result, cancel)
    return asyncio.run(_from_web(db_path, plan, on_result, cancel))


def _from_saved(db_path: Path, plan: FetchPlan, on_result, cancel: threading.Event) -> FetchSummary:
    store = Store.open(db_path)
    try:
        return read_saved_articles(store, plan, on_result, cancel)
    finally:
        store.close()


def read_saved_articles(
    store: Store, plan: FetchPlan, on_result=None, cancel: threading.Event | None = None
) -> FetchSummary:
    """The planned addresses' articles from saved pages and WARC files (plan.request.sources)."""
    from workbench.articles.pages import article_record, failed
    from workbench.articles.saved import page_body, read_saved

    saved = read_saved(plan.request.sources)  # every file read through first: a damaged one stops here
    names = ", ".join(str(path) for path in plan.request.sources)
    summary = FetchSummary()
    for url in plan.urls:
        if cancel is not None and cancel.is_set():
            summary.cancelled = True
            break
        page = saved.find(url)
        if page is None:
            record = failed(url, f"saved:{names}", "not saved", "no saved page or WARC record has this address")
        else:
            record = article_record(url, page_body(page), page.source, plan.request.settings.max_bytes)
        store.articles.save(record)
        summary.add(record)
        if on_result is not None:
            on_result(record)
    return summary


class _Writer:
    """The one thread that writes results (its own database connection)."""

    def __init__(self, db_path: Path, on_result, summary: FetchSummary):
        self.on_result, self.summary = on_result, summary
        self._local = threading.local()
        self.pool = ThreadPoolExecutor(
            1,
            thread_name_prefix="articles-writer",
            initializer=lambda: setattr(self._local, "store", Store.open(db_path)),
        )

    def store(self, record: ArticleRecord) -> None:
        self._local.store.articles.save(record)
        self.summary.add(record)
        self.on_result(record)

    def close(self) -> None:
        self.pool.submit(lambda: self._local.store.close()).result()
        self.pool.shutdown()


class _Extractor:
    """Main text extraction in worker processes: trafilatura is CPU work (tens of ms for a big
    page), which would hold the network thread up; where processes cannot start, a thread."""

    def __init__(self, processes: int):
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        if processes < 1:  # a handful of pages: not worth starting processes for
            self.pool = ThreadPoolExecutor(1, thread_name_prefix="articles-extract")
            return
        try:
            self.pool = ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn"))
            for _ in range(processes):  # start them now: they import trafilatura while the first pages come
                self.pool.submit(_warm_up)
        except (OSError, ValueError, NotImplementedError):
            self.pool = ThreadPoolExecutor(1, thread_name_prefix="articles-extract")

    async def record(self, url: str, outcome, max_bytes: int) -> ArticleRecord:
        from concurrent.futures.process import BrokenProcessPool

        from workbench.articles.pages import article_record
        from workbench.articles.web import SOURCE

        if isinstance(outcome, ArticleRecord):
            return outcome
        page, attempts = outcome
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self.pool, article_record, url, page, SOURCE, max_bytes, attempts)
        except (BrokenProcessPool, OSError):  # a sandbox that kills or forbids the workers: do it here
            self.pool = ThreadPoolExecutor(1, thread_name_prefix="articles-extract")
            return await loop.run_in_executor(self.pool, article_record, url, page, SOURCE, max_bytes, attempts)

    def close(self) -> None:
        # Nothing is left to extract; the workers exit on their own, without being waited for.
        self.pool.shutdown(wait=False, cancel_futures=True)


BACKLOG_BYTES = 256 * 1024 * 1024
"""Fetched pages waiting to be extracted and stored, in bytes at most; past that, fetching
waits (a slow extractor or disk delays storing, not fetching, within this much memory)."""


class _Backlog:
    """Bytes of pages handed on but not stored yet; `take` waits while there are too many."""

    def __init__(self, limit: int):
        self.limit, self.held = limit, 0
        self.freed = asyncio.Condition()

    async def take(self, size: int) -> None:
        async with self.freed:
            await self.freed.wait_for(lambda: self.held == 0 or self.held + size <= self.limit)
            self.held += size

    async def give(self, size: int) -> None:
        async with self.freed:
            self.held -= size
            self.freed.notify_all()


def _warm_up() -> None:
    import trafilatura  # noqa: F401


PROCESSES_FROM = 32
"""Pages to fetch from which extraction gets worker processes (fewer: a thread)."""


def extract_processes(pages: int) -> int:
    """Leave a core to the network thread and the writer; none for a handful of pages."""
    return max(1, (os.cpu_count() or 2) - 1) if pages >= PROCESSES_FROM else 0


async def _from_web(db_path: Path, plan: FetchPlan, on_result, cancel: threading.Event) -> FetchSummary:
    """`per_site` workers for each site, each taking that site's next address; the fetcher's
    own limit keeps `concurrency` requests in flight in all. Workers hand each page on (to be
    extracted in another process, then stored by the writer thread) and go on fetching:
    only BACKLOG_BYTES of pages waiting make them wait."""
    from workbench.articles.web import WebFetcher

    settings = plan.request.settings
    summary = FetchSummary()
    writer = _Writer(db_path, on_result, summary)
    loop = asyncio.get_running_loop()
    # Worker processes start off the network thread (spawning blocks for a while).
    starting = loop.run_in_executor(None, _Extractor, extract_processes(len(plan.urls)))
    fetcher = WebFetcher(settings)
    backlog, finishing = _Backlog(BACKLOG_BYTES), []
    by_site: dict[str, list[str]] = {}
    for url in plan.urls:
        by_site.setdefault(_site(url), []).append(url)

    async def finish(url: str, outcome, size: int) -> None:
        try:
            record = await (await starting).record(url, outcome, settings.max_bytes)
            await loop.run_in_executor(writer.pool, writer.store, record)
        finally:
            await backlog.give(size)

    async def work(queue: list[str]) -> None:
        while queue:
            url = queue.pop(0)
            outcome = await fetcher.fetch(url)
            size = 0 if isinstance(outcome, ArticleRecord) else len(outcome[0].body)
            await backlog.take(size)
            finishing.append(asyncio.create_task(finish(url, outcome, size)))

    workers = [
        asyncio.create_task(work(queue))
        for queue in by_site.values()
        for _ in range(min(settings.per_site, len(queue)))
    ]
    watcher = asyncio.create_task(_watch(cancel, workers))
    try:
        await asyncio.gather(*workers, return_exceptions=True)
        done = await asyncio.gather(*finishing, return_exceptions=True)  # everything fetched is stored
    finally:
        watcher.cancel()
        await fetcher.close()
        await loop.run_in_executor(None, writer.close)
        (await starting).close()
    summary.cancelled = cancel.is_set()
    for failure in [t.exception() for t in workers if not t.cancelled()] + list(done):
        if isinstance(failure, BaseException) and not isinstance(failure, asyncio.CancelledError):
            raise failure
    return summary


async def _watch(cancel: threading.Event, workers: list[asyncio.Task]) -> None:
    while not cancel.is_set():
        await asyncio.sleep(0.05)
    for task in workers:
        task.cancel()


__all__ = [
    "FetchError",
    "FetchPlan",
    "FetchRequest",
    "FetchSummary",
    "fetch_articles",
    "in_turns",
    "plan_fetch",
    "read_saved_articles",
]
