"""Reading what the web sends as a browser or crawler would: robots.txt as RFC 9309 says
(protego) and a page's text encoding as browsers find it (w3lib), both through the article
fetcher against a real server on 127.0.0.1 and through the functions it uses."""

from __future__ import annotations

import pytest

from tests.article_fetching import PARAGRAPHS, article, claims_for, fetch
from tests.loopback_pages import PageServer, Route, article_html
from workbench.articles.html import decode_html
from workbench.articles.pages import main_text
from workbench.articles.robots import rules_from

AGENT = "factcheck-workbench"


def allowed(robots: str, path: str, agent: str = AGENT) -> bool:
    return rules_from(200, robots.encode(), agent).allows("http://site.example" + path, agent)


@pytest.mark.parametrize(
    "robots, path, expected",
    [
        # The longest matching rule wins, whatever its order.
        ("User-agent: *\nDisallow: /\nAllow: /news/\n", "/news/story.html", True),
        ("User-agent: *\nDisallow: /\nAllow: /news/\n", "/about.html", False),
        ("User-agent: *\nAllow: /news/\nDisallow: /news/drafts/\n", "/news/drafts/a.html", False),
        # * matches any run of characters, $ the end of the path.
        ("User-agent: *\nDisallow: /*.pdf$\n", "/a.pdf", False),
        ("User-agent: *\nDisallow: /*.pdf$\n", "/reports/2025/a.pdf", False),
        ("User-agent: *\nDisallow: /*.pdf$\n", "/a.pdf?x=1", True),
        ("User-agent: *\nDisallow: /*.pdf$\n", "/a.pdf.html", True),
        ("User-agent: *\nDisallow: /*/print\n", "/checks/9/print", False),
        # The group naming our product token replaces the * group; other robots' groups do not apply.
        ("User-agent: *\nDisallow: /\n\nUser-agent: factcheck-workbench\nAllow: /\n", "/x", True),
        ("User-agent: otherbot\nDisallow: /\n", "/x", True),
        ("User-agent: otherbot\nUser-agent: factcheck-workbench\nDisallow: /private\n", "/private/a", False),
    ],
)
def test_robots_txt_rules_as_rfc_9309_reads_them(robots, path, expected):
    assert allowed(robots, path) is expected


def test_the_fetcher_obeys_longest_match_and_end_anchors(store, db_path, tmp_path):
    with PageServer() as site:
        site.robots("User-agent: *\nDisallow: /\nAllow: /news/\nDisallow: /*.html$\n")
        for path in ("/news/story", "/news/story.html", "/other"):
            site.page(path, article_html("A check", PARAGRAPHS))
        urls = {"a": site.url + "/news/story", "b": site.url + "/news/story.html", "c": site.url + "/other"}
        claims_for(store, tmp_path, urls)
        fetch(db_path, store)
        causes = {key: article(store, url).cause for key, url in urls.items()}
    assert causes == {"a": None, "b": "robots.txt", "c": "robots.txt"}
    assert site.paths().count("/news/story") == 1 and "/other" not in site.paths()


CHECK = "Die Brücke kostete 40 Millionen Kronen – nicht 90 Millionen, sagt der Rat."


def page(meta: str = "", body: str = CHECK) -> str:
    return f"<html><head>{meta}<title>Prüfung</title></head><body><article><p>{body}</p></article></body></html>"


@pytest.mark.parametrize(
    "data, content_type",
    [
        # A byte-order mark beats a wrong <meta> charset (and a wrong header).
        (b"\xef\xbb\xbf" + page('<meta charset="iso-8859-1">').encode("utf-8"), None),
        (b"\xef\xbb\xbf" + page().encode("utf-8"), "text/html; charset=iso-8859-1"),
        # UTF-16 pages with their BOM, either byte order.
        (page('<meta charset="utf-16">').encode("utf-16"), None),
        ("\ufeff".encode("utf-16-be") + page().encode("utf-16-be"), "text/html"),
        # The HTTP header's charset wins over the page's <meta>.
        (page('<meta charset="utf-8">').encode("cp1252"), "text/html; charset=windows-1252"),
        # A <meta> charset, in either spelling, for a legacy encoding.
        (page('<meta charset="windows-1252">').encode("cp1252"), "text/html"),
        (page('<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">').encode("cp1252"), None),
        # Nothing declared: UTF-8 when the bytes are, else Windows-1252.
        (page().encode("utf-8"), None),
        (page().encode("cp1252"), None),
    ],
)
def test_a_page_is_decoded_as_a_browser_would(data, content_type):
    text = decode_html(data, content_type)
    assert CHECK in text and "Prüfung" in text and "\ufeff" not in text


def test_a_japanese_page_in_shift_jis_with_a_meta_tag():
    words = "東京都の発表によると、橋の建設費は四十億円だった。"
    html = (
        f'<html><head><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"><title>検証</title>'
        f"</head><body><p>{words}</p></body></html>"
    )
    text = decode_html(html.encode("shift_jis"))
    assert words in text and "検証" in text


def test_the_title_and_main_text_come_out_whole_whatever_the_encoding():
    body = " ".join([CHECK] * 4)
    for data, content_type in (
        (page('<meta charset="utf-16">', body).encode("utf-16"), None),
        (page('<meta charset="utf-8">', body).encode("cp1252"), "text/html; charset=cp1252"),
    ):
        title, text = main_text(data, "http://site.example/a", content_type)
        assert title == "Prüfung" and CHECK in text


def test_fetched_pages_in_utf16_and_with_a_bom_are_stored_readable(store, db_path, tmp_path):
    paragraphs = [
        CHECK,
        "Der Rat legte die Ausschreibung vor und bestätigte die Zahl am Dienstag.",
        "Die Zahl 90 Millionen stammt aus einem Beitrag, der die Kosten zweier Brücken verdoppelte.",
    ]
    html = article_html("Prüfung", paragraphs).replace('<meta charset="utf-8">', '<meta charset="iso-8859-1">')
    with PageServer() as site:
        site.routes["/bom"] = Route(200, b"\xef\xbb\xbf" + html.encode("utf-8"), {"Content-Type": "text/html"})
        site.routes["/utf16"] = Route(200, html.encode("utf-16"), {"Content-Type": "text/html"})
        urls = {"bom": site.url + "/bom", "utf16": site.url + "/utf16"}
        claims_for(store, tmp_path, urls)
        fetch(db_path, store)
    for url in urls.values():
        found = article(store, url)
        assert found.status == "fetched", found.detail
        assert found.title == "Prüfung" and CHECK in found.text and "Ã" not in found.text
