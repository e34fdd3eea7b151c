"""A ClaimReview review unit (shapes.py) as a claim.

    text          the claim reviewed (API: claims[].text; schema.org: claimReviewed)
    raw_label     the textual rating as the fact-checker wrote it (ratings.py folds it)
    claim_date    when the claim was made (API: claimDate; schema.org: itemReviewed.datePublished)
    reference_time  when the review was published: the day its verdict holds for
    source        the claimant (API: claimant; schema.org: itemReviewed.author)
    article_url   the review's address: the oracle fact-check article
    attributes    publisher, publisher_site, review_title, review_date, rating, rating_value,
                  best_rating, worst_rating, language, appearances, claimreview_shape, and
                  every other field of the markup

The review's address is the claim's id; a second review at one address (a page that
checks several claims) gets the address plus a digest of its claim, and the same review
met twice (pages fetched twice, a page's JSON-LD and microdata) is read once.
"""

from __future__ import annotations

import hashlib
from typing import Any
from urllib.parse import urlsplit

from workbench.importers import values as convert
from workbench.importers.claimreview.dates import review_day
from workbench.importers.claimreview.shapes import FACTCHECK_API, flat_unit, prop
from workbench.importers.common import DraftClaim
from workbench.importers.reading import BadInput, Located, RecordReader

_API_CLAIM_KNOWN = {"text", "claimant", "claimDate", "claimReview"}
_API_REVIEW_KNOWN = {"publisher", "url", "title", "reviewDate", "textualRating", "languageCode"}
_SCHEMA_KNOWN = {
    "claimReviewed",
    "itemReviewed",
    "reviewRating",
    "author",
    "publisher",
    "datePublished",
    "url",
    "headline",
    "name",
    "inLanguage",
    "@context",
    "@type",
    "type",
}
LANGUAGE_NAMES = {
    "english": "en",
    "spanish": "es",
    "español": "es",
    "french": "fr",
    "français": "fr",
    "german": "de",
    "deutsch": "de",
    "portuguese": "pt",
    "português": "pt",
    "italian": "it",
    "italiano": "it",
    "dutch": "nl",
    "arabic": "ar",
    "hindi": "hi",
    "polish": "pl",
}


def claimreview(located: Located, context) -> list[DraftClaim]:
    """One claim per review unit (none for a review met before, or one without a claim); a
    flat export's row (CSV/TSV, or JSON records with ClaimReview's names) is made one first."""
    unit = located.value
    if "claimreview_path" not in unit:
        unit = flat_unit(unit, located.record)
        if unit is None:
            raise BadInput(
                located.path or context.path,
                "holds none of ClaimReview's fields (claimReviewed,"
                " alternativeName, ratingValue, datePublished, url, ...)",
                line=located.line,
            )
    path = unit["claimreview_path"]
    review = unit["claimreview"]
    file = located.path or context.path
    reader = RecordReader(file, Located(located.line, located.record, review))
    where = convert.Where(str(file), located.line, None, context.warnings)
    read = _api_fields if unit["claimreview_shape"] == FACTCHECK_API else _schema_fields
    fields, names = read(unit, where, path)
    if fields["text"] is None:
        where.warn(names["text"], "a review without the claim it reviews (skipped)", "review without a claim")
        return []
    fields["attributes"]["claimreview_shape"] = unit["claimreview_shape"]
    fields["external_id"] = _external_id(fields, context, where, path)
    if fields["external_id"] is None:
        return []
    return [DraftClaim(reader, fields, names)]


