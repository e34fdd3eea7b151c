"""What the article-fetching tests share: claims naming addresses, a fetch with quick
retries, and the stored article of an address."""

from __future__ import annotations

from store import ArticleRecord
from tests.claimreview_files import claim_review, write_json
from workbench.articles.fetching import FetchRequest, fetch_articles, plan_fetch
from workbench.articles.web import FetchSettings
from workbench.importers import ImportRequest, run_import

PARAGRAPHS = [
    "The council's budget papers put the bridge at 40 million crowns, not 90 million.",
    "A spokesperson for the council confirmed the figure on Tuesday and shared the tender documents.",
    "The 90 million figure first appeared in a post that doubled the cost of two bridges.",
]
FAST = dict(backoff=0.01, timeout=5.0, allow_private=True)
"""Quick retries; the test servers are on 127.0.0.1, which a fetch must be allowed to reach."""


def claims_for(store, tmp_path, urls: dict[str, str], name: str = "cr") -> None:
    reviews = [claim_review(f"Claim {key}.", "False", url) for key, url in urls.items()]
    run_import(store, ImportRequest(write_json(tmp_path / f"{name}.json", reviews)))


def fetch(db_path, store, dataset="cr", **settings):
    request = FetchRequest(dataset, settings=FetchSettings(**{**FAST, **settings}))
    plan = plan_fetch(store, request)
    return plan, fetch_articles(db_path, plan)


def article(store, url) -> ArticleRecord:
    return store.articles.get(url)
