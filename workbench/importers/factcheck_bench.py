"""Factcheck-Bench's document-level file (Wang et al., Findings of EMNLP 2024; the
factcheck-GPT-benchmark.jsonl of the Factcheck-GPT repository), as it is published.

A record is one response: prompt, response, revised_response, response_factuality, and
sentences (an object keyed sentence1, sentence2, ...). A sentence holds its own fields
(text, decontext, sentence_factuality_label, revised_decontext, sentence_checkworthiness,
most_importance_sentence) and lists parallel to its claims (claims_factuality_label,
claim_checkworthiness, human_evidence, auto_evidence, auto_evidence_url,
stance_claim_autoEvid, if_claim_needs_edit, revised_claims, usedEvidence_index_in_revision,
if_most_important_claim, if_automatic_evidence_enough_to_verify). One claim per sentence
claim; nothing of the record is left behind:

- a published per-claim list as long as the sentence's claims gives each claim its element;
  any other list, and every single value, is kept whole on each claim of the sentence
  (revised_claims is one element short in some sentences: it is then kept whole, never
  shifted);
- the annotators' evidence is one cited passage, its address taken from wherever the text
  puts it: a line of its own (first or last, bare or as "Link: URL", "URL: URL") leaves the
  text, an address inside a sentence stays in it; "NA" is none;
- the automatically retrieved passages become evidence items with their address and the
  annotators' stance;
- importance comes from if_most_important_claim: yes Main, intermediate Sub, no Irrelevant;
- the gold label "unknown" (a claim annotators could not settle) is kept on the claim and
  left out of scores (the profile excludes it); a model's "unknown" is an abstention.
"""

from __future__ import annotations

import re
from itertools import zip_longest
from typing import Any

from workbench.importers import values as convert
from workbench.importers.common import DraftClaim
from workbench.importers.mapper import locate_claim, record_shown
from workbench.importers.reading import Located, RecordReader

RECORD_FIELDS = {"prompt", "response", "sentences"}
SENTENCE_FIELDS = {
    "text",
    "claims",
    "claims_factuality_label",
    "human_evidence",
    "auto_evidence",
    "auto_evidence_url",
    "stance_claim_autoEvid",
}
"""Read into the claim's own fields and evidence; every other field becomes an attribute."""
PARALLEL = {
    "claim_checkworthiness",
    "if_automatic_evidence_enough_to_verify",
    "if_claim_needs_edit",
    "revised_claims",
    "usedEvidence_index_in_revision",
    "if_most_important_claim",
}
"""The published lists with one element per claim (a field of another name is kept whole)."""
IMPORTANCE = {"yes": "Main", "intermediate": "Sub", "no": "Irrelevant"}
SINGULAR = {"revised_claims": "revised_claim"}
NONE = {"", "NA", "N/A"}
_URL = re.compile(r"^(?:(?:link|url|source)\s*:\s*)?(https?://\S+)\s*(.*)$", re.IGNORECASE)
_IN_TEXT = re.compile(r"https?://[^\s\\]+")


def factcheck_bench(located: Located, context) -> list[DraftClaim]:
    """One claim per sentence claim, with everything the record says about it."""
    reader = RecordReader(located.path or context.path, located, warnings=context.warnings)
    record = reader.record
    sentences = record.get("sentences")
    if not isinstance(sentences, dict):
        raise reader.fail("sentences", f"must be an object of sentence1, sentence2, ... not {type(sentences).__name__}")
    where = convert.Where(
        str(located.path or context.path), located.line, record_shown(located), context.warnings, located
    )
    shared = {
        key: convert.attribute_value(value, where, key) for key, value in record.items() if key not in RECORD_FIELDS
    }
    drafts, without_claims = [], {}
    for sentence_key, sentence in sentences.items():
        if not isinstance(sentence, dict):
            raise reader.fail(f"sentences.{sentence_key}", "must be an object")
        claims = sentence.get("claims") or []
        if not isinstance(claims, list):
            raise reader.fail(f"sentences.{sentence_key}.claims", "must be a list of claims")
        if not claims:
            without_claims[sentence_key] = convert.attribute_value(sentence, where, f"sentences.{sentence_key}")
        for index in range(len(claims)):
            draft = _claim(reader, where, located, sentence_key, sentence, index, len(claims), shared)
            if draft is not None:
                drafts.append(draft)
    _keep_sentences_without_claims(drafts, without_claims, where)
    return drafts


