"""What an AVerImaTeC judge reads for one claim and one part: the gold side (a claim's
questions, its question-answer evidence with their images, its justification) and the
predicted side (what a run's imported answer holds), written as numbered items whose images
follow them as image parts when the judge takes images, or are named in words when it does not.

    reference = reference_items(claim, "evidence")     # [Item(text, images), ...]
    content = item_parts(reference, "R", vision=True)  # text and image parts of a message
"""

from __future__ import annotations

from dataclasses import dataclass, field

from store import Claim, Prediction

PARTS = ("questions", "evidence", "justification")
PART_WORDS = {"questions": "questions", "evidence": "image-text evidence", "justification": "justification"}


@dataclass(frozen=True)
class Item:
    """One numbered thing a side holds: a question, an evidence item, or a justification."""

    text: str
    images: list[dict] = field(default_factory=list)
    """{"source", "sha256", "mime"} for stored bytes, or {"source", "url"}."""


def reference_items(claim: Claim, part: str) -> list[Item]:
    """The gold side of a part: the claim's questions, its evidence (one item per question with
    all its answers and the images of both), or its justification (one item)."""
    if part == "justification":
        return [Item(claim.justification)] if (claim.justification or "").strip() else []
    questions = sorted((e for e in claim.evidence if e.kind == "qa"), key=lambda e: e.rank)
    if part == "questions":
        return [Item(e.question or "") for e in questions if (e.question or "").strip()]
    return [Item(_question_answer(e.question, e.text), list(e.attributes.get("images") or [])) for e in questions]


def _question_answer(question: str | None, answer: str | None) -> str:
    return f"Q: {question or ''} A: {answer or '(no answer)'}"


def predicted_items(prediction: Prediction | None, part: str) -> list[Item]:
    """The predicted side of a part, from an imported AVerImaTeC answer (empty when it has none)."""
    parsed = prediction.parsed if prediction is not None and isinstance(prediction.parsed, dict) else {}
    if part == "questions":
        return [Item(q) for q in parsed.get("questions") or [] if isinstance(q, str) and q.strip()]
    if part == "justification":
        text = parsed.get("justification") or ""
        return [Item(text)] if isinstance(text, str) and text.strip() else []
    items = [e for e in parsed.get("evidence") or [] if isinstance(e, dict)]
    return [Item(str(e.get("text") or ""), [i for i in e.get("images") or [] if isinstance(i, dict)]) for e in items]


def image_part(image: dict) -> dict:
    """A message part showing one image (bytes by sha256, or its URL)."""
    if image.get("sha256"):
        return {"type": "image", "sha256": image["sha256"], "mime": image.get("mime") or "image/png"}
    return {"type": "image", "url": image.get("url") or image.get("source")}


def item_parts(items: list[Item], mark: str, vision: bool) -> list[dict]:
    """Numbered items (R1, R2, ... or P1, P2, ...) as message parts; each item's images follow
    it, named [IMG_n] as the item's text names them, shown when `vision` else described."""
    if not items:
        return [{"type": "text", "text": "(none)"}]
    parts: list[dict] = []
    for number, item in enumerate(items, 1):
        parts.append({"type": "text", "text": f"{mark}{number}. {item.text}"})
        for k, image in enumerate(item.images, 1):
            if vision:
                parts.append({"type": "text", "text": f"[IMG_{k}] of {mark}{number}:"})
                parts.append(image_part(image))
            else:
                source = image.get("url") or image.get("source") or "an image"
                parts.append({"type": "text", "text": f"[IMG_{k}] of {mark}{number}: an image not shown ({source})"})
    return parts


def joined(parts: list[dict]) -> list[dict]:
    """Neighbouring text parts as one (a text-only message stays one string's worth of parts)."""
    found: list[dict] = []
    for part in parts:
        if part["type"] == "text" and found and found[-1]["type"] == "text":
            before = found[-1]["text"]
            found[-1] = {"type": "text", "text": before + ("" if before[-1:].isspace() else "\n") + part["text"]}
        else:
            found.append(dict(part))
    return found


def image_count(items: list[Item]) -> int:
    return sum(len(item.images) for item in items)
