"""AVeriTeC release JSON: an array of claims with question-answer evidence."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from workbench.importers.common import Draft, DraftClaim
from workbench.importers.reading import RecordReader, iter_json_array
from workbench.labels import AVERITEC

# Kept on the claim as attributes, so they can be filtered (attr.claim_types:...) and sliced.
_ATTRIBUTES = ["reporting_source", "location_ISO_code", "claim_types", "fact_checking_strategies",
               "original_claim_url", "required_reannotation"]


def read_averitec(path: Path, text: str) -> Draft:
    """Each record's index in the array is its id; each answer becomes `qa` evidence."""
    return Draft(path=path, source_format="averitec", name_hint=path.stem,
                 claims=_claims(path, text), label_space=AVERITEC)


def _claims(path: Path, text: str) -> Iterator[DraftClaim]:
    for located in iter_json_array(path, text):
        reader = RecordReader(path, located, show_record=True)
        fields = {
            "external_id": str(located.record),
            "text": reader.text("claim", required=True),
            "raw_label": reader.text("label", required=True),
            "justification": reader.text("justification", long=True),
            "claim_date": reader.date("claim_date", "%d-%m-%Y"),
            "source": reader.text("speaker"),
            "article_url": reader.text("fact_checking_article"),
            "attributes": {k: reader.record[k] for k in _ATTRIBUTES if reader.record.get(k) is not None},
            "evidence": _qa_evidence(reader),
        }
        yield DraftClaim(reader, fields, {"text": "claim", "raw_label": "label"})


def _qa_evidence(reader: RecordReader) -> list[dict]:
    items: list[dict] = []
    for q_index, value in enumerate(reader.items("questions")):
        question_reader = reader.nested(value, f"questions[{q_index}].")
        question = question_reader.text("question", required=True)
        answers = question_reader.items("answers")
        if not answers:
            items.append(_qa(len(items), question, None, {"question_index": q_index}))
        for a_index, answer in enumerate(answers):
            answer_reader = question_reader.nested(answer, f"answers[{a_index}].")
            item = _qa(len(items), question, answer_reader.text("answer", long=True),
                       {"question_index": q_index})
            item["url"] = answer_reader.text("source_url")
            item["answer_type"] = answer_reader.text("answer_type")
            item["explanation"] = answer_reader.text("boolean_explanation", long=True)
            medium = answer_reader.text("source_medium")
            if medium:
                item["attributes"]["source_medium"] = medium
            cached = answer_reader.text("cached_source_url")
            if cached and cached != item["url"]:
                item["attributes"]["cached_source_url"] = cached
            items.append(item)
    return items


def _qa(rank: int, question: str, answer: str | None, attributes: dict) -> dict:
    return {"kind": "qa", "rank": rank, "question": question, "text": answer,
            "attributes": dict(attributes)}
