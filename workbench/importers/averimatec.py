"""AVerImaTeC (FEVER-9, 2026) files: the gold claims (image-text claims with question-answer
evidence whose questions and answers may be images) and a system's predictions in the shared
task's layout, brought in as a dataset and as a finished run.

Both files are JSON arrays matched by position, as the organisers' scorer matches them (a
record's `id` or `claim_id`, when it has one, is used instead). Gold records hold claim_text,
claim_images, date, location, label, justification and questions (question, input_images,
answers with answer_type, answer_text, image_answers, boolean_explanation). A prediction
holds questions (strings), evidence (items of text and images, the text naming its images
[IMG_1], [IMG_2], ...), verdict and justification.

An image is a path (looked up in the images folder, by default the file's own) or a URL (kept
as it is). Every fault refuses the whole file with its path, item and field: nothing is written.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from store import Dataset, Prediction, Run, Store
from workbench import labels
from workbench.choices import DATA_VERSION_KEY
from workbench.importers import values as convert
from workbench.importers.images import read_image
from workbench.importers.reading import BadInput

GOLD_FIELDS = ("claim_text", "label", "questions")
PREDICTION_FIELDS = ("questions", "evidence", "verdict", "justification")


@dataclass
class AverimatecImport:
    """What an import did: the dataset's claims, or the run made from predictions."""

    kind: str
    """gold or predictions."""
    count: int
    images: int
    dataset: str
    run: Run | None = None


class _Refusing(convert.Where):
    """Where every image problem is an error (an AVerImaTeC file refers to its images on purpose)."""

    def warn(self, field: str, message: str, kind: str) -> None:
        raise self.error(field, message)


def import_averimatec(
    store: Store, path: Path, dataset: str, run_name: str | None = None, images_dir: Path | None = None
) -> AverimatecImport:
    """Import a gold file into `dataset`, or a predictions file as a run on it (told apart
    by their fields); BadInput naming file, item and field for any fault, nothing written."""
    records = _records(path)
    folder = images_dir or path.parent
    if all(isinstance(r, dict) and "claim_text" in r for r in records):
        return _import_gold(store, path, records, dataset, folder)
    if all(isinstance(r, dict) and "verdict" in r for r in records):
        return _import_predictions(store, path, records, dataset, run_name, folder)
    raise BadInput(path, "neither AVerImaTeC gold claims (claim_text, label, questions) nor predictions (verdict, ...)")


def _records(path: Path) -> list:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise BadInput(path, f"cannot read the file: {error}") from None
    except json.JSONDecodeError as error:
        raise BadInput(path, f"not JSON: {error.msg}", line=error.lineno) from None
    if not isinstance(found, list) or not found:
        raise BadInput(path, "expected a non-empty JSON array of records, one per claim")
    return found


def _where(path: Path, item: int) -> _Refusing:
    return _Refusing(str(path), None, item, None)


def _text(record: dict, field: str, where: convert.Where, required: bool = True, shown: str = "") -> str:
    """The text in `field` (`shown`: the field's name in errors, e.g. questions[2].question)."""
    value = record.get(field)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise where.error(shown or field, f"expected text, found {json.dumps(value)[:60]}")
    return value


def _list(record: dict, field: str, where: convert.Where, shown: str = "") -> list:
    """The list in `field` (none: empty; `shown`: the field's name in errors)."""
    value = record.get(field)
    if value is None:
        return []
    if not isinstance(value, list):
        raise where.error(shown or field, f"expected a list, found {type(value).__name__}")
    return value