def _keep_sentences_without_claims(drafts: list[DraftClaim], sentences: dict, where: convert.Where) -> None:
    """A sentence with no claims goes with every claim of its response (attribute
    sentences_without_claims, keyed sentence1, ...); a response with no claim at all is named
    in a warning, sentence by sentence."""
    for draft in drafts:
        if sentences:
            draft.fields["attributes"]["sentences_without_claims"] = sentences
    if not drafts:
        for key in sentences:
            where.warn(
                f"sentences.{key}.claims",
                "a sentence with no claims, in a response with none (not kept: a claim is what the import keeps)",
                "response without claims",
            )


def _claim(
    reader: RecordReader,
    where: convert.Where,
    located: Located,
    key: str,
    sentence: dict,
    index: int,
    count: int,
    shared: dict,
) -> DraftClaim | None:
    name = f"sentences.{key}.claims[{index}]"
    text = convert.text(sentence["claims"][index], where, name)
    if text is None:
        where.warn(name, "an empty claim (this claim is skipped)", "record without claim text")
        return None
    own = _sentence_attributes(sentence, index, count, where, key)
    attributes = {**shared, "sentence": key}
    for name, value in own.items():  # a sentence field named like a record field is kept beside it
        attributes[f"sentence.{name}" if name in attributes else name] = value
    importance = attributes.get("if_most_important_claim")
    fields = {
        "external_id": f"{located.record}-{key}-{index}",
        "text": text,
        "raw_label": convert.label(
            _at(sentence.get("claims_factuality_label"), index, count),
            where,
            f"sentences.{key}.claims_factuality_label[{index}]",
        ),
        "question": reader.text("prompt"),
        "response": reader.text("response", long=True),
        "importance": IMPORTANCE.get(str(importance).strip().lower()) if importance is not None else None,
        "attributes": attributes,
        "evidence": [
            *_human_evidence(_at(sentence.get("human_evidence"), index, count)),
            *_retrieved(sentence, index, count),
        ],
    }
    for rank, item in enumerate(fields["evidence"]):
        item["rank"] = rank
    locate_claim(fields)
    return DraftClaim(reader, fields, {"text": name, "raw_label": "claims_factuality_label"})


def _sentence_attributes(sentence: dict, index: int, count: int, where: convert.Where, key: str) -> dict:
    """The sentence's other fields: a list parallel to its claims gives this claim's element,
    anything else is kept whole."""
    attributes = {"sentence_text": sentence.get("text")} if sentence.get("text") is not None else {}
    for field_name, value in sentence.items():
        if field_name in ("text", "claims") or (field_name in SENTENCE_FIELDS and _parallel(value, count)):
            continue  # read into the claim's own fields and evidence
        place = f"sentences.{key}.{field_name}"
        if field_name in PARALLEL and _parallel(value, count):
            attributes[SINGULAR.get(field_name, field_name)] = convert.attribute_value(
                value[index], where, f"{place}[{index}]"
            )
        else:
            attributes[field_name] = convert.attribute_value(value, where, place)
    return attributes


def _parallel(values: Any, count: int) -> bool:
    return isinstance(values, list) and len(values) == count


def _at(values: Any, index: int, count: int) -> Any:
    return values[index] if _parallel(values, count) else None


def _human_evidence(value: Any) -> list[dict]:
    """The annotators' evidence as one cited passage; its address is wherever the text puts it."""
    if not isinstance(value, str) or value.strip() in NONE:
        return []
    urls, lines = [], []
    for line in value.strip().splitlines():
        found = _URL.match(line.strip())
        if found:
            urls.append(found.group(1))
            if found.group(2):
                lines.append(found.group(2))
        else:
            lines.append(line)
    text = "\n".join(lines).strip() or None
    if not urls and text:  # an address inside a sentence ("According to: URL ..."): the text stays whole
        urls = _IN_TEXT.findall(text)[:1]
    item = {
        "kind": "passage",
        "url": urls[0] if urls else None,
        "text": text,
        "is_cited": True,
        "attributes": {"origin": "annotators", **({"urls": urls} if len(urls) > 1 else {})},
    }
    return [item] if text or urls else []


def _retrieved(sentence: dict, index: int, count: int) -> list[dict]:
    """The passages retrieved automatically for the claim, each with its address and the
    annotators' stance (completely-support, partially-support, refute, irrelevant)."""
    passages = _at(sentence.get("auto_evidence"), index, count) or []
    urls = _at(sentence.get("auto_evidence_url"), index, count) or []
    stances = _at(sentence.get("stance_claim_autoEvid"), index, count) or []
    items = []
    for text, url, stance in zip_longest(passages, urls, stances):
        item = {
            "kind": "passage",
            "url": url if isinstance(url, str) and url.strip() else None,
            "text": text if isinstance(text, str) and text.strip() else None,
            "attributes": {"origin": "retrieved", **({"stance": stance} if stance is not None else {})},
        }
        if item["url"] or item["text"]:
            items.append(item)
    return items
