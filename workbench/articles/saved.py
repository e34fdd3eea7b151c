"""Pages saved before: a folder of HTML files, WARC files (warcio), or a folder holding both.

A saved page is found by the address it was saved from, compared as html.address_key
does (no scheme, no www., no tracking parameters; a Wayback address is the page it saved):

- a WARC record's WARC-Target-URI (response and resource records; a saved redirect is
  followed inside the WARC files);
- an HTML file's own words: the browser's "saved from url" comment, its canonical link or
  its og:url; else a `urls.tsv` beside it (ADDRESS<TAB>FILE a line); else its place in a
  mirror (`wget -x`: FOLDER/host/path/index.html).

Every WARC file is read through before anything is stored: a record cut short (a copy
that stopped, a crawl killed mid-write) stops the fetch with the file, the byte offset
and the address, and nothing is written.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin

from workbench.articles.html import address_key, decode_html, page_address
from workbench.articles.pages import Page
from workbench.errors import WorkbenchError

HTML_SUFFIXES = (".html", ".htm", ".xhtml")
WARC_SUFFIXES = (".warc", ".warc.gz")
MANIFEST = "urls.tsv"


class SavedPagesError(WorkbenchError, ValueError):
    """Saved pages that cannot be used (a damaged WARC record, an unreadable file)."""


@dataclass
class SavedPage:
    url: str
    status: int
    content_type: str | None
    location: str | None
    path: Path
    offset: int | None = None
    """The record's byte offset in a WARC file (None: the whole file is the page)."""

    @property
    def source(self) -> str:
        return f"warc:{self.path}@{self.offset}" if self.offset is not None else f"saved:{self.path}"


@dataclass
class SavedPages:
    """Saved pages by address key."""

    pages: dict[str, SavedPage] = field(default_factory=dict)
    duplicates: int = 0

    def add(self, page: SavedPage) -> None:
        key = address_key(page.url)
        if key in self.pages:
            self.duplicates += 1
            if not (200 <= self.pages[key].status < 300) and 200 <= page.status < 300:
                self.pages[key] = page  # a saved page beats a saved error or redirect of it
            return
        self.pages[key] = page

    def find(self, url: str, hops: int = 10) -> SavedPage | None:
        """The saved page of an address, following saved redirects (a redirect whose target
        was not saved is what is found)."""
        page = self.pages.get(address_key(url))
        while page is not None and hops > 0 and page.location and 300 <= page.status < 400:
            target = self.pages.get(address_key(urljoin(page.url, page.location)))
            if target is None:
                break
            page, hops = target, hops - 1
        return page


def read_saved(sources: list[Path]) -> SavedPages:
    """Index every saved page in the folders and WARC files named (SavedPagesError if any is damaged)."""
    found = SavedPages()
    for source in sources:
        source = Path(source)
        if not source.exists():
            raise SavedPagesError(f"{source}: no such file or folder (--from names saved pages or WARC files)")
        if source.is_dir():
            _folder(source, found)
        elif _is_warc(source):
            _warc(source, found)
        elif source.name.lower().removesuffix(".gz").endswith(HTML_SUFFIXES):
            _html(source, source.parent, {}, found)
        else:
            raise SavedPagesError(f"{source}: neither a folder, a WARC file (.warc, .warc.gz) nor an HTML page")
    return found


def page_body(page: SavedPage) -> Page:
    """The saved page's bytes, as the fetcher's Page."""
    if page.offset is None:
        with _open(page.path) as handle:
            return Page(page.url, page.status, page.content_type, handle.read())
    from warcio.archiveiterator import ArchiveIterator

    with page.path.open("rb") as handle:
        handle.seek(page.offset)
        record = next(iter(ArchiveIterator(handle)))
        return Page(page.url, page.status, page.content_type, record.content_stream().read())


def _is_warc(path: Path) -> bool:
    return path.name.lower().endswith(WARC_SUFFIXES)


def _open(path: Path):
    return gzip.open(path, "rb") if path.name.lower().endswith(".gz") else path.open("rb")


