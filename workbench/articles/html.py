"""Reading saved or fetched web pages: their text encoding, their own address, and web
archive addresses (shared by the article fetcher and the ClaimReview page reader)."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

_SAVED_FROM = re.compile(r"<!--\s*saved from url=\(\d+\)\s*(\S+?)\s*-->", re.I)
_CANONICAL = re.compile(r"""<link\b[^>]*\brel\s*=\s*["']?canonical["']?[^>]*>""", re.I)
_OG_URL = re.compile(r"""<meta\b[^>]*\bproperty\s*=\s*["']og:url["'][^>]*>""", re.I)
_HREF = re.compile(r"""\b(?:href|content)\s*=\s*["']([^"']+)["']""", re.I)
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>", re.I)
_ARCHIVED = re.compile(r"^/web/(\d{1,14})([a-z]{2}_)?/(.+)$")
ARCHIVE_HOSTS = ("web.archive.org",)
"""Wayback Machine hosts: /web/TIMESTAMP/ADDRESS there is the page as saved at that time."""
TRACKING = re.compile(r"^(utm_[a-z]+|fbclid|gclid|mc_cid|mc_eid|ref_src)$", re.I)


def decode_html(data: bytes, content_type: str | None = None) -> str:
    """A page's text, decoded as a browser would (w3lib): a byte-order mark first, then the
    charset the HTTP Content-Type names (a header, or a bare charset name), then the one its
    <meta> or XML declaration names; with none, UTF-8 if the bytes are UTF-8, else
    Windows-1252 (the web's usual unlabelled Latin-1)."""
    from w3lib.encoding import html_to_unicode

    if content_type and "/" not in content_type and "=" not in content_type:
        content_type = f"text/html; charset={content_type}"  # a bare charset name
    return html_to_unicode(content_type, data, auto_detect_fun=_utf8_or_cp1252)[1]


def _utf8_or_cp1252(data: bytes) -> str:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        if error.start < len(data) - 3:  # not merely a character cut off at the end
            return "cp1252"
    return "utf-8"


def for_lxml(text: str) -> str:
    """Page text lxml takes as a str (an XML declaration naming an encoding it refuses)."""
    return _XML_DECLARATION.sub("", text, count=1)


def page_address(text: str) -> str | None:
    """The address a saved page names for itself: the browser's "saved from" comment, its
    canonical link, or its og:url (in that order); None when it names none."""
    head = text[:200_000]
    found = _SAVED_FROM.search(head)
    if found:
        return found.group(1)
    for pattern in (_CANONICAL, _OG_URL):
        tag = pattern.search(head)
        if tag:
            address = _HREF.search(tag.group(0))
            if address and address.group(1).startswith(("http://", "https://")):
                return address.group(1)
    return None


def archived_original(url: str, archive_hosts: tuple[str, ...] = ARCHIVE_HOSTS) -> str | None:
    """For a Wayback Machine address, the address it saved (None for any other address)."""
    parts = urlsplit(url)
    if (parts.hostname or "").lower() not in archive_hosts and parts.netloc.lower() not in archive_hosts:
        return None
    found = _ARCHIVED.match(parts.path + (f"?{parts.query}" if parts.query else ""))
    if not found:
        return None
    original = found.group(3)
    return original if "://" in original else "http://" + original


def raw_archive_address(url: str, archive_hosts: tuple[str, ...] = ARCHIVE_HOSTS) -> str:
    """A Wayback Machine address asked for the page as it was saved, without the archive's
    own toolbar and rewritten links (the id_ form); any other address as it is."""
    parts = urlsplit(url)
    if (parts.hostname or "").lower() not in archive_hosts and parts.netloc.lower() not in archive_hosts:
        return url
    found = _ARCHIVED.match(parts.path)
    if not found:
        return url
    path = f"/web/{found.group(1)}id_/{found.group(3)}"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def address_key(url: str, archive_hosts: tuple[str, ...] = ARCHIVE_HOSTS) -> str:
    """An address for matching saved pages: scheme, www., fragment, tracking parameters and
    a trailing slash dropped, the host lower-cased; a Wayback address is the page it saved."""
    url = (url or "").strip()
    url = archived_original(url, archive_hosts) or url
    parts = urlsplit(url if "://" in url else "//" + url)
    host = (parts.hostname or "").lower().removeprefix("www.")
    port = f":{parts.port}" if parts.port and parts.port not in (80, 443) else ""
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not TRACKING.match(k)])
    path = parts.path.rstrip("/") or ""
    return host + port + path + (f"?{query}" if query else "")


__all__ = [
    "ARCHIVE_HOSTS",
    "address_key",
    "archived_original",
    "decode_html",
    "for_lxml",
    "page_address",
    "raw_archive_address",
]
