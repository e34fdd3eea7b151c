"""A claim's oracle fact-check article as the pipelines read it: the text the dataset came
with (article_text), else the one `workbench articles fetch` got from its article_url."""

from __future__ import annotations

from store import Claim, Store


def oracle_article(store: Store, claim: Claim) -> str | None:
    """The claim's own article text, else its fetched article's main text, else None."""
    if (claim.article_text or "").strip():
        return claim.article_text
    if claim.id is None or not claim.article_url:
        return None
    return store.articles.text_for_claim(claim.id)


__all__ = ["oracle_article"]
