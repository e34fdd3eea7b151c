"""`articles fetch --from FOLDER|WARC`: saved pages and crawls matched by address give the same
articles as the web, without a network; a WARC with a record cut short stops the fetch with
the file, the byte offset and the address, and nothing is stored."""

from __future__ import annotations

import gzip
import io

import pytest
from click.testing import CliRunner

from tests.claimreview_files import claim_review, write_json
from tests.loopback_pages import PageServer, article_html
from workbench.articles.fetching import FetchRequest, fetch_articles, plan_fetch
from workbench.articles.saved import SavedPagesError
from workbench.articles.web import FetchSettings
from workbench.cli import main
from workbench.importers import ImportRequest, run_import

PARAGRAPHS = [
    "The council's budget papers put the bridge at 40 million crowns, not 90 million.",
    "A spokesperson for the council confirmed the figure on Tuesday and shared the tender documents.",
]


def claims_for(store, tmp_path, urls: list[str]) -> None:
    reviews = [claim_review(f"Claim {n}.", "False", url) for n, url in enumerate(urls)]
    run_import(store, ImportRequest(write_json(tmp_path / "cr.json", reviews)))


def from_saved(db_path, store, *sources):
    plan = plan_fetch(store, FetchRequest("cr", sources=list(sources)))
    return fetch_articles(db_path, plan)


def with_head(html: str, head: str) -> str:
    return html.replace("<head>", "<head>" + head, 1)


def test_a_folder_of_saved_pages_is_matched_by_address(store, db_path, tmp_path):
    folder = tmp_path / "saved"
    (folder / "harbourtruth.example" / "checks" / "mirror").mkdir(parents=True)
    page = article_html("A check", PARAGRAPHS)
    (folder / "canonical.html").write_text(
        with_head(page, '<link rel="canonical" href="https://www.harbourtruth.example/checks/one/">')
    )
    (folder / "browser.htm").write_text(
        "<!-- saved from url=(0042)https://harbourtruth.example/checks/two -->\n" + page
    )
    (folder / "listed.html").write_text(page)
    (folder / "urls.tsv").write_text("https://harbourtruth.example/checks/three?utm_source=x\tlisted.html\n")
    (folder / "harbourtruth.example" / "checks" / "mirror" / "index.html").write_text(page)
    (folder / "other.html").write_text(with_head(page, '<meta property="og:url" content="https://else.example/x">'))
    urls = [
        "https://harbourtruth.example/checks/one",
        "http://harbourtruth.example/checks/two#top",
        "https://harbourtruth.example/checks/three",
        "https://harbourtruth.example/checks/mirror/",
        "https://harbourtruth.example/checks/four",
    ]
    claims_for(store, tmp_path, urls)
    summary = from_saved(db_path, store, folder)
    assert (summary.fetched, summary.failed, dict(summary.causes)) == (4, 1, {"not saved": 1})
    for url in urls[:4]:
        found = store.articles.get(url)
        assert found.status == "fetched" and "40 million crowns" in found.text
        assert found.source.startswith("saved:") and found.http_status == 200
    assert store.articles.get(urls[1]).source == f"saved:{folder / 'browser.htm'}"


def test_saved_pages_give_the_same_article_as_the_web(tmp_path):
    from store import Store

    page = article_html("No, the bridge did not cost 90 million", PARAGRAPHS)
    texts = {}
    with PageServer() as site:
        site.page("/checks/bridge", page)
        for where in ("web", "saved"):
            db = tmp_path / f"{where}.db"
            store = Store.open(db)
            (tmp_path / where).mkdir()
            claims_for(store, tmp_path / where, [site.url + "/checks/bridge"])
            if where == "web":
                settings = FetchSettings(backoff=0.01, allow_private=True)  # the site is on 127.0.0.1
                fetch_articles(db, plan_fetch(store, FetchRequest("cr", settings=settings)))
            else:
                saved = tmp_path / "page.html"
                saved.write_text(with_head(page, f'<link rel="canonical" href="{site.url}/checks/bridge">'))
                from_saved(db, store, saved)
            found = store.articles.get(site.url + "/checks/bridge")
            texts[where] = (found.status, found.title, found.text)
            store.close()
    assert texts["web"] == texts["saved"] and texts["web"][0] == "fetched"


