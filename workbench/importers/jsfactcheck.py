"""JSFactCheckBench-shaped JSONL: claims from LLM answers, a cited page with the quoted
passage, and up to ten candidate pages."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from workbench.importers.common import Draft, DraftClaim, locate_claim, locate_passage
from workbench.importers.reading import RecordReader, iter_jsonl
from workbench.labels import JSFACTCHECK

MAX_CANDIDATES = 10
_OPTIONAL_SHORT = ["task", "domain", "source", "article_url"]
_OPTIONAL_LONG = ["article_text", "justification"]


def read_jsfactcheck(path: Path, text: str) -> Draft:
    """One claim per line; the cited page is matched to a candidate by URL."""
    return Draft(path=path, source_format="jsfactcheck", name_hint=path.stem,
                 claims=_claims(path, text), label_space=JSFACTCHECK)


def _claims(path: Path, text: str) -> Iterator[DraftClaim]:
    for located in iter_jsonl(path, text):
        reader = RecordReader(path, located)
        fields = {
            "external_id": reader.text("id", required=True),
            "text": reader.text("claim", required=True),
            "raw_label": reader.text("label", required=True, aliases=("factuality",)),
            "question": reader.text("question"),
            "response": reader.text("response", long=True),
            "reference_time": reader.date("reference_time"),
            "claim_date": reader.date("claim_date"),
            "importance": reader.choice("importance", ["Main", "Sub", "Irrelevant"]),
            "attributes": reader.mapping("attributes"),
            **{name: reader.text(name) for name in _OPTIONAL_SHORT},
            **{name: reader.text(name, long=True) for name in _OPTIONAL_LONG},
            "evidence": _pages(reader),
        }
        locate_claim(fields)
        yield DraftClaim(reader, fields, {"text": "claim", "raw_label": "label"})


def _pages(reader: RecordReader) -> list[dict]:
    candidates = reader.items("candidates")
    if len(candidates) > MAX_CANDIDATES:
        raise reader.fail("candidates", f"has {len(candidates)} pages; at most {MAX_CANDIDATES}")
    pages = [_page(reader.nested(value, f"candidates[{n}]."), n) for n, value in enumerate(candidates)]
    if reader.record.get("reference") is None:
        return pages
    cited_reader = reader.nested(reader.record["reference"], "reference.")
    cited = _page(cited_reader, 0)
    cited.update(is_cited=True, passage=cited_reader.text("quote", required=True, long=True))
    locate_passage(cited_reader, cited, "quote")
    for page in pages:
        if cited["url"] and page["url"] == cited["url"]:
            cited["rank"] = page["rank"]
            page.update(cited)
            return pages
    # The cited page is not among the candidates: it goes first.
    for page in pages:
        page["rank"] += 1
    return [cited] + pages


def _page(reader: RecordReader, rank: int) -> dict:
    return {
        "kind": "page",
        "rank": rank,
        "url": reader.text("url"),
        "title": reader.text("title"),
        "text": reader.text("text", required=True, long=True),
    }