def _folder(folder: Path, found: SavedPages) -> None:
    manifest = _manifest(folder)
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.name.startswith("."):
            continue
        if _is_warc(path):
            _warc(path, found)
        elif path.name.lower().removesuffix(".gz").endswith(HTML_SUFFIXES):
            _html(path, folder, manifest, found)


def _manifest(folder: Path) -> dict[Path, str]:
    path = folder / MANIFEST
    if not path.is_file():
        return {}
    addresses = {}
    for number, line in enumerate(path.read_text(encoding="utf-8-sig").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        url, tab, file = line.partition("\t")
        if not tab or not file.strip():
            raise SavedPagesError(f"{path}:{number}: a line is ADDRESS<TAB>FILE, not {line[:80]!r}")
        addresses[(folder / file.strip()).resolve()] = url.strip()
    return addresses


def _html(path: Path, root: Path, manifest: dict[Path, str], found: SavedPages) -> None:
    try:
        with _open(path) as handle:
            head = handle.read(256 * 1024)
    except (OSError, EOFError) as error:
        raise SavedPagesError(f"{path}: cannot be read: {error}") from None
    url = page_address(decode_html(head)) or manifest.get(path.resolve()) or _mirror_address(path, root)
    if url:
        found.add(SavedPage(url, 200, "text/html", None, path))


def _mirror_address(path: Path, root: Path) -> str | None:
    """FOLDER/host.example/a/b/index.html -> http://host.example/a/b (as `wget -x` lays pages out)."""
    parts = path.relative_to(root).parts
    if len(parts) < 2 or "." not in parts[0]:
        return None
    tail = list(parts[1:])
    if tail[-1].lower().removesuffix(".gz") in ("index.html", "index.htm"):
        tail = tail[:-1]
    return "http://" + "/".join([parts[0], *tail])


def _warc(path: Path, found: SavedPages) -> None:
    from warcio.archiveiterator import ArchiveIterator

    size = path.stat().st_size
    with path.open("rb") as handle:
        records = ArchiveIterator(handle)
        offset, url = 0, None
        try:
            for record in records:
                offset = records.get_record_offset()
                url = record.rec_headers.get_header("WARC-Target-URI")
                page = _warc_page(path, record, offset, url)
                if getattr(record.raw_stream, "limit", 0):
                    raise SavedPagesError(_cut(path, offset, url, "its bytes stop before its length"))
                if page is not None:
                    found.add(page)
        except SavedPagesError:
            raise
        except Exception as error:  # warcio and zlib raise many kinds for a damaged file
            raise SavedPagesError(_cut(path, records.offset, None, f"{type(error).__name__}: {error}")) from None
        if records.offset < size - 64:  # bytes left over: a last record cut short
            raise SavedPagesError(
                _cut(
                    path, records.offset, None, f"{size - records.offset:,} bytes at the end do not make a whole record"
                )
            )


def _warc_page(path: Path, record, offset: int, url: str | None) -> SavedPage | None:
    """A response or resource record as a saved page (others: None); reads it through."""
    if record.rec_type not in ("response", "resource") or not url:
        record.content_stream().read()
        return None
    if record.rec_type == "response" and record.http_headers is not None:
        status = int(record.http_headers.get_statuscode() or 0)
        content_type = record.http_headers.get_header("Content-Type")
        location = record.http_headers.get_header("Location")
    else:
        status, content_type, location = 200, record.rec_headers.get_header("Content-Type"), None
    while record.content_stream().read(1 << 20):
        pass
    return SavedPage(url, status, content_type, location, path, offset)


def _cut(path: Path, offset: int, url: str | None, why: str) -> str:
    at = f" ({url})" if url else ""
    return (
        f"{path}: the WARC record at byte {offset:,}{at} is damaged or cut short: {why}; nothing was stored"
        " (repair or drop that record, or leave the file out)"
    )


__all__ = ["SavedPage", "SavedPages", "SavedPagesError", "page_body", "read_saved"]