def _api_fields(unit: dict, where: convert.Where, path: str) -> tuple[dict, dict]:
    claim, review = unit["claimreview_claim"], unit["claimreview"]
    claim_path = path.rsplit(".claimReview[", 1)[0]
    publisher = review.get("publisher") if isinstance(review.get("publisher"), dict) else {}
    url = convert.text(review.get("url"), where, f"{path}.url")
    attributes = {
        "publisher": convert.text(publisher.get("name"), where, f"{path}.publisher.name"),
        "publisher_site": _site(convert.text(publisher.get("site"), where, f"{path}.publisher.site"), url),
        "review_title": convert.text(review.get("title"), where, f"{path}.title"),
        "review_date": review_day(review.get("reviewDate"), where, f"{path}.reviewDate"),
        "rating": convert.text(review.get("textualRating"), where, f"{path}.textualRating"),
        "language": _language(review.get("languageCode")),
        **_rest(claim, _API_CLAIM_KNOWN, "claim_"),
        **_rest(review, _API_REVIEW_KNOWN),
    }
    fields = {
        "text": convert.text(claim.get("text"), where, f"{claim_path}.text"),
        "source": convert.text(claim.get("claimant"), where, f"{claim_path}.claimant"),
        "claim_date": review_day(claim.get("claimDate"), where, f"{claim_path}.claimDate"),
        "reference_time": attributes["review_date"],
        "article_url": url,
        "raw_label": attributes["rating"],
        "attributes": _present(attributes),
        "evidence": [],
    }
    names = {"text": f"{claim_path}.text", "raw_label": f"{path}.textualRating", "external_id": f"{path}.url"}
    return fields, names


def _schema_fields(unit: dict, where: convert.Where, path: str) -> tuple[dict, dict]:
    review = unit["claimreview"]
    item = _first_object(prop(review, "itemReviewed"))
    rating = _first_object(prop(review, "reviewRating"))
    author = _first_object(prop(review, "author")) or _first_object(prop(review, "publisher"))
    url = _address(prop(review, "url")) or unit.get("claimreview_page") or _address(review.get("@id"))
    numbers = {
        key: _number(prop(rating, name))
        for key, name in (
            ("rating_value", "ratingValue"),
            ("best_rating", "bestRating"),
            ("worst_rating", "worstRating"),
        )
    }
    textual = _text(prop(rating, "alternateName") or prop(rating, "name"), where, f"{path}.reviewRating.alternateName")
    attributes = {
        "publisher": _names(author) if author else _names(prop(review, "author")),
        "publisher_site": _site(_address(prop(author, "url")) if author else None, url),
        "review_title": _text(prop(review, "headline") or prop(review, "name"), where, f"{path}.headline"),
        "review_date": review_day(prop(review, "datePublished"), where, f"{path}.datePublished"),
        "rating": textual,
        **numbers,
        "language": _language(prop(review, "inLanguage")),
        "appearances": _appearances(item),
        **_rest(review, _SCHEMA_KNOWN),
        **_rest(item or {}, {"author", "datePublished", "appearance", "firstAppearance", "@type", "type"}, "claim_"),
    }
    fields = {
        "text": _text(prop(review, "claimReviewed"), where, f"{path}.claimReviewed"),
        "source": _names(prop(item, "author")) if item else None,
        "claim_date": review_day(prop(item, "datePublished"), where, f"{path}.itemReviewed.datePublished")
        if item
        else None,
        "reference_time": attributes["review_date"],
        "article_url": url,
        "raw_label": textual or _numeric_label(numbers),
        "attributes": _present(attributes),
        "evidence": [],
    }
    names = {
        "text": f"{path}.claimReviewed",
        "raw_label": f"{path}.reviewRating.alternateName",
        "external_id": f"{path}.url",
    }
    return fields, names


def _external_id(fields: dict, context, where: convert.Where, path: str) -> str | None:
    """The review's address (or a digest of its publisher, claim and date), made unique."""
    seen = context.cache.setdefault("claimreview_ids", {})
    text_key = " ".join(fields["text"].lower().split())
    base = fields["article_url"] or "claimreview:" + _digest(
        f"{fields['attributes'].get('publisher')}|{text_key}|{fields['reference_time']}"
    )
    for candidate in (base, f"{base}#{_digest(text_key)}"):
        if candidate not in seen:
            seen[candidate] = text_key
            return candidate
        if seen[candidate] == text_key:
            where.warn(
                f"{path}.url",
                f"the same review of the same claim again (first as id {candidate!r}; read once)",
                "review met twice",
            )
            return None
    return None


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def _first_object(value: Any) -> dict | None:
    if isinstance(value, list):
        value = next((item for item in value if isinstance(item, dict)), None)
    return value if isinstance(value, dict) else None