class _Images:
    """The images a file refers to, read once each; what evidence keeps of them."""

    def __init__(self, folder: Path):
        self.folder, self.read = folder, {}

    def full(self, reference: Any, where: convert.Where, field: str) -> dict:
        """The image as read (bytes included), or a URL kept as it is."""
        if not isinstance(reference, str) or not reference.strip():
            raise where.error(field, f"an image is a path or a URL, not {json.dumps(reference)[:40]}")
        image = read_image(self._in_folder(reference.strip()), self.folder, where, field)
        image["source"] = reference.strip()  # as the file wrote it
        if image.get("sha256"):
            self.read[image["sha256"]] = image
        return image

    def _in_folder(self, reference: str) -> str:
        """The reference, or its file name when only that is in the images folder (the task's
        files name some images with the folder they were made in, which a user's copy lacks)."""
        if reference.lower().startswith(("http://", "https://")) or (self.folder / reference).is_file():
            return reference
        name = reference.replace("\\", "/").rsplit("/", 1)[-1]
        return name if name and (self.folder / name).is_file() else reference

    def refer(self, reference: Any, where: convert.Where, field: str) -> dict:
        """What evidence keeps of an image: its source and its sha256 (or URL)."""
        image = self.full(reference, where, field)
        if image.get("sha256"):
            return {"source": image["source"], "sha256": image["sha256"], "mime": image["mime"]}
        return {"source": image["source"], "url": image["url"]}

    def rows(self) -> list[dict]:
        return list(self.read.values())


def _import_gold(store: Store, path: Path, records: list, dataset: str, folder: Path) -> AverimatecImport:
    images = _Images(folder)
    claims = [_gold_claim(record, n, _where(path, n), images) for n, record in enumerate(records)]
    _unique([c["external_id"] for c in claims], path)
    target = Dataset(name=dataset, source_format="averimatec", label_space=labels.AVERITEC, source_path=str(path))
    store.datasets.import_claims(target, [(claim, _digest(claim)) for claim in claims], images.rows())
    return AverimatecImport("gold", len(claims), len(images.read), dataset)


def _digest(claim: dict) -> str:
    """The claim's content hash, from its record without the image bytes (as the importer does)."""
    from store import Claim, validated
    from store.datasets import claim_hash

    shown = [{key: value for key, value in image.items() if key != "data"} for image in claim["images"]]
    return claim_hash(validated(Claim, {**claim, "images": shown}))


def _gold_claim(record: dict, item: int, where: convert.Where, images: _Images) -> dict:
    raw = _text(record, "label", where, required=False)  # the test split has no labels
    label = labels.normalise_gold(raw, labels.AVERITEC) if raw.strip() else None
    if raw.strip() and label is None:
        raise where.error("label", f"{raw!r} is not an AVerImaTeC label ({', '.join(labels.AVERITEC.labels)})")
    claim_images = [images.full(r, where, "claim_images") for r in _list(record, "claim_images", where)]
    evidence = [
        _gold_evidence(question, n, where, images) for n, question in enumerate(_list(record, "questions", where))
    ]
    location = record.get("location")
    return {
        "external_id": str(record.get("id", record.get("claim_id", item))),
        "text": _text(record, "claim_text", where),
        "label": label,
        "raw_label": raw or None,
        "justification": _text(record, "justification", where, required=False) or None,
        "claim_date": _text(record, "date", where, required=False) or None,
        "attributes": {"location": location} if isinstance(location, str) and location else {},
        "evidence": evidence,
        "images": [{**image, "rank": rank} for rank, image in enumerate(claim_images)],
    }


def _gold_evidence(question: Any, n: int, where: convert.Where, images: _Images) -> dict:
    """One question with all its answers: one evidence item, as the task counts evidence."""
    field = f"questions[{n}]"
    if not isinstance(question, dict):
        raise where.error(field, "expected an object with question and answers")
    found = [
        images.refer(r, where, f"{field}.input_images")
        for r in _list(question, "input_images", where, f"{field}.input_images")
    ]
    text = _text(question, "question", where, required=False, shown=f"{field}.question")
    answers, types = [], []
    for k, answer in enumerate(_list(question, "answers", where, f"{field}.answers")):
        if not isinstance(answer, dict):
            raise where.error(f"{field}.answers[{k}]", "expected an object")
        kind = str(answer.get("answer_type") or "")
        types.append(kind)
        shown = f"{field}.answers[{k}].image_answers"
        for reference in _list(answer, "image_answers", where, shown) if kind == "Image" else []:
            found.append(images.refer(reference, where, shown))
            answers.append(f"[IMG_{len(found)}]")
        if kind != "Image":
            answers.append(str(answer.get("answer_text") or ""))
        if kind == "Boolean" and answer.get("boolean_explanation"):
            answers.append(str(answer["boolean_explanation"]))
    return {
        "kind": "qa",
        "rank": n,
        "question": text.replace("\n", "; "),
        "text": " ".join(a for a in answers if a).replace("\n", "; "),
        "answer_type": ", ".join(t for t in types if t) or None,
        "attributes": {"question_index": n, "images": found},
    }


