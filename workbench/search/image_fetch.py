"""Fetching an image a search run's vision model asked to look at: once per address, with
limits, and stored like a claim's image (by sha256, in the images table).

    fetcher = ImageFetcher(store)
    outcome = await fetcher.fetch("https://example.org/photo.jpg")   # FetchedImage | FetchRefused

Refused, with the reason stored and told to the model: an address that is not http(s), a
redirect to another scheme, a redirect loop or more than MAX_REDIRECTS, an address in a
private network (loopback, LAN; unless `search_fetch_private` is set), an HTML page, an
SVG drawing, anything over MAX_IMAGE_BYTES, and bytes that are not a whole image (a
truncated PNG). The redirects, the address checks and the size limit are the guarded GET's
(workbench.articles.guarded), the same as articles'. Timeouts, 429 and 5xx are tried three
times (a Retry-After up to MAX_WAIT_S waited for) and not remembered (a later run may fetch
the image); everything else is remembered, so a re-run is identical and fetches nothing.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
from dataclasses import dataclass

import httpx

from store import Store
from workbench.articles.guarded import Answer, Guard, Refused, guarded_get
from workbench.importers.images import describe_image
from workbench.retrying import backoff, with_retries

MAX_IMAGE_BYTES = 20 * 2**20
"""The biggest image fetched (OpenAI's per-image limit; others are scaled down to theirs)."""
MAX_REDIRECTS = 5
TIMEOUT_S = 15.0
TRIES = 3
MAX_WAIT_S = 30.0
"""The longest Retry-After waited for: a model is waiting for the picture."""


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


class ImageFetcher:
    """Fetches images for one run (one client), remembering each address in the store."""

    def __init__(
        self,
        store: Store,
        allow_private: bool = False,
        max_bytes: int = MAX_IMAGE_BYTES,
        timeout: float = TIMEOUT_S,
        private_hosts: frozenset[str] = frozenset(),
    ):
        self.store, self.allow_private, self.max_bytes = store, allow_private, max_bytes
        self.private_hosts = private_hosts
        """host:port of servers that may be fetched although private (a lab's own server)."""
        self._client = httpx.AsyncClient(
            timeout=timeout,
            follow_redirects=False,
            headers={"Accept": "image/png, image/jpeg, image/webp, image/gif, image/*;q=0.8"},
        )
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
        return FetchedImage(
            known.url,
            known.final_url or known.url,
            known.sha256,
            known.mime,
            known.bytes,
            known.width,
            known.height,
            data,
        )

    def _remember(self, outcome: FetchedImage | FetchRefused) -> None:
        if isinstance(outcome, FetchedImage):
            image = {
                "sha256": outcome.sha256,
                "mime": outcome.mime,
                "bytes": outcome.bytes,
                "width": outcome.width,
                "height": outcome.height,
                "data": outcome.data,
            }
            self.store.search.record_fetch(outcome.url, outcome.final_url, image, None)
        elif outcome.lasting:
            self.store.search.record_fetch(outcome.url, None, None, outcome.reason)

    async def _fetch_with_tries(self, url: str) -> FetchedImage | FetchRefused:
        def again(error: BaseException) -> bool:
            return isinstance(error, Refused) and error.retryable and (error.retry_after or 0) <= MAX_WAIT_S

        try:
            return await with_retries(lambda: self._fetch(url), attempts=TRIES, retry_if=again, wait=backoff(0.5))
        except Refused as refused:
            return FetchRefused(url, refused.detail, lasting=not refused.retryable)

    async def _fetch(self, url: str) -> FetchedImage:
        guard = Guard(self.max_bytes, self.allow_private, self.private_hosts, MAX_REDIRECTS, accept=_check_type)
        answer = await guarded_get(self._client, url, guard)
        _check_status(answer.status)
        return _image(url, answer.url, answer.body)

    async def aclose(self) -> None:
        await self._client.aclose()


def _check_status(status: int) -> None:
    if status == 429 or status >= 500:
        raise Refused(f"http {status}", f"the server answered HTTP {status}", retryable=True)
    if status >= 400 or status < 200:
        raise Refused(f"http {status}", f"the server answered HTTP {status}")


def _check_type(answer: Answer) -> None:
    """HTML pages and SVG drawings are refused before their bytes are read."""
    kind = (answer.content_type or "").split(";")[0].strip().lower()
    if kind in ("text/html", "application/xhtml+xml"):
        raise _refused("the address gives an HTML page, not an image")
    if kind == "image/svg+xml":
        raise _refused("an SVG drawing (a program, not a picture: not taken)")


def _refused(reason: str) -> Refused:
    return Refused("not an image", reason)


def _image(url: str, final_url: str, data: bytes) -> FetchedImage:
    """The fetched bytes as an image, judged by what they are, not by what the server said."""
    head = data[:512].lstrip().lower()
    if head.startswith((b"<!doctype html", b"<html")) or b"<html" in head:
        raise _refused("the address gives an HTML page, not an image")
    if head.startswith(b"<svg") or (head.startswith(b"<?xml") and b"<svg" in data[:4096].lower()):
        raise _refused("an SVG drawing (a program, not a picture: not taken)")
    if not data:
        raise _refused("an empty answer")
    described = describe_image(data)
    if isinstance(described, str):
        raise _refused(
            "the bytes are damaged or cut short (not a whole image)"
            if "damaged" in described
            else f"the bytes {described.removeprefix('is ')}"
        )
    if not _decodes(data):
        raise _refused("the bytes are damaged or cut short (not a whole image)")
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
