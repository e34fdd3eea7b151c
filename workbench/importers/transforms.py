"""The hard cases: record-to-claims functions for formats a field mapping cannot describe
(a profile names one with `transform = "NAME"`).

    jsfactcheck      the cited page matched to a candidate page by URL, the quote located
    realfactbench    evidence given as one text or a list of texts; an optional image path
    scifact          the label read from the rationale sets; abstracts from corpus.jsonl
    factcheck-bench  a response's sentences, each with its claims and their labels in
                     parallel lists (factcheck_bench.py)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.importers import values as convert
from workbench.importers.claimreview.ratings import rating_reader
from workbench.importers.claimreview.transform import claimreview
from workbench.importers.common import DraftClaim
from workbench.importers.factcheck_bench import factcheck_bench
from workbench.importers.images import image_references
from workbench.importers.mapper import locate_claim, locate_passage, record_shown
from workbench.importers.reading import BadInput, Located, RecordReader
from workbench.importers.warnings import ImportWarnings

MAX_CANDIDATES = 10


@dataclass
class TransformContext:
    """What a transform may use besides the record."""

    path: Path
    warnings: ImportWarnings
    extra_files: dict[str, Path] = field(default_factory=dict)
    """Other files a format needs (SciFact's corpus), by name."""
    cache: dict[str, Any] = field(default_factory=dict)


def _where(context: TransformContext, located: Located) -> convert.Where:
    return convert.Where(
        str(located.path or context.path), located.line, record_shown(located), context.warnings, located
    )


def _rest(record: dict, known: set[str], where: convert.Where | None = None, prefix: str = "") -> dict:
    """The record's other fields, kept as attributes, as they are (null and "" too)."""
    return {
        key: (convert.attribute_value(value, where, prefix + key) if where else convert.json_safe(value))
        for key, value in record.items()
        if key not in known and key != "_dataset"
    }


# -- JSFactCheckBench ---------------------------------------------------------------------

_JS_KNOWN = {
    "id",
    "claim",
    "label",
    "factuality",
    "question",
    "response",
    "reference_time",
    "claim_date",
    "importance",
    "attributes",
    "task",
    "domain",
    "source",
    "article_url",
    "article_text",
    "justification",
    "candidates",
    "reference",
}


def jsfactcheck(located: Located, context: TransformContext) -> list[DraftClaim]:
    """One claim per line; the cited page is matched to a candidate by URL."""
    reader = RecordReader(located.path or context.path, located, warnings=context.warnings)
    where = _where(context, located)
    fields = {
        "external_id": reader.text("id", required=True),
        "text": reader.text("claim", required=True),
        "raw_label": reader.text("label", aliases=("factuality",)),
        "question": reader.text("question"),
        "response": reader.text("response", long=True),
        "reference_time": convert.date(reader.record.get("reference_time"), where, "reference_time"),
        "claim_date": convert.date(reader.record.get("claim_date"), where, "claim_date"),
        "importance": convert.choice(
            reader.record.get("importance"), where, "importance", ["Main", "Sub", "Irrelevant"]
        ),
        "attributes": {**_rest(reader.record, _JS_KNOWN, where), **reader.mapping("attributes")},
        **{name: reader.text(name) for name in ("task", "domain", "source", "article_url")},
        **{name: reader.text(name, long=True) for name in ("article_text", "justification")},
        "evidence": _pages(reader, where),
    }
    locate_claim(fields)
    return [DraftClaim(reader, fields, {"text": "claim", "raw_label": "label"})]


def _pages(reader: RecordReader, where: convert.Where) -> list[dict]:
    candidates = reader.items("candidates")
    if len(candidates) > MAX_CANDIDATES:
        raise reader.fail("candidates", f"has {len(candidates)} pages; at most {MAX_CANDIDATES}")
    pages = [_page(reader.nested(value, f"candidates[{n}]."), n) for n, value in enumerate(candidates)]
    if reader.record.get("reference") is None:
        return pages
    cited_reader = reader.nested(reader.record["reference"], "reference.")
    cited = _page(cited_reader, 0)
    cited.update(is_cited=True, passage=cited_reader.text("quote", required=True, long=True))
    locate_passage(cited, where, "reference.quote")
    for page in pages:
        if cited["url"] and page["url"] == cited["url"]:
            cited["rank"] = page["rank"]
            page.update({**cited, "attributes": {**page["attributes"], **cited["attributes"]}})
            return pages
    for page in pages:  # the cited page is not among the candidates: it goes first
        page["rank"] += 1
    return [cited] + pages


_PAGE_KNOWN = {"url", "title", "text", "quote"}


def _page(reader: RecordReader, rank: int) -> dict:
    """A page; whatever else the file says of it is kept as the page's attributes."""
    where = (
        convert.Where(str(reader.path), reader.located.line, None, reader.warnings, reader.located)
        if reader.warnings
        else None
    )
    return {
        "kind": "page",
        "rank": rank,
        "url": reader.text("url"),
        "title": reader.text("title"),
        "text": reader.text("text", required=True, long=True),
        "attributes": _rest(reader.record, _PAGE_KNOWN, where, reader.prefix),
    }


# -- RealFactBench --------------------------------------------------------------------------

_RF_KNOWN = {
    "id",
    "claim",
    "label",
    "task",
    "domain",
    "date",
    "source",
    "article_url",
    "article_text",
    "reason",
    "attributes",
    "evidence",
    "image",
}


def realfactbench(located: Located, context: TransformContext) -> list[DraftClaim]:
    """A JSON array or one object per line; records without an id get their index."""
    reader = RecordReader(
        located.path or context.path, located, show_record=record_shown(located) is not None, warnings=context.warnings
    )
    where = _where(context, located)
    attributes = {**_rest(reader.record, _RF_KNOWN, where), **reader.mapping("attributes")}
    fields = {
        "external_id": reader.text("id") or str(located.record),
        "text": reader.text("claim", required=True),
        "raw_label": reader.text("label"),
        "task": convert.choice(reader.record.get("task"), where, "task", ["KV", "RD", "EV"]),
        "domain": reader.text("domain"),
        "claim_date": convert.date(reader.record.get("date"), where, "date"),
        "source": reader.text("source"),
        "article_url": reader.text("article_url"),
        "article_text": reader.text("article_text", long=True),
        "justification": reader.text("reason", long=True),
        "attributes": attributes,
        "evidence": _snippets(reader),
        "images": image_references(reader.record.get("image"), where, "image"),
    }
    return [
        DraftClaim(reader, fields, {"text": "claim", "raw_label": "label", "claim_date": "date", "images": "image"})
    ]


def _snippets(reader: RecordReader) -> list[dict]:
    value = reader.record.get("evidence")
    if value is None or value == "":
        return []
    texts = value if isinstance(value, list) else [value]
    items = []
    for rank, text in enumerate(texts):
        if not isinstance(text, str):
            raise reader.fail(f"evidence[{rank}]", f"must be text, not {type(text).__name__}")
        items.append({"kind": "passage", "rank": rank, "text": text})
    return items


# -- SciFact ----------------------------------------------------------------------------------

SCIFACT_LABELS = {"SUPPORT": "Supported", "CONTRADICT": "Refuted"}


def scifact(located: Located, context: TransformContext) -> list[DraftClaim]:
    """claims_*.jsonl: evidence {doc_id: [{sentences, label}]}; no evidence means NEI, and a
    claim without an `evidence` field at all (the test split) has no gold label."""
    reader = RecordReader(located.path or context.path, located, warnings=context.warnings)
    record = reader.record
    evidence = record.get("evidence")
    if evidence is not None and not isinstance(evidence, dict):
        raise reader.fail("evidence", f"must be an object of doc id -> rationales, not {type(evidence).__name__}")
    label = _scifact_label(reader, evidence)
    corpus = _corpus(context)
    cited = [str(doc) for doc in record.get("cited_doc_ids") or []]
    doc_ids = list(dict.fromkeys([*(evidence or {}), *cited]))
    items = [_abstract(doc_id, (evidence or {}).get(doc_id) or [], corpus, rank) for rank, doc_id in enumerate(doc_ids)]
    missing = [doc_id for doc_id in doc_ids if doc_id not in corpus]
    if missing and corpus:
        _where(context, located).warn(
            "cited_doc_ids",
            f"doc ids {', '.join(missing[:5])} are not in the corpus",
            "cited document not in the corpus",
        )
    fields = {
        "external_id": reader.text("id", required=True),
        "text": reader.text("claim", required=True),
        "raw_label": label,
        "attributes": {
            **_rest(record, {"id", "claim", "evidence"}, _where(context, located)),
            **({"evidence_sets": convert.json_safe(evidence)} if evidence else {}),
        },
        "evidence": [item for item in items if item is not None],
    }
    return [DraftClaim(reader, fields, {"text": "claim", "raw_label": "evidence"})]


def _scifact_label(reader: RecordReader, evidence: dict | None) -> str | None:
    if evidence is None:
        return None
    found = {
        rationale.get("label")
        for rationales in evidence.values()
        for rationale in rationales or []
        if isinstance(rationale, dict)
    }
    if not found:
        return "NotEnoughInfo"
    if len(found) > 1:
        raise reader.fail("evidence", f"rationales disagree ({', '.join(sorted(map(str, found)))})")
    (value,) = found
    if value not in SCIFACT_LABELS:
        raise reader.fail("evidence", f"unknown rationale label {value!r} (SUPPORT or CONTRADICT)")
    return SCIFACT_LABELS[value]


def _abstract(doc_id: str, rationales: list, corpus: dict, rank: int) -> dict | None:
    doc = corpus.get(doc_id)
    if doc is None:
        return (
            {
                "kind": "page",
                "rank": rank,
                "title": f"doc {doc_id}",
                "text": None,
                "is_cited": bool(rationales),
                "attributes": {"doc_id": doc_id},
            }
            if rationales
            else None
        )
    sentences = [str(s) for s in doc.get("abstract") or []]
    chosen = sorted({index for rationale in rationales for index in rationale.get("sentences") or []})
    passage = " ".join(sentences[i] for i in chosen if 0 <= i < len(sentences)) or None
    item = {
        "kind": "page",
        "rank": rank,
        "title": doc.get("title"),
        "text": " ".join(sentences),
        "is_cited": bool(rationales),
        "passage": None,
        "attributes": {"doc_id": doc_id, "rationale_sentences": chosen} if chosen else {"doc_id": doc_id},
    }
    if passage and len(chosen) > 0 and passage in item["text"]:
        item["passage"] = passage
        start = item["text"].find(passage)
        item["passage_start"], item["passage_end"] = start, start + len(passage)
    return item


def _corpus(context: TransformContext) -> dict[str, dict]:
    """SciFact's corpus.jsonl (given as --with corpus=FILE, or beside the claims file), by doc id."""
    if "corpus" in context.cache:
        return context.cache["corpus"]
    path = context.extra_files.get("corpus")
    if path is None:
        for name in ("corpus.jsonl", "corpus.jsonl.gz"):
            if (context.path.parent / name).is_file():
                path = context.path.parent / name
                break
    corpus: dict[str, dict] = {}
    if path is not None:
        from workbench.importers.formats import text_lines

        for number, line in text_lines(Path(path)):
            if line.strip():
                doc = convert_json(Path(path), line, number)
                corpus[str(doc.get("doc_id"))] = doc
        context.warnings.note(f"abstracts read from {path} ({len(corpus):,} documents)")
    else:
        context.warnings.note(
            "no corpus.jsonl beside the claims (or --with corpus=FILE): the cited abstracts"
            " are kept as document ids only"
        )
    context.cache["corpus"] = corpus
    return corpus


def convert_json(path: Path, line: str, number: int) -> dict:
    from workbench.importers.reading import decode_json

    value = decode_json(path, line, number)
    if not isinstance(value, dict):
        raise BadInput(path, "expected a JSON object", line=number)
    return value


TRANSFORMS: dict[str, Callable[[Located, TransformContext], list[DraftClaim]]] = {
    "jsfactcheck": jsfactcheck,
    "realfactbench": realfactbench,
    "scifact": scifact,
    "factcheck-bench": factcheck_bench,
    "claimreview": claimreview,
}
LABEL_READERS = {"claimreview": rating_reader}
"""Transforms that fold their own labels: name -> (plan, the existing dataset's space, a function
reading the file's draft claims again) -> LabelReader, or None for the usual label reading."""