def _unique(ids: list[str], path: Path) -> None:
    seen: dict[str, int] = {}
    for n, key in enumerate(ids):
        if key in seen:
            raise BadInput(path, f"id {key!r} again (first at item {seen[key]})", record=n, field="id")
        seen[key] = n


def _import_predictions(
    store: Store, path: Path, records: list, dataset: str, run_name: str | None, folder: Path
) -> AverimatecImport:
    target = store.datasets.get(dataset)
    if target is None:
        names = ", ".join(d.name for d in store.datasets.list()) or "none; import the gold file first"
        raise BadInput(path, f"no dataset {dataset!r}; datasets: {names}")
    by_id = store.claims.ids_by_external_id(target.id)
    images = _Images(folder)
    claim_ids, predictions = [], []
    for n, record in enumerate(records):
        where = _where(path, n)
        key = str(record.get("id", record.get("claim_id", n)))
        if key not in by_id:
            raise where.error("id", f"no claim {key!r} in dataset {dataset} (predictions match claims by position)")
        if by_id[key] in claim_ids:
            raise where.error("id", f"a second prediction for claim {key!r}")
        claim_ids.append(by_id[key])
        predictions.append(_prediction(record, by_id[key], where, images, target))
    run = _run(path, run_name, target.id)
    run.name = store.runs.unique_name(run.name)
    run.versions[DATA_VERSION_KEY] = store.claims.content_hash(claim_ids)
    from store.connection import atomic

    with atomic(store.runs.db):  # the images and the run together, or nothing
        store.claims.keep_images(images.rows())
        created = store.runs.create_with_predictions(run, claim_ids, predictions)
    return AverimatecImport("predictions", len(predictions), len(images.read), dataset, created)


def _prediction(record: dict, claim_id: int, where: convert.Where, images: _Images, dataset: Dataset) -> Prediction:
    questions = _list(record, "questions", where)
    for k, question in enumerate(questions):
        if not isinstance(question, str):
            raise where.error(f"questions[{k}]", "a question is text")
    evidence = []
    for k, item in enumerate(_list(record, "evidence", where)):
        if not isinstance(item, dict):
            raise where.error(f"evidence[{k}]", "expected an object with text and images")
        place = f"evidence[{k}].images"
        shown = [images.refer(r, where, place) for r in _list(item, "images", where, place)]
        evidence.append({"text": _text(item, "text", where, required=False), "images": shown})
    raw = _text(record, "verdict", where, required=False)
    verdict = labels.normalise(raw, dataset.label_space)
    justification = _text(record, "justification", where, required=False)
    parsed = {"questions": questions, "evidence": evidence, "justification": justification}
    return Prediction(
        run_id=0,
        claim_id=claim_id,
        status="ok" if verdict else "parse_failure",
        verdict=verdict,
        raw_verdict=raw,
        explanation=justification or None,
        raw_output=json.dumps(record, ensure_ascii=False),
        parsed=parsed,
        error=None if verdict else f"verdict {raw!r} is not in the dataset's label space",
    )


def _run(path: Path, run_name: str | None, dataset_id: int) -> Run:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return Run(
        name=run_name or f"imported-{path.stem}",
        dataset_id=dataset_id,
        model=f"imported:{path.stem}",
        model_identity={"backend": "imported", "file": path.name, "sha256": digest, "profile": "averimatec"},
        setting="imported",
        status="finished",
        config_key=f"imported:{digest}",
        notes=f"imported from {path} (AVerImaTeC predictions)",
    )
