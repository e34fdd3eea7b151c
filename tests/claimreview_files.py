"""Small ClaimReview files in the three published shapes, written for the tests (invented
claims, agencies on .example addresses)."""

from __future__ import annotations

import json
from pathlib import Path


def api_claim(text: str, reviews: list[dict], claimant: str = "A councillor", day: str = "2025-09-28") -> dict:
    return {"text": text, "claimant": claimant, "claimDate": f"{day}T00:00:00Z", "claimReview": reviews}


def api_review(
    url: str,
    rating: str,
    day: str = "2025-10-02T09:00:00Z",
    publisher: str = "Harbour Truth",
    site: str = "harbourtruth.example",
    language: str = "en",
) -> dict:
    return {
        "publisher": {"name": publisher, "site": site},
        "url": url,
        "title": f"Checked: {url.rsplit('/', 1)[-1]}",
        "reviewDate": day,
        "textualRating": rating,
        "languageCode": language,
    }


def api_page(claims: list[dict], token: str | None = "next") -> dict:
    return {"claims": claims, **({"nextPageToken": token} if token else {})}


def claim_review(
    claim: str,
    rating: str | None = "False",
    url: str | None = None,
    day: str = "2025-10-04",
    value=None,
    best=None,
    worst=None,
    author: str = "Valley Facts",
    claimant: str = "A radio host",
    language: str | None = "en",
) -> dict:
    rating_object = {"@type": "Rating"}
    if rating is not None:
        rating_object["alternateName"] = rating
    for key, number in (("ratingValue", value), ("bestRating", best), ("worstRating", worst)):
        if number is not None:
            rating_object[key] = number
    review = {
        "@context": "https://schema.org",
        "@type": "ClaimReview",
        "claimReviewed": claim,
        "itemReviewed": {
            "@type": "Claim",
            "author": {"@type": "Person", "name": claimant},
            "datePublished": "2025-10-01",
            "appearance": [{"@type": "CreativeWork", "url": "https://social.example/p/1"}],
        },
        "author": {"@type": "Organization", "name": author, "url": "https://valleyfacts.example"},
        "datePublished": day,
        "reviewRating": rating_object,
    }
    if url:
        review["url"] = url
    if language:
        review["inLanguage"] = language
    return review


def feed(reviews: list[dict]) -> dict:
    return {
        "@context": "https://schema.org",
        "@type": "DataFeed",
        "dataFeedElement": [
            {"@type": "DataFeedItem", "dateCreated": "2025-10-05", "item": [review]} for review in reviews
        ],
    }


def page(scripts: list[str], canonical: str | None = None, body: str = "<p>The article.</p>") -> str:
    link = f'<link rel="canonical" href="{canonical}">' if canonical else ""
    blocks = "".join(f'<script type="application/ld+json">{script}</script>\n' for script in scripts)
    return (
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>A fact check</title>{link}\n{blocks}'
        f"</head><body><article><h1>A fact check</h1>{body}</article></body></html>\n"
    )


def write_json(path: Path, *documents, pretty: bool = True) -> Path:
    path.write_text("\n".join(json.dumps(d, indent=2 if pretty else None) for d in documents) + "\n", encoding="utf-8")
    return path
