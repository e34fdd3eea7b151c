"""The three published shapes of ClaimReview data, as review units: one per review found.

- schema.org ClaimReview objects (JSON-LD): alone, in a list, in an @graph, or inside
  another object (a WebPage's mainEntity);
- Fact Check Tools API `claims:search` pages: {claims: [{text, claimant, claimDate,
  claimReview: [{publisher, url, title, reviewDate, textualRating, languageCode}]}],
  nextPageToken};
- the DataCommons ClaimReview feed: {dataFeedElement: [{item: [ClaimReview, ...]}]}.

A unit is a dict (what the import's profile detects and its transform reads):
{"claimreview_shape": "schema.org" | "factcheck-api" | "datacommons",
 "claimreview_path": where in the document, e.g. "claims[3].claimReview[0]",
 "claimreview": the review object, "claimreview_claim": the API's claim object (API only),
 "claimreview_page": the address of the page it was found in (saved pages only)}.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

SCHEMA_ORG, FACTCHECK_API, DATACOMMONS, FLAT = "schema.org", "factcheck-api", "datacommons", "flat export"
MAX_DEPTH = 12
_PREFIXES = ("", "schema:", "http://schema.org/", "https://schema.org/")


def prop(obj: Any, name: str) -> Any:
    """A schema.org property of a JSON-LD object, whichever way the markup spells its name."""
    if not isinstance(obj, dict):
        return None
    for prefix in _PREFIXES:
        if prefix + name in obj:
            return obj[prefix + name]
    return None


def types_of(obj: Any) -> set[str]:
    """The @type names of a JSON-LD object without their vocabulary (schema:ClaimReview -> ClaimReview)."""
    if not isinstance(obj, dict):
        return set()
    found = obj.get("@type", obj.get("type"))
    names = found if isinstance(found, list) else [found]
    return {str(name).rsplit("/", 1)[-1].rsplit(":", 1)[-1] for name in names if name}


def is_claim_review(obj: Any) -> bool:
    return "ClaimReview" in types_of(obj)


def units(document: Any, warn: Callable[[str, str], None], page: str | None = None, where: str = "") -> Iterator[dict]:
    """Every review in a parsed document, in document order; `warn(path, message)` hears
    about what looks like ClaimReview data but holds no review."""
    if isinstance(document, dict) and isinstance(document.get("claims"), list):
        yield from _api_page(document["claims"], warn, _join(where, "claims"))
    elif isinstance(document, dict) and "dataFeedElement" in document:
        yield from _feed(document["dataFeedElement"], warn, _join(where, "dataFeedElement"), page)
    elif isinstance(document, dict) and isinstance(document.get("claimReview"), list):
        yield from _api_claim(document, warn, where)  # one claim of an API page, on its own
    else:
        yield from _schema_org(document, page, where, 0)


def _api_page(claims: list, warn, where: str) -> Iterator[dict]:
    for index, claim in enumerate(claims):
        path = f"{where}[{index}]"
        if not isinstance(claim, dict):
            warn(path, f"an API claim must be an object, not {type(claim).__name__} (skipped)")
            continue
        yield from _api_claim(claim, warn, path)


def _api_claim(claim: dict, warn, where: str) -> Iterator[dict]:
    reviews = claim.get("claimReview")
    if not isinstance(reviews, list) or not reviews:
        warn(where, "an API claim without any claimReview (skipped)")
        return
    for index, review in enumerate(reviews):
        path = _join(where, f"claimReview[{index}]")
        if not isinstance(review, dict):
            warn(path, f"a claimReview must be an object, not {type(review).__name__} (skipped)")
            continue
        yield {
            "claimreview_shape": FACTCHECK_API,
            "claimreview_path": path,
            "claimreview": review,
            "claimreview_claim": claim,
        }


def _feed(elements: Any, warn, where: str, page: str | None) -> Iterator[dict]:
    if not isinstance(elements, list):
        warn(where, f"dataFeedElement must be a list, not {type(elements).__name__} (skipped)")
        return
    for index, element in enumerate(elements):
        path = f"{where}[{index}]"
        items = prop(element, "item") if isinstance(element, dict) else None
        items = [items] if isinstance(items, dict) else items
        if not isinstance(items, list) or not items:
            warn(path, "a feed element without an item (skipped)")
            continue
        for number, item in enumerate(items):
            item_path = f"{path}.item[{number}]"
            if is_claim_review(item):
                yield {
                    "claimreview_shape": DATACOMMONS,
                    "claimreview_path": item_path,
                    "claimreview": item,
                    **({"claimreview_page": page} if page else {}),
                }
            else:
                warn(
                    item_path,
                    f"a feed item of type {', '.join(sorted(types_of(item))) or 'none'}, not ClaimReview (skipped)",
                )


def _schema_org(value: Any, page: str | None, where: str, depth: int) -> Iterator[dict]:
    """ClaimReview objects anywhere in a JSON-LD value (not inside another ClaimReview)."""
    if depth > MAX_DEPTH:
        return
    if isinstance(value, list):
        for index, item in enumerate(value):
            yield from _schema_org(item, page, f"{where}[{index}]", depth + 1)
    elif is_claim_review(value):
        yield {
            "claimreview_shape": SCHEMA_ORG,
            "claimreview_path": where or "$",
            "claimreview": value,
            **({"claimreview_page": page} if page else {}),
        }
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, (dict, list)) and key != "@context":
                yield from _schema_org(item, page, _join(where, key), depth + 1)


# A flat export's column (lower case, letters and digits only) -> where it sits in a ClaimReview.
_FLAT_COLUMNS = {
    "claimreviewed": ("claimReviewed",),
    "alternatename": ("reviewRating", "alternateName"),
    "alternativename": ("reviewRating", "alternateName"),
    "reviewratingalternatename": ("reviewRating", "alternateName"),
    "textualrating": ("reviewRating", "alternateName"),
    "rating": ("reviewRating", "alternateName"),
    "ratingvalue": ("reviewRating", "ratingValue"),
    "reviewratingratingvalue": ("reviewRating", "ratingValue"),
    "bestrating": ("reviewRating", "bestRating"),
    "reviewratingbestrating": ("reviewRating", "bestRating"),
    "worstrating": ("reviewRating", "worstRating"),
    "reviewratingworstrating": ("reviewRating", "worstRating"),
    "datepublished": ("datePublished",),
    "reviewdate": ("datePublished",),
    "url": ("url",),
    "reviewurl": ("url",),
    "headline": ("headline",),
    "reviewtitle": ("headline",),
    "author": ("author", "name"),
    "authorname": ("author", "name"),
    "publisher": ("author", "name"),
    "publishername": ("author", "name"),
    "authorurl": ("author", "url"),
    "publishersite": ("author", "url"),
    "itemreviewedauthorname": ("itemReviewed", "author", "name"),
    "claimant": ("itemReviewed", "author", "name"),
    "claimauthor": ("itemReviewed", "author", "name"),
    "itemrevieweddatepublished": ("itemReviewed", "datePublished"),
    "claimdate": ("itemReviewed", "datePublished"),
    "inlanguage": ("inLanguage",),
    "language": ("inLanguage",),
    "languagecode": ("inLanguage",),
}


def flat_unit(row: dict, index: int) -> dict | None:
    """A flat export's row (ClaimReview's own names as columns: claimReviewed, alternativeName,
    ratingValue, bestRating, datePublished, URL, ...) as a schema.org review unit; columns of
    other names are kept under their own names (the import keeps them as attributes). None
    for a row with no column of ClaimReview's."""
    review: dict = {"@type": "ClaimReview"}
    if not any(_flat_slot(column) for column in row):
        return None
    for column, value in row.items():
        slot = _flat_slot(column)
        if slot is None or (len(slot) > 1 and not isinstance(review.get(slot[0], {}), dict)):
            review.setdefault(str(column), value)
            continue
        target = review
        for step in slot[:-1]:
            target = target.setdefault(step, {})
        target.setdefault(slot[-1], value)
    return {"claimreview_shape": FLAT, "claimreview_path": f"row[{index}]", "claimreview": review}


def _flat_slot(column: Any) -> tuple[str, ...] | None:
    return _FLAT_COLUMNS.get("".join(ch for ch in str(column).lower() if ch.isalnum()))


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


__all__ = [
    "DATACOMMONS",
    "FACTCHECK_API",
    "FLAT",
    "SCHEMA_ORG",
    "flat_unit",
    "is_claim_review",
    "prop",
    "types_of",
    "units",
]
