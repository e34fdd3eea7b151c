"""robots.txt, read once per site (scheme, host and port) and obeyed, as RFC 9309 says:

- a robots.txt that is there is parsed by protego (RFC 9309: the longest matching rule wins,
  `*` and `$` in paths, the group naming our product token replaces the `*` group);
- one the server says is unavailable (a 4xx answer) allows everything;
- one that cannot be reached (a 5xx answer, a timeout, a refused connection) forbids
  everything until it can be: the site may be down, and a crawler must not guess.

A Crawl-delay for us is kept, and the fetcher waits that long between requests to the site.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from protego import Protego

ROBOTS_MAX_BYTES = 512 * 1024
"""RFC 9309: a crawler must read at least the first 500 KiB."""


@dataclass
class SiteRules:
    parser: Protego | None
    """None: no rules (everything allowed) or `forbid_all`."""
    forbid_all: bool = False
    why: str = ""
    crawl_delay: float | None = None
    unreachable: bool = False
    """The site did not answer at all (no such host, refused, timed out)."""

    def allows(self, url: str, agent: str) -> bool:
        if self.forbid_all:
            return False
        return self.parser is None or self.parser.can_fetch(url, agent)


def site_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def rules_from(status: int | None, body: bytes, agent: str, error: str | None = None) -> SiteRules:
    """The rules a robots.txt answer gives (status None: it could not be fetched at all)."""
    if status is None:
        return SiteRules(None, True, f"the site cannot be reached (its robots.txt: {error})", unreachable=True)
    if status >= 500:
        return SiteRules(None, True, f"robots.txt answered {status}: treated as forbidding everything")
    if status >= 400:
        return SiteRules(None)
    from protego import Protego

    parser = Protego.parse(body[:ROBOTS_MAX_BYTES].decode("utf-8", "replace"))
    delay = parser.crawl_delay(agent)
    return SiteRules(parser, crawl_delay=float(delay) if delay else None)


class RobotsCache:
    """Rules per site for one fetch; `fetch(robots_url)` -> (status | None, body, error)."""

    def __init__(self, agent: str, fetch):
        self.agent, self._fetch = agent, fetch
        self._rules: dict[str, SiteRules] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    async def rules(self, url: str) -> SiteRules:
        site = site_of(url)
        if site in self._rules:
            return self._rules[site]
        async with self._locks.setdefault(site, asyncio.Lock()):
            if site not in self._rules:
                status, body, error = await self._fetch(f"{site}/robots.txt")
                self._rules[site] = rules_from(status, body, self.agent, error)
        return self._rules[site]


__all__ = ["RobotsCache", "SiteRules", "rules_from", "site_of"]
