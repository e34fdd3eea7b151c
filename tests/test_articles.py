"""Fetching oracle articles against real HTTP servers on 127.0.0.1: main text extracted and
stored with its provenance, every failure stored with its cause (404, 500, 429 with
Retry-After, endless redirects, binary files, 50 MB pages, robots.txt, timeouts), politeness
kept (per-site limit, User-Agent), re-runs fetch only what is missing or failed."""

from __future__ import annotations

import json
from collections import deque

from click.testing import CliRunner

from tests.article_fetching import FAST, PARAGRAPHS, article, claims_for, fetch
from tests.loopback_pages import PageServer, Route, article_html
from workbench.articles.fetching import FetchRequest, fetch_articles, plan_fetch
from workbench.articles.web import FetchSettings
from workbench.cli import main


def test_articles_are_fetched_with_their_main_text_and_provenance(store, db_path, tmp_path):
    with PageServer() as site:
        site.page("/checks/bridge", article_html("No, the bridge did not cost 90 million", PARAGRAPHS))
        site.redirect("/old/bridge", "/checks/bridge")
        claims_for(store, tmp_path, {"a": site.url + "/checks/bridge", "b": site.url + "/old/bridge"})
        plan, summary = fetch(db_path, store)
        assert (len(plan.urls), summary.fetched, summary.failed) == (2, 2, 0)
        found = article(store, site.url + "/old/bridge")
        assert found.status == "fetched" and found.http_status == 200 and found.source == "web"
        assert found.final_url == site.url + "/checks/bridge"
        assert found.title == "No, the bridge did not cost 90 million"
        assert "40 million crowns, not 90 million" in found.text and "tender documents" in found.text
        assert "Subscribe to our newsletter" not in found.text and "Donate" not in found.text
        assert len(found.html_sha256) == 64 and found.html_bytes > 300 and found.fetched_at
        assert all("factcheck-workbench/" in headers["user-agent"] for _, _, headers in site.arrivals)
        assert store.articles.text_for_claim(store.claims.resolve(f"cr:{site.url}/checks/bridge")) == found.text


def test_every_failure_is_stored_with_its_cause(store, db_path, tmp_path):
    with PageServer() as site:
        site.page("/ok", article_html("A check", PARAGRAPHS))
        site.routes["/gone"] = Route(404, b"<html>gone</html>", {"Content-Type": "text/html"})
        site.faults["/broken"] = deque([(500, {})] * 3)
        site.redirect("/loop-a", "/loop-b")
        site.redirect("/loop-b", "/loop-a")
        site.routes["/report.pdf"] = Route(200, b"%PDF-1.7 binary", {"Content-Type": "application/pdf"})
        site.routes["/empty"] = Route(
            200, b"<html><body><script>var a;</script></body></html>", {"Content-Type": "text/html"}
        )
        urls = {name: f"{site.url}/{name}" for name in ("ok", "gone", "broken", "loop-a", "report.pdf", "empty")}
        urls["ftp"] = "http://bad host.example/x"
        claims_for(store, tmp_path, urls)
        _, summary = fetch(db_path, store, attempts=3)
        causes = {key: (article(store, url).cause, article(store, url).status) for key, url in urls.items()}
        assert causes == {
            "ok": (None, "fetched"),
            "gone": ("http 404", "failed"),
            "broken": ("http 500", "failed"),
            "loop-a": ("too many redirects", "failed"),
            "report.pdf": ("not HTML", "failed"),
            "empty": ("no text", "failed"),
            "ftp": ("bad URL", "failed"),
        }
        assert article(store, urls["broken"]).attempts == 3 and site.paths().count("/broken") == 3
        assert article(store, urls["gone"]).http_status == 404 and site.paths().count("/gone") == 1  # not retried
        assert "application/pdf" in article(store, urls["report.pdf"]).detail
        assert summary.causes["http 404"] == 1 and summary.fetched == 1


def test_a_429_with_retry_after_is_waited_for(store, db_path, tmp_path):
    with PageServer() as site:
        site.page("/busy", article_html("A check", PARAGRAPHS))
        site.faults["/busy"] = deque([(429, {"Retry-After": "1"})])
        site.faults["/never"] = deque([(429, {"Retry-After": "3600"})])
        claims_for(store, tmp_path, {"busy": site.url + "/busy", "never": site.url + "/never"})
        fetch(db_path, store)
        assert article(store, site.url + "/busy").status == "fetched"
        times = [at for at, path, _ in site.arrivals if path == "/busy"]
        assert len(times) == 2 and times[1] - times[0] >= 0.95  # it waited as asked, not the short backoff
        never = article(store, site.url + "/never")
        assert (never.cause, never.http_status) == ("http 429", 429)
        assert "asked to wait 3600 s" in never.detail and site.paths().count("/never") == 1