def _unwrapped(value: Any) -> Any:
    if isinstance(value, dict) and "@value" in value:
        return value["@value"]
    if isinstance(value, list):
        texts = [_unwrapped(item) for item in value if not isinstance(_unwrapped(item), (dict, list))]
        return next((item for item in texts if not convert.absent(item)), None)
    return value


def _text(value: Any, where: convert.Where, field: str) -> str | None:
    value = _unwrapped(value)
    if isinstance(value, dict):
        raise where.error(field, "must be text, not an object")
    found = convert.text(value, where, field)
    return " ".join(found.split()) if found else None


def _names(value: Any) -> str | None:
    """A Person/Organization's name (or several, joined), or a plain string."""
    items = value if isinstance(value, list) else [value]
    names = []
    for item in items:
        name = prop(item, "name") if isinstance(item, dict) else item
        name = _unwrapped(name)
        if isinstance(name, str) and name.strip():
            names.append(" ".join(name.split()))
    return ", ".join(dict.fromkeys(names)) or None


def _address(value: Any) -> str | None:
    value = _unwrapped(value)
    if isinstance(value, dict):
        value = prop(value, "url") or value.get("@id")
    return value.strip() if isinstance(value, str) and value.strip().startswith(("http://", "https://")) else None


def _appearances(item: dict | None) -> list[str]:
    if not item:
        return []
    found = []
    for name in ("appearance", "firstAppearance"):
        value = prop(item, name)
        for entry in value if isinstance(value, list) else [value]:
            address = _address(entry) if not isinstance(entry, str) else (entry if entry.startswith("http") else None)
            if address:
                found.append(address)
    return list(dict.fromkeys(found))


def _site(site: str | None, url: str | None) -> str | None:
    """A publisher's site as a host name (politifact.com), from its site or the review's address."""
    for value in (site, url):
        if value:
            host = urlsplit(value if "://" in value else "//" + value).hostname
            if host:
                return host.lower().removeprefix("www.")
    return None


def _language(value: Any) -> str | None:
    """en, es, ... from en-US, English, or {"@type": "Language", "name": "English"}."""
    if isinstance(value, dict):
        value = prop(value, "alternateName") or prop(value, "name")
    value = _unwrapped(value)
    if not isinstance(value, str) or not value.strip():
        return None
    lowered = value.strip().lower()
    return LANGUAGE_NAMES.get(lowered, lowered.replace("_", "-").split("-")[0])


def _number(value: Any) -> float | int | None:
    value = _unwrapped(value)
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = float(str(value).strip().replace(",", "."))
    except ValueError:
        return None
    return int(number) if number.is_integer() else number


def _numeric_label(numbers: dict) -> str | None:
    """The label of a review rated only by number: "rating 2 (1 to 5)"."""
    value = numbers.get("rating_value")
    if value is None:
        return None
    worst = numbers.get("worst_rating") if numbers.get("worst_rating") is not None else 1
    best = numbers.get("best_rating") if numbers.get("best_rating") is not None else 5
    return f"rating {value} ({worst} to {best})"


def _rest(record: dict, known: set[str], prefix: str = "") -> dict:
    """The markup's other fields, kept as attributes (prefixed for the claim's own)."""
    return {
        prefix + str(key).rsplit("/", 1)[-1].removeprefix("schema:"): convert.json_safe(value)
        for key, value in record.items()
        if str(key).rsplit("/", 1)[-1].removeprefix("schema:") not in known
        and not convert.absent(value)
        and key not in ("@context",)
    }


def _present(attributes: dict) -> dict:
    return {key: value for key, value in attributes.items() if value not in (None, "", [], {})}


__all__ = ["claimreview"]
