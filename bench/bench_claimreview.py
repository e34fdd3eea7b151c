"""Post-cutoff benchmarks from ClaimReview data: fetching, extraction, duplicates.

Run: PYTHONPATH=. python bench/bench_claimreview.py [--part abc]

(a) `articles fetch` of 1,600 pages from loopback sites (their own process) with a fixed 100 ms
    latency, at the default concurrency (16 in all, 2 a site) over 8 sites: pages/s against the ideal
    (16 / 0.1 s = 160/s; robots.txt is read once a site and counted against us). The whole
    path is measured: robots.txt, the per-site limit, streaming, extraction, one commit a
    page. Target >= 0.9 of the ideal.
(b) Extraction of 1,000 saved fact-check pages (`articles fetch --from FOLDER`: indexing the
    folder, trafilatura, one commit a page): pages/s, and the ratio to a bare loop calling
    trafilatura.extract on the same pages in this run.
(c) The duplicate step over 100,000 claims (10% reworded copies, 5% exact copies), read from
    and written to the database: seconds (target < 60 s), and the ratio to exact-text
    grouping of the same claims in this run.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from store import Claim, Dataset, Store  # noqa: E402
from tests.loopback_pages import PageServer, article_html  # noqa: E402
from workbench.labels import JSFACTCHECK  # noqa: E402

WORDS = (
    "bridge council river school ferry harbour mayor budget vaccine flood tax hospital train market water"
    " lead fishing quota lighthouse hotel election ballot photo video post minister crowns million percent"
    " closed opened doubled halved record highest lowest since year month week"
).split()


def paragraphs(seed: int, count: int = 6) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(40)).capitalize() + "." for _ in range(count)]


def make_claims(store: Store, name: str, urls: list[str]) -> None:
    claims = [
        Claim(
            external_id=str(n), text=f"Claim {n} about the {WORDS[n % len(WORDS)]}.", label="Refuted", article_url=url
        )
        for n, url in enumerate(urls)
    ]
    store.datasets.import_claims(Dataset(name=name, source_format="claimreview", label_space=JSFACTCHECK), claims)


def serve_sites(sites: int, pages: int, latency: float, connection) -> None:
    """Loopback sites in their own process (as real servers are: no GIL shared with us)."""
    from contextlib import ExitStack

    with ExitStack() as stack:
        servers = [stack.enter_context(PageServer(latency=latency)) for _ in range(sites)]
        for number, server in enumerate(servers):
            server.robots("User-agent: *\nDisallow: /private/\n")
            for page in range(pages):
                server.page(f"/checks/{page}", article_html(f"Check {number}-{page}", paragraphs(page)))
        connection.send([server.url for server in servers])
        connection.recv()
        connection.send(sum(len(server.arrivals) for server in servers))  # the bare loop's requests too


async def bare_httpx(bases: list[str], per_site_pages: int, per_site: int) -> float:
    """Pages/s of a bare httpx loop: `per_site` workers a site, each GETting its share in turn."""
    import asyncio

    import httpx

    async with httpx.AsyncClient(limits=httpx.Limits(max_connections=len(bases) * per_site + 4)) as client:

        async def worker(base: str, start: int) -> None:
            for page in range(start, per_site_pages, per_site):
                (await client.get(f"{base}/checks/{page}")).raise_for_status()

        started = time.perf_counter()
        await asyncio.gather(*(worker(base, n) for base in bases for n in range(per_site)))
        return len(bases) * per_site_pages / (time.perf_counter() - started)


def bench_fetch(folder: Path, sites: int = 8, per_site_pages: int = 200, latency: float = 0.1) -> None:
    # 1,600 pages, 100 waves of 16: long enough that throughput, not the start, is measured.
    from workbench.articles.fetching import FetchRequest, fetch_articles, plan_fetch
    from workbench.articles.web import FetchSettings

    ours, theirs = multiprocessing.Pipe()
    process = multiprocessing.Process(target=serve_sites, args=(sites, per_site_pages, latency, theirs), daemon=True)
    process.start()
    bases = ours.recv()
    try:
        db_path = folder / "fetch.db"
        store = Store.open(db_path)
        make_claims(store, "fetch", [f"{base}/checks/{page}" for base in bases for page in range(per_site_pages)])
        settings = FetchSettings(allow_private=True)  # the sites are on 127.0.0.1
        import asyncio

        bare = asyncio.run(bare_httpx(bases, per_site_pages, settings.per_site))
        plan = plan_fetch(store, FetchRequest("fetch", settings=settings))
        started, cpu = time.perf_counter(), time.process_time()
        summary = fetch_articles(db_path, plan)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        store.close()
    finally:
        ours.send("stop")
        served = ours.recv()
        process.join(10)
    pages = summary.fetched
    ideal = min(settings.concurrency, sites * settings.per_site) / latency
    print(
        f"(a) fetch: {pages} pages from {sites} loopback sites, {latency * 1000:.0f} ms latency, concurrency"
        f" {settings.concurrency} ({settings.per_site} a site): {pages / seconds:.1f} pages/s; ideal"
        f" {ideal:.0f}/s -> ratio {pages / seconds / ideal:.3f} (target >= 0.9); a bare httpx loop (same sites,"
        f" same limits, no robots.txt, nothing stored) {bare:.1f}/s -> ratio {pages / seconds / bare:.3f};"
        f" {summary.failed} failed;"
        f" {served} requests served (robots.txt included); our CPU per page {cpu / max(pages, 1) * 1000:.2f} ms"
        f" (the steadier figure on a shared machine)"
    )


def bench_extract(folder: Path, count: int = 1000) -> None:
    import trafilatura

    from workbench.articles.fetching import FetchRequest, plan_fetch, read_saved_articles

    pages = folder / "saved"
    pages.mkdir()
    urls = [f"https://agency{n % 20}.example/fact-checks/{n}" for n in range(count)]
    for n, url in enumerate(urls):
        page = article_html(
            f"Fact check {n}", paragraphs(n, 12), nav="Home | Fact checks | About | Donate | Newsletter"
        )
        (pages / f"{n}.html").write_text(
            page.replace("<head>", f'<head><link rel="canonical" href="{url}">'), encoding="utf-8"
        )
    started = time.perf_counter()
    for path in sorted(pages.glob("*.html")):
        trafilatura.extract(path.read_text(encoding="utf-8"), url=None, include_comments=False, include_tables=True)
    bare = time.perf_counter() - started
    db_path = folder / "extract.db"
    store = Store.open(db_path)
    make_claims(store, "saved", urls)
    plan = plan_fetch(store, FetchRequest("saved", sources=[pages]))
    started = time.perf_counter()
    summary = read_saved_articles(store, plan)
    seconds = time.perf_counter() - started
    store.close()
    print(
        f"(b) extraction of {count:,} saved pages (index, trafilatura, one commit a page): {seconds:.1f} s,"
        f" {count / seconds:.0f} pages/s ({summary.fetched:,} fetched); a bare trafilatura.extract loop:"
        f" {bare:.1f} s, {count / bare:.0f} pages/s -> ours/bare time {seconds / bare:.2f}"
    )


def bench_dedup(folder: Path, count: int = 100_000) -> None:
    from workbench.curation.duplicates import normalised
    from workbench.curation.steps import CurationRequest, curate

    rng = random.Random(7)
    texts = []
    for n in range(count):
        roll = rng.random()
        if texts and roll < 0.05:
            texts.append(rng.choice(texts).upper())  # the same claim from another agency
        elif texts and roll < 0.15:
            words = rng.choice(texts).split()
            words.insert(rng.randrange(len(words)), rng.choice(WORDS))  # reworded a little
            texts.append(" ".join(words))
        else:
            texts.append(" ".join(rng.choice(WORDS) for _ in range(rng.randint(12, 22))).capitalize() + f" {n}.")
    db_path = folder / "dedup.db"
    store = Store.open(db_path)
    claims = [
        Claim(external_id=str(n), text=text, label="Refuted", reference_time=f"2025-{n % 12 + 1:02d}-01")
        for n, text in enumerate(texts)
    ]
    store.datasets.import_claims(Dataset(name="dedup", source_format="claimreview", label_space=JSFACTCHECK), claims)
    started = time.perf_counter()
    rows = store.curation.claims(store.datasets.get("dedup").id)
    groups: dict[str, int] = {}
    for row in rows:
        groups.setdefault(normalised(row.text), row.id)
    exact = time.perf_counter() - started
    started = time.perf_counter()
    (outcome,) = curate(store, CurationRequest("dedup", dedup="minhash"))
    seconds = time.perf_counter() - started
    store.close()
    print(
        f"(c) duplicate step over {count:,} claims (read, normalise, MinHash LSH at 0.8, verify, link, flag):"
        f" {seconds:.1f} s (target < 60 s), {outcome.removed:,} flagged as duplicates; exact-text grouping of the"
        f" same rows {exact:.2f} s ({count - len(groups):,} exact copies) -> ratio {seconds / exact:.0f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--part", default="abc")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for part, bench in (("a", bench_fetch), ("b", bench_extract), ("c", bench_dedup)):
            if part in args.part:
                (Path(folder) / part).mkdir()
                bench(Path(folder) / part)


if __name__ == "__main__":
    main()