def warc_bytes(records: list[tuple[str, str, int, dict, bytes]], compress: bool) -> bytes:
    """(kind, address, status, headers, body) records written with warcio."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=compress)
    for kind, url, status, headers, body in records:
        if kind == "response":
            http = StatusAndHeaders(f"{status} X", list(headers.items()), protocol="HTTP/1.1")
            record = writer.create_warc_record(
                url, "response", payload=io.BytesIO(body), length=len(body), http_headers=http
            )
        else:
            record = writer.create_warc_record(
                url, kind, payload=io.BytesIO(body), length=len(body), warc_content_type=headers.get("Content-Type")
            )
        writer.write_record(record)
    return buffer.getvalue()


CRAWL = [
    ("request", "https://harbourtruth.example/a", 0, {}, b"GET /a HTTP/1.1\r\n\r\n"),
    (
        "response",
        "https://harbourtruth.example/a",
        200,
        {"Content-Type": "text/html; charset=utf-8"},
        article_html("A", PARAGRAPHS).encode(),
    ),
    ("response", "https://harbourtruth.example/old-b", 301, {"Location": "/b"}, b""),
    (
        "response",
        "https://harbourtruth.example/b",
        200,
        {"Content-Type": "text/html"},
        article_html("B", PARAGRAPHS).encode(),
    ),
    ("response", "https://harbourtruth.example/c", 404, {"Content-Type": "text/html"}, b"<html>gone</html>"),
    (
        "resource",
        "https://harbourtruth.example/d",
        0,
        {"Content-Type": "text/html"},
        article_html("D", PARAGRAPHS).encode(),
    ),
    ("response", "https://harbourtruth.example/e.pdf", 200, {"Content-Type": "application/pdf"}, b"%PDF-1.7"),
]
CRAWLED = [
    "https://harbourtruth.example/a",
    "https://harbourtruth.example/old-b",
    "https://harbourtruth.example/c",
    "https://harbourtruth.example/d",
    "https://harbourtruth.example/e.pdf",
]


@pytest.mark.parametrize("compress", [True, False])
def test_a_warc_file(store, db_path, tmp_path, compress):
    crawl = tmp_path / ("crawl.warc.gz" if compress else "crawl.warc")
    crawl.write_bytes(warc_bytes(CRAWL, compress))
    claims_for(store, tmp_path, CRAWLED)
    summary = from_saved(db_path, store, crawl)
    found = {url.rsplit("/", 1)[-1]: store.articles.get(url) for url in CRAWLED}
    assert {key: (r.status, r.cause) for key, r in found.items()} == {
        "a": ("fetched", None),
        "old-b": ("fetched", None),
        "c": ("failed", "http 404"),
        "d": ("fetched", None),
        "e.pdf": ("failed", "not HTML"),
    }
    assert found["old-b"].final_url == "https://harbourtruth.example/b" and found["old-b"].title == "B"
    assert found["a"].source.startswith(f"warc:{crawl}@")
    assert summary.fetched == 3


@pytest.mark.parametrize("compress", [True, False])
def test_a_warc_with_a_record_cut_short_stores_nothing(store, db_path, tmp_path, compress):
    data = warc_bytes(CRAWL, compress)
    crawl = tmp_path / ("cut.warc.gz" if compress else "cut.warc")
    crawl.write_bytes(data[: len(data) - 200])
    claims_for(store, tmp_path, CRAWLED)
    with pytest.raises(SavedPagesError) as error:
        from_saved(db_path, store, crawl)
    assert f"{crawl}: the WARC record at byte" in str(error.value) and "nothing was stored" in str(error.value)
    assert store.articles.counts(store.claims.ids("")).missing == len(CRAWLED)
    result = CliRunner().invoke(
        main, ["--db", str(db_path), "articles", "fetch", "--dataset", "cr", "--from", str(crawl)]
    )
    assert result.exit_code == 1 and "is damaged or cut short" in result.output


def test_a_folder_may_hold_warc_files_and_a_gzipped_page(store, db_path, tmp_path):
    folder = tmp_path / "crawl"
    folder.mkdir()
    (folder / "part.warc.gz").write_bytes(warc_bytes(CRAWL[:2], True))
    page = with_head(article_html("Z", PARAGRAPHS), '<link rel="canonical" href="https://harbourtruth.example/z">')
    (folder / "z.html.gz").write_bytes(gzip.compress(page.encode()))
    claims_for(store, tmp_path, ["https://harbourtruth.example/a", "https://harbourtruth.example/z"])
    summary = from_saved(db_path, store, folder)
    assert summary.fetched == 2