def test_huge_pages_are_refused_as_they_stream(store, db_path, tmp_path):
    with PageServer() as site:
        site.routes["/declared"] = Route(
            200, headers={"Content-Type": "text/html"}, stream_bytes=50 << 20, declare=True
        )
        site.routes["/streamed"] = Route(200, headers={"Content-Type": "text/html"}, stream_bytes=50 << 20)
        claims_for(store, tmp_path, {"d": site.url + "/declared", "s": site.url + "/streamed"})
        fetch(db_path, store, max_bytes=2 << 20)
        declared, streamed = article(store, site.url + "/declared"), article(store, site.url + "/streamed")
        assert (declared.cause, streamed.cause) == ("too big", "too big")
        assert "52,428,800 bytes declared" in declared.detail and "stopped reading" in streamed.detail
        assert site.sent.get("/streamed", 0) < 20 << 20  # the fetcher hung up long before 50 MB


def test_robots_txt_is_obeyed(store, db_path, tmp_path):
    with PageServer() as site:
        site.robots("User-agent: *\nDisallow: /private/\n\nUser-agent: factcheck-workbench\nDisallow: /ours/\n")
        for path in ("/private/a", "/ours/b", "/public/c"):
            site.page(path, article_html("A check", PARAGRAPHS))
        claims_for(
            store,
            tmp_path,
            {key: site.url + path for key, path in (("a", "/private/a"), ("b", "/ours/b"), ("c", "/public/c"))},
        )
        fetch(db_path, store)
        assert article(store, site.url + "/ours/b").cause == "robots.txt"
        assert "robots.txt does not allow factcheck-workbench" in article(store, site.url + "/ours/b").detail
        # The group for our token replaces the * group (RFC 9309): /private/ is allowed to us.
        assert article(store, site.url + "/public/c").status == "fetched"
        assert "/ours/b" not in site.paths() and site.paths().count("/robots.txt") == 1


def test_a_robots_txt_that_cannot_be_read_forbids_until_it_can(store, db_path, tmp_path):
    with PageServer() as site:
        site.robots("oops", status=503)
        site.page("/a", article_html("A check", PARAGRAPHS))
        claims_for(store, tmp_path, {"a": site.url + "/a"})
        fetch(db_path, store)
        assert article(store, site.url + "/a").cause == "robots.txt" and "/a" not in site.paths()
        assert "answered 503" in article(store, site.url + "/a").detail
        site.robots("", status=404)  # unavailable: everything allowed
        fetch(db_path, store)
        assert article(store, site.url + "/a").status == "fetched"


def test_a_slow_page_times_out(store, db_path, tmp_path):
    with PageServer() as site:
        site.routes["/slow"] = Route(
            200, article_html("A", PARAGRAPHS).encode(), {"Content-Type": "text/html"}, sleep=2.0
        )
        claims_for(store, tmp_path, {"a": site.url + "/slow"})
        fetch(db_path, store, timeout=0.3, attempts=1)
        assert article(store, site.url + "/slow").cause == "timeout"


def test_at_most_per_site_requests_at_once(store, db_path, tmp_path):
    with PageServer(latency=0.15) as site, PageServer(latency=0.15) as other:
        urls = {}
        for n in range(8):
            for server, key in ((site, "s"), (other, "o")):
                server.page(f"/c{n}", article_html(f"Check {n}", PARAGRAPHS))
                urls[f"{key}{n}"] = f"{server.url}/c{n}"
        claims_for(store, tmp_path, urls)
        _, summary = fetch(db_path, store, concurrency=16, per_site=2)
        assert summary.fetched == 16
        assert site.most_at_once == 2 and other.most_at_once == 2


def test_many_pages_are_extracted_in_worker_processes(store, db_path, tmp_path):
    from workbench.articles.fetching import PROCESSES_FROM

    with PageServer() as site:
        count = PROCESSES_FROM + 4
        for n in range(count):
            site.page(f"/c{n}", article_html(f"Check {n}", [f"Paragraph {n} of the check."] + PARAGRAPHS))
        claims_for(store, tmp_path, {str(n): f"{site.url}/c{n}" for n in range(count)})
        _, summary = fetch(db_path, store, per_site=4)
        assert summary.fetched == count
        assert "Paragraph 7 of the check." in article(store, site.url + "/c7").text


def test_a_second_fetch_asks_only_for_what_is_missing_or_failed(store, db_path, tmp_path):
    with PageServer() as site:
        site.page("/a", article_html("A", PARAGRAPHS))
        site.faults["/b"] = deque([(500, {})])
        site.page("/b", article_html("B", PARAGRAPHS))
        claims_for(store, tmp_path, {"a": site.url + "/a", "b": site.url + "/b"})
        fetch(db_path, store, attempts=1)
        assert article(store, site.url + "/b").status == "failed"
        plan, summary = fetch(db_path, store, attempts=1)
        assert (plan.urls, plan.already, summary.fetched) == ([site.url + "/b"], 1, 1)
        assert site.paths().count("/a") == 1
        # Fetching again on purpose, while the site is down, keeps the text already fetched.
        site.faults["/a"] = deque([(500, {})])
        request = FetchRequest("cr", refetch=True, settings=FetchSettings(attempts=1, **FAST))
        fetch_articles(db_path, plan_fetch(store, request))
        assert article(store, site.url + "/a").status == "fetched"


