"""Leakage guards for search runs: what a fact-checking model must not be shown.

A result is dropped, with the reason stored, when it was published after the claim (when
the backend gives a date and the claim has one), when it comes from a fact-checking site
(a configurable list; defaults below), or when it is the claim's own fact-check article.
An image result is judged by the page it is on and by the picture's own address (an image
hosted by a fact-checker is dropped too).
A shown result that still turns out to be the claim's own fact-check (the same address
once normalised, or text overlapping the claim's article: its own, else the one fetched from
its article_url) marks the claim `search-leak`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from store import Claim

if TYPE_CHECKING:
    from workbench.search.backends import SearchResult

DEFAULT_BLOCKED_DOMAINS = (
    "snopes.com",
    "politifact.com",
    "factcheck.org",
    "fullfact.org",
    "leadstories.com",
    "checkyourfact.com",
    "healthfeedback.org",
    "sciencefeedback.co",
    "climatefeedback.org",
    "truthorfiction.com",
    "africacheck.org",
    "boomlive.in",
    "altnews.in",
    "factly.in",
    "maldita.es",
    "newtral.es",
    "correctiv.org",
    "factcheck.afp.com",
    "fakty.afp.com",
    "misbar.com",
    "logicallyfacts.com",
    "vishvasnews.com",
    "aap.com.au/factcheck",
    "reuters.com/fact-check",
    "apnews.com/hub/ap-fact-check",
    "usatoday.com/story/news/factcheck",
    "washingtonpost.com/politics/fact-checker",
    "bbc.co.uk/news/reality_check",
    "factchecker.in",
)
"""Fact-checkers (IFCN signatories and the big newsrooms' fact-check desks): a domain, or
a domain and a path prefix."""
DROPPED_AFTER = "published after the claim"
DROPPED_FACT_CHECKER = "a fact-checking site"
DROPPED_OWN_ARTICLE = "the claim's own fact-check"
LEAK = "search-leak"


def normalised(url: str | None) -> str:
    """An address without scheme, www., query, fragment or trailing slash, lower-cased host."""
    if not url:
        return ""
    parts = urlsplit(url.strip() if "://" in url else "//" + url.strip())
    host = (parts.hostname or "").lower().removeprefix("www.")
    return host + parts.path.rstrip("/")


@dataclass
class Guards:
    """The guards for one claim."""

    claim: Claim
    blocked: tuple[str, ...] = DEFAULT_BLOCKED_DOMAINS

    @property
    def cutoff(self) -> str | None:
        return self.claim.claim_date or self.claim.reference_time

    def reason_to_drop(self, result: SearchResult) -> str | None:
        """Why the model must not see this result (a page, or an image and its page)."""
        address = normalised(result.url)
        if address and address == normalised(self.claim.article_url):
            return DROPPED_OWN_ARTICLE
        if self.on_fact_checker(result.url) or self.on_fact_checker(result.image_url):
            return DROPPED_FACT_CHECKER
        if self.cutoff and result.published and _day(result.published) and _day(result.published) > self.cutoff[:10]:
            return DROPPED_AFTER
        return None

    def on_fact_checker(self, url: str | None) -> bool:
        """Whether an address lies on a fact-checking site (an image fetched through a
        redirect is checked again where it ends up)."""
        address = normalised(url)
        return bool(address) and any(_under(address, blocked) for blocked in self.blocked)


def _under(address: str, blocked: str) -> bool:
    blocked = normalised(blocked)
    host, _, path = blocked.partition("/")
    found_host, _, found_path = address.partition("/")
    same_site = found_host == host or found_host.endswith("." + host)
    return same_site and (not path or found_path.startswith(path))


_DAY = re.compile(r"(\d{4}-\d{2}-\d{2})")


def _day(published: str) -> str | None:
    found = _DAY.search(published)
    return found.group(1) if found else None


class LeakCheck:
    """Whether a shown result is the claim's own fact-check after all: the same address,
    or text whose METEOR against the stored article text reaches `threshold`."""

    def __init__(self, threshold: float = 0.5):
        self.threshold = threshold
        self._scorer = None
        self._unavailable = False

    def leaked(self, claim: Claim, result: SearchResult, text: str | None, article: str | None = None) -> bool:
        """`article`: the claim's oracle article (default: its own article_text; a search run
        passes the fetched one too, see workbench.articles.oracle)."""
        if normalised(result.url) and normalised(result.url) == normalised(claim.article_url):
            return True
        body = text or result.snippet
        article = article if article is not None else claim.article_text
        if not article or not body:
            return False
        scorer = self._meteor()
        if scorer is None:
            return False
        return scorer.score(_head(article), _head(body)) >= self.threshold

    def _meteor(self):
        if self._scorer is None and not self._unavailable:
            try:
                from workbench.nlp.meteor import MeteorScorer

                self._scorer = MeteorScorer()
            except Exception:  # no WordNet here: the address check still runs
                self._unavailable = True
        return self._scorer


def _head(text: str, words: int = 200) -> str:
    return " ".join(text.split()[:words])
