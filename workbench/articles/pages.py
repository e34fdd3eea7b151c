"""From a page's bytes to a stored article: the checks every page passes, wherever it came
from (the web, a saved folder, a WARC file), then the main text.

    record = article_record(url, Page(final_url, 200, "text/html", body), "web", limits)

A page is refused, with its cause, when its status is an error ("http 404"), it is not
HTML ("not HTML": a PDF, an image, a binary download), it is bigger than the limit ("too
big"), or the extractor finds no main text in it ("no text").
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from store import ArticleRecord

HTML_TYPES = ("text/html", "application/xhtml+xml")
DEFAULT_MAX_BYTES = 10 * 1024 * 1024
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.I | re.S)
_LOOKS_HTML = re.compile(rb"^\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b", re.I | re.S)


@dataclass
class Page:
    """What an address answered with."""

    final_url: str
    status: int
    content_type: str | None
    body: bytes


def failed(
    url: str, source: str, cause: str, detail: str, page: Page | None = None, attempts: int = 1
) -> ArticleRecord:
    return ArticleRecord(
        url=url,
        status="failed",
        source=source,
        cause=cause,
        detail=detail,
        final_url=page.final_url if page else None,
        http_status=page.status if page else None,
        content_type=page.content_type if page else None,
        attempts=attempts,
    )


def media_type(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def is_html(content_type: str | None, head: bytes) -> bool:
    """HTML by its declared type, or (no type declared) by its first bytes."""
    kind = media_type(content_type)
    if kind:
        return kind in HTML_TYPES
    return bool(_LOOKS_HTML.match(head[:2048]))


def article_record(
    url: str, page: Page, source: str, max_bytes: int = DEFAULT_MAX_BYTES, attempts: int = 1
) -> ArticleRecord:
    """The stored result of one page: fetched with its main text, or failed with the cause."""
    if page.status >= 400:
        return failed(url, source, f"http {page.status}", f"the server answered {page.status}", page, attempts)
    if not 200 <= page.status < 300:
        return failed(url, source, f"http {page.status}", f"no page: the answer was {page.status}", page, attempts)
    if not is_html(page.content_type, page.body):
        shown = media_type(page.content_type) or "no content type, and it does not start like HTML"
        return failed(url, source, "not HTML", f"the page is {shown}", page, attempts)
    if len(page.body) > max_bytes:
        return failed(url, source, "too big", f"{len(page.body):,} bytes; the limit is {max_bytes:,}", page, attempts)
    title, text = main_text(page.body, page.final_url, page.content_type)
    digest = hashlib.sha256(page.body).hexdigest()
    if not text:
        record = failed(url, source, "no text", "the extractor found no main text in the page", page, attempts)
        record.html_sha256, record.html_bytes, record.title = digest, len(page.body), title
        return record
    return ArticleRecord(
        url=url,
        status="fetched",
        source=source,
        final_url=page.final_url,
        http_status=page.status,
        content_type=page.content_type,
        title=title,
        text=text,
        html_sha256=digest,
        html_bytes=len(page.body),
        attempts=attempts,
    )


def main_text(body: bytes, url: str | None, content_type: str | None = None) -> tuple[str | None, str | None]:
    """(title, main text) of a page, read by trafilatura (boilerplate, menus and comments left
    out); `content_type`: the HTTP header, whose charset wins over the page's own <meta>."""
    import html

    import trafilatura

    from workbench.articles.html import decode_html, for_lxml

    text = for_lxml(decode_html(body, content_type))
    extracted = trafilatura.extract(text, url=url, include_comments=False, include_tables=True)
    found = _TITLE.search(text[:200_000])
    title = " ".join(html.unescape(found.group(1)).split()) or None if found else None
    return title, (extracted.strip() or None) if extracted else None


__all__ = ["DEFAULT_MAX_BYTES", "Page", "article_record", "failed", "is_html", "main_text", "media_type"]