def test_wayback_addresses_are_asked_for_the_page_as_saved(store, db_path, tmp_path):
    with PageServer() as archive:
        archive.page(
            "/web/20251002000000id_/https://harbourtruth.example/checks/x", article_html("Archived check", PARAGRAPHS)
        )
        # As the Wayback Machine does: the nearest snapshot, in the form asked for.
        archive.redirect(
            "/web/2025id_/https://harbourtruth.example/checks/x",
            "/web/20251002000000id_/https://harbourtruth.example/checks/x",
            302,
        )
        url = archive.url + "/web/2025/https://harbourtruth.example/checks/x"
        claims_for(store, tmp_path, {"a": url})
        fetch(db_path, store, archive_hosts=(archive.netloc,))
        found = article(store, url)
        assert found.status == "fetched" and "40 million crowns" in found.text
        assert archive.paths()[1:] == [
            "/web/2025id_/https://harbourtruth.example/checks/x",
            "/web/20251002000000id_/https://harbourtruth.example/checks/x",
        ]


def test_stopping_keeps_what_finished(store, db_path, tmp_path):
    import threading

    with PageServer(latency=0.3) as site:
        for n in range(6):
            site.page(f"/c{n}", article_html(f"Check {n}", PARAGRAPHS))
        claims_for(store, tmp_path, {str(n): f"{site.url}/c{n}" for n in range(6)})
        cancel = threading.Event()
        site.on_arrival = lambda path: cancel.set() if path == "/c2" else None  # stopped while c2 is in flight
        plan = plan_fetch(store, FetchRequest("cr", settings=FetchSettings(concurrency=1, per_site=1, **FAST)))
        summary = fetch_articles(db_path, plan, cancel=cancel)
        assert summary.cancelled and summary.fetched == 2
        assert store.articles.counts(store.claims.ids("dataset:cr")).fetched == 2
        assert "/c3" not in site.paths()


def cli(db_path, *args):
    return CliRunner().invoke(main, ["--db", str(db_path), *map(str, args)], terminal_width=120)


def test_the_articles_commands(store, db_path, tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_SEARCH_FETCH_PRIVATE", "true")  # the site is on 127.0.0.1
    with PageServer() as site:
        site.page("/a", article_html("[bold]A \x1b[31mcheck", PARAGRAPHS))
        site.routes["/gone"] = Route(404, b"gone", {"Content-Type": "text/html"})
        claims_for(store, tmp_path, {"a": site.url + "/a", "gone": site.url + "/gone"})
        result = cli(db_path, "articles", "fetch", "--dataset", "cr")
        assert result.exit_code == 1, result.output  # not every article was got
        assert "2 article addresses to get from the web" in result.output
        assert "1 fetched, 1 failed (http 404 1)" in result.output
        status = cli(db_path, "articles", "status", "--dataset", "cr")
        assert "1 fetched, 1 failed, 0 not tried yet" in status.output and "http 404" in status.output
        shown = cli(db_path, "articles", "show", f"cr:{site.url}/a")
        assert "title: [bold]A \\x1b[31mcheck" in shown.output and "\x1b[31m" not in shown.output
        data = json.loads(cli(db_path, "articles", "status", "--dataset", "cr", "--json").output)
        assert data["fetched"] == 1 and data["causes"] == {"http 404": 1}
        again = cli(db_path, "articles", "fetch", "--dataset", "nope")
        assert again.exit_code == 1 and "no dataset 'nope'" in again.output


def test_a_datasets_article_counts_in_one_read_agree_with_the_claims(store, db_path, tmp_path):
    with PageServer() as site:
        site.page("/a", article_html("A", PARAGRAPHS))
        site.routes["/gone"] = Route(404, b"gone", {"Content-Type": "text/html"})
        claims_for(
            store,
            tmp_path,
            {"a": site.url + "/a", "a2": site.url + "/a", "gone": site.url + "/gone", "later": site.url + "/later"},
        )
        request = FetchRequest("cr", filter="-ext:" + site.url + "/later", settings=FetchSettings(**FAST))
        fetch_articles(db_path, plan_fetch(store, request))
    dataset = store.datasets.get("cr")
    whole, listed = store.articles.dataset_counts(dataset.id), store.articles.counts(store.claims.ids("dataset:cr"))
    assert whole.__dict__ == listed.__dict__
    assert (whole.claims, whole.fetched, whole.failed, whole.missing, whole.causes) == (4, 2, 1, 1, {"http 404": 1})
