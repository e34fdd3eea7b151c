"""Fetching an image a search run's vision model asked to look at: once per address, with
limits, and stored like a claim's image (by sha256, in the images table).

    fetcher = ImageFetcher(store)
    outcome = await fetcher.fetch("https://example.org/photo.jpg")   # FetchedImage | FetchRefused

Refused, with the reason stored and told to the model: an address that is not http(s), a
redirect to another scheme, a redirect loop or more than MAX_REDIRECTS, an address in a
private network (loopback, LAN; unless `search_fetch_private` is set), an HTML page, an
SVG drawing, anything over MAX_IMAGE_BYTES, and bytes that are not a whole image (a
truncated PNG). Timeouts, 429 and 5xx are tried three times and not remembered (a later
run may fetch the image); everything else is remembered, so a re-run is identical and
fetches nothing.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import httpx

from store import Store
from workbench.importers.images import describe_image

MAX_IMAGE_BYTES = 20 * 2**20
"""The biggest image fetched (OpenAI's per-image limit; others are scaled down to theirs)."""
MAX_REDIRECTS = 5
TIMEOUT_S = 15.0
TRIES = 3
_REDIRECTS = {301, 302, 303, 307, 308}


@dataclass(frozen=True)
class FetchedImage:
    url: str
    final_url: str
    sha256: str
    mime: str
    bytes: int
    width: int
    height: int
    data: bytes


@dataclass(frozen=True)
class FetchRefused:
    url: str
    reason: str
    lasting: bool = True
    """Remembered (False: a timeout or a busy server; a later run tries again)."""


class _Refusal(Exception):
    def __init__(self, reason: str, lasting: bool = True):
        super().__init__(reason)
        self.reason, self.lasting = reason, lasting


class ImageFetcher:
    """Fetches images for one run (one client), remembering each address in the store."""

    def __init__(self, store: Store, allow_private: bool = False, max_bytes: int = MAX_IMAGE_BYTES,
                 timeout: float = TIMEOUT_S):
        self.store, self.allow_private, self.max_bytes = store, allow_private, max_bytes
        self._client = httpx.AsyncClient(timeout=timeout, follow_redirects=False,
                                         headers={"Accept": "image/png, image/jpeg, image/webp, image/gif, image/*;q=0.8"})
        self._locks: dict[str, asyncio.Lock] = {}
        """One per address: a second claim asking for an image being fetched waits for it."""

    async def fetch(self, url: str) -> FetchedImage | FetchRefused:
        """The image at `url` (from the store when it was fetched before)."""
        async with self._locks.setdefault(url, asyncio.Lock()):
            known = self.store.search.fetched_image(url)
            if known is not None:
                return self._from_record(known)
            outcome = await self._fetch_with_tries(url)
            self._remember(outcome)
            return outcome

    def _from_record(self, known) -> FetchedImage | FetchRefused:
        if known.sha256 is None:
            return FetchRefused(known.url, known.error)
        data = self.store.claims.image_data(known.sha256)
        return FetchedImage(known.url, known.final_url or known.url, known.sha256, known.mime, known.bytes,
                            known.width, known.height, data)

    def _remember(self, outcome: FetchedImage | FetchRefused) -> None:
        if isinstance(outcome, FetchedImage):
            image = {"sha256": outcome.sha256, "mime": outcome.mime, "bytes": outcome.bytes, "width": outcome.width,
                     "height": outcome.height, "data": outcome.data}
            self.store.search.record_fetch(outcome.url, outcome.final_url, image, None)
        elif outcome.lasting:
            self.store.search.record_fetch(outcome.url, None, None, outcome.reason)

    async def _fetch_with_tries(self, url: str) -> FetchedImage | FetchRefused:
        delay = 0.5
        for attempt in range(TRIES):
            try:
                return await self._fetch(url)
            except _Refusal as refusal:
                if refusal.lasting or attempt == TRIES - 1:
                    return FetchRefused(url, refusal.reason, refusal.lasting)
            await asyncio.sleep(delay)
            delay *= 2
        raise AssertionError("unreachable")

    async def _fetch(self, url: str) -> FetchedImage:
        seen, address = [url], url
        for _ in range(MAX_REDIRECTS + 1):
            await self._check_address(address)
            try:
                async with self._client.stream("GET", address) as response:
                    if response.status_code in _REDIRECTS:
                        address = self._next_hop(address, response, seen)
                        continue
                    _check_status(response.status_code)
                    data = await self._body(response)
            except httpx.TimeoutException:
                raise _Refusal(f"the server did not answer within {self._client.timeout.read:g} s", False) from None
            except httpx.HTTPError as error:
                raise _Refusal(f"the server could not be reached ({type(error).__name__})", False) from None
            return _image(url, address, data)
        raise _Refusal(f"more than {MAX_REDIRECTS} redirects")

    def _next_hop(self, address: str, response: httpx.Response, seen: list[str]) -> str:
        location = response.headers.get("location")
        if not location:
            raise _Refusal(f"a redirect (HTTP {response.status_code}) without a Location")
        target = urljoin(address, location)
        scheme = urlsplit(target).scheme.lower()
        if scheme not in ("http", "https"):
            raise _Refusal(f"a redirect to a non-web address ({scheme or 'no scheme'}:; only http and https are"
                           " followed)")
        if target in seen:
            raise _Refusal("a redirect loop (" + " -> ".join([*seen[seen.index(target):], target]) + ")")
        seen.append(target)
        return target

    async def _check_address(self, address: str) -> None:
        parts = urlsplit(address)
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            raise _Refusal(f"not an http(s) address: {address[:80]!r}")
        if self.allow_private:
            return
        try:
            found = await asyncio.get_running_loop().getaddrinfo(parts.hostname, parts.port or 443,
                                                                 type=socket.SOCK_STREAM)
        except OSError:
            raise _Refusal(f"the host {parts.hostname} could not be found", False) from None
        for *_, sockaddr in found:
            ip = ipaddress.ip_address(sockaddr[0])
            if ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_reserved or ip.is_unspecified:
                raise _Refusal(f"{parts.hostname} is a private or local address (not fetched; search_fetch_private"
                               " = true in the config allows it)")

    async def _body(self, response: httpx.Response) -> bytes:
        kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
        _check_type(kind)
        declared = response.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > self.max_bytes:
            raise _Refusal(f"{_size(int(declared))}, over the {_size(self.max_bytes)} limit")
        chunks, total = [], 0
        async for chunk in response.aiter_bytes():
            total += len(chunk)
            if total > self.max_bytes:
                raise _Refusal(f"over the {_size(self.max_bytes)} limit (stopped reading)")
            chunks.append(chunk)
        return b"".join(chunks)

    async def aclose(self) -> None:
        await self._client.aclose()


def _check_status(status: int) -> None:
    if status == 429 or status >= 500:
        raise _Refusal(f"the server answered HTTP {status}", False)
    if status >= 400 or status < 200:
        raise _Refusal(f"the server answered HTTP {status}")


def _check_type(kind: str) -> None:
    if kind in ("text/html", "application/xhtml+xml"):
        raise _Refusal("the address gives an HTML page, not an image")
    if kind == "image/svg+xml":
        raise _Refusal("an SVG drawing (a program, not a picture: not taken)")


def _image(url: str, final_url: str, data: bytes) -> FetchedImage:
    """The fetched bytes as an image, judged by what they are, not by what the server said."""
    head = data[:512].lstrip().lower()
    if head.startswith((b"<!doctype html", b"<html")) or b"<html" in head:
        raise _Refusal("the address gives an HTML page, not an image")
    if head.startswith(b"<svg") or (head.startswith(b"<?xml") and b"<svg" in data[:4096].lower()):
        raise _Refusal("an SVG drawing (a program, not a picture: not taken)")
    if not data:
        raise _Refusal("an empty answer")
    described = describe_image(data)
    if isinstance(described, str):
        raise _Refusal("the bytes are damaged or cut short (not a whole image)" if "damaged" in described
                       else f"the bytes {described.removeprefix('is ')}")
    if not _decodes(data):
        raise _Refusal("the bytes are damaged or cut short (not a whole image)")
    mime, width, height = described
    return FetchedImage(url, final_url, hashlib.sha256(data).hexdigest(), mime, len(data), width, height, data)


def _decodes(data: bytes) -> bool:
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as opened:
            opened.load()
        return True
    except (OSError, SyntaxError, ValueError):
        return False


def _size(count: int) -> str:
    return f"{count / 2**20:.1f} MB" if count >= 2**20 else f"{count:,} bytes"
