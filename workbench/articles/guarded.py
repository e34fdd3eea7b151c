"""One guarded GET for every address the workbench is handed by outside data: an article a
dataset names, a robots.txt, an image a search result shows.

On every hop (the address given, then each redirect) the address must be http(s); its host
must not be in a private, loopback, link-local or otherwise reserved network, unless the
user allows it (`search_fetch_private = true` in the config: tests, a lab's own server),
and this is checked before any connection and again on the connection itself (a name that
resolves differently the second time is caught); the caller's own check (robots.txt) runs;
a redirect loop is refused. The body is read as it streams in, up to a size limit.

    answer = await guarded_get(client, url, Guard(max_bytes=10 << 20))   # Answer, or raises Refused
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import httpx

from workbench.retrying import retry_after_seconds

ALLOW_SETTING = "search_fetch_private"
"""The config key (WORKBENCH_SEARCH_FETCH_PRIVATE) that lets private addresses be fetched."""
REDIRECTS = {301, 302, 303, 307, 308}
RETRY_STATUSES = {408, 425, 429, 500, 502, 503, 504}
"""Answers worth another try: rate limited, timed out, overloaded or briefly broken."""


@dataclass
class Answer:
    """What the last hop answered (a body only for a 2xx answer)."""

    url: str
    status: int
    content_type: str | None
    body: bytes = b""


class Refused(Exception):
    """Why there is no answer: `cause` is short ("private address", "too big", "http 503"),
    `detail` says it to a person; `retryable`: a later try may work."""

    def __init__(
        self,
        cause: str,
        detail: str,
        retryable: bool = False,
        retry_after: float | None = None,
        status: int | None = None,
        answer: Answer | None = None,
    ):
        super().__init__(detail)
        self.cause, self.detail, self.retryable = cause, detail, retryable
        self.retry_after, self.status, self.answer = retry_after, status, answer


@dataclass
class Guard:
    """The rules of one kind of fetch."""

    max_bytes: int
    allow_private: bool = False
    private_hosts: frozenset[str] = frozenset()
    """host:port of servers that may be private all the same (a lab's own server, a test's)."""
    max_redirects: int = 5
    timeout: float | None = None
    """Seconds one hop may take, to its last byte (None: the client's own timeouts only)."""
    cut_at_limit: bool = False
    """Keep the first `max_bytes` of a bigger body (robots.txt) instead of refusing it."""
    permit: Callable[[str], Awaitable[Refused | None]] | None = None
    """Asked before each hop is fetched (robots.txt): a Refused stops the fetch."""
    accept: Callable[[Answer], None] | None = None
    """Shown each 2xx answer before its body is read; raises Refused to leave it unread."""
    slot: Callable[[str], AbstractAsyncContextManager] | None = None
    """Held around each request to an address (a site's politeness gate)."""
    rewrite: Callable[[str], str] = str
    """Each address as it is asked for (a Wayback address in its raw form)."""


async def guarded_get(client: httpx.AsyncClient, url: str, guard: Guard) -> Answer:
    """The answer at the end of `url`'s redirects, every hop checked (see the module docstring)."""
    address = guard.rewrite(url.strip())
    seen = [address]
    for _ in range(guard.max_redirects + 1):
        await check_address(address, guard.allow_private, guard.private_hosts)
        if guard.permit is not None and (refused := await guard.permit(address)) is not None:
            raise refused
        outcome = await _one_hop(client, address, guard)
        if isinstance(outcome, Answer):
            return outcome
        address = _next_hop(address, outcome, seen, guard)
    raise Refused("too many redirects", f"more than {guard.max_redirects} redirects (the last to {address})")


def _next_hop(address: str, location: str, seen: list[str], guard: Guard) -> str:
    target = guard.rewrite(urljoin(address, location))
    scheme = urlsplit(target).scheme.lower()
    if scheme not in ("http", "https"):
        raise Refused(
            "bad URL", f"a redirect to a non-web address ({scheme or 'no scheme'}:; only http and https are followed)"
        )
    if target in seen:
        raise Refused(
            "too many redirects", "a redirect loop (" + " -> ".join([*seen[seen.index(target) :], target]) + ")"
        )
    seen.append(target)
    return target


async def check_address(address: str, allow_private: bool, private_hosts: frozenset[str] = frozenset()) -> None:
    """Refused unless `address` is http(s) with a host outside private networks (or allowed)."""
    parts = urlsplit(address)
    if (
        parts.scheme.lower() not in ("http", "https")
        or not parts.hostname
        or any(ch.isspace() or ord(ch) < 32 for ch in address)
    ):
        raise Refused("bad URL", f"{address[:200]!r} is not an http(s) address")
    if allow_private or parts.netloc.lower() in private_hosts:
        return
    try:
        port = parts.port
    except ValueError as error:
        raise Refused("bad URL", f"{address[:200]!r}: {error}") from None
    for ip in await _addresses(parts.hostname, port or (443 if parts.scheme.lower() == "https" else 80)):
        if is_private(ip):
            raise private_refusal(parts.hostname)


async def _addresses(host: str, port: int) -> list[str]:
    try:
        return [str(ipaddress.ip_address(host))]  # a literal address: nothing to look up
    except ValueError:
        pass
    try:
        found = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise Refused("connection", f"the host {host} could not be found", retryable=True) from None
    return [sockaddr[0] for *_, sockaddr in found]


def is_private(ip: str) -> bool:
    """Whether an IP address lies outside the public internet: private, loopback, link-local,
    shared (carrier NAT), reserved or multicast, in IPv4 or IPv6 (an IPv4-mapped one too)."""
    address = ipaddress.ip_address(ip.split("%", 1)[0])
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return not address.is_global or address.is_multicast


def private_refusal(host: str) -> Refused:
    return Refused(
        "private address",
        f"{host} is a private or local address (not fetched; {ALLOW_SETTING} = true in the config allows it)",
    )


async def _one_hop(client: httpx.AsyncClient, address: str, guard: Guard) -> Answer | str:
    """One request: the Answer, or a redirect's Location."""
    slot = guard.slot(address) if guard.slot is not None else contextlib.nullcontext()
    try:
        async with slot, asyncio.timeout(guard.timeout):
            async with client.stream("GET", address) as response:
                _check_peer(response, guard, address)
                return await _read(response, guard)
    except TimeoutError:
        raise Refused("timeout", f"no complete answer within {guard.timeout:g} s", retryable=True) from None
    except httpx.TimeoutException:
        raise Refused("timeout", "the server did not answer in time", retryable=True) from None
    except (httpx.UnsupportedProtocol, httpx.InvalidURL) as error:
        raise Refused("bad URL", str(error)) from None
    except httpx.TransportError as error:
        raise Refused(
            "connection", f"the server could not be reached ({type(error).__name__}: {error})"[:300], retryable=True
        ) from None


def _check_peer(response: httpx.Response, guard: Guard, address: str) -> None:
    """The address actually connected to, checked too: a host name may resolve to a public
    address when checked and to a private one when connected (DNS rebinding)."""
    if guard.allow_private or urlsplit(address).netloc.lower() in guard.private_hosts:
        return
    stream = response.extensions.get("network_stream")
    peer = stream.get_extra_info("server_addr") if stream is not None else None
    if peer and is_private(str(peer[0])):
        raise private_refusal(urlsplit(address).hostname or address)


async def _read(response: httpx.Response, guard: Guard) -> Answer | str:
    status = response.status_code
    if status in REDIRECTS and response.headers.get("location"):
        return response.headers["location"]
    answer = Answer(str(response.url), status, response.headers.get("content-type"))
    if status in RETRY_STATUSES:
        raise Refused(
            f"http {status}",
            f"the server answered HTTP {status}",
            True,
            retry_after_seconds(response.headers),
            status,
            answer,
        )
    if not 200 <= status < 300:
        return answer
    if guard.accept is not None:
        guard.accept(answer)
    answer.body = await _body(response, guard)
    return answer


async def _body(response: httpx.Response, guard: Guard) -> bytes:
    limit = guard.max_bytes
    declared = response.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit and not guard.cut_at_limit:
        raise Refused(
            "too big", f"{size(int(declared))}, over the {size(limit)} limit ({int(declared):,} bytes declared)"
        )
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) > limit:
            if guard.cut_at_limit:
                return bytes(body[:limit])
            raise Refused("too big", f"over the {size(limit)} limit (stopped reading)")
    return bytes(body)


def size(count: int) -> str:
    """A byte count as people read it."""
    return f"{count / 2**20:.1f} MB" if count >= 2**20 else f"{count:,} bytes"


__all__ = [
    "ALLOW_SETTING",
    "Answer",
    "Guard",
    "Refused",
    "check_address",
    "guarded_get",
    "is_private",
    "private_refusal",
    "size",
]
