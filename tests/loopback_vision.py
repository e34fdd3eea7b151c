"""A scripted vision model for the loopback OpenAI-compatible server: it answers the image
probe, writes contamination articles (a "memorised" one when it is shown the claim's
image, a blank one from the text alone) and extracts evidence lists, so the contamination
pipeline and search runs can be driven end to end over real HTTP.

    with LoopbackServer("openai", answer=VisionModel(articles).answer) as server: ...
"""

from __future__ import annotations

import base64
import hashlib
import json
import re

FORGOTTEN = (
    "I have no record of this claim. Nothing in what I know speaks to it either way. "
    "A reader should look for primary sources."
)


def image_urls(body: dict) -> list[str]:
    """Every image_url the request's messages carry, in order."""
    found = []
    for message in body.get("messages") or []:
        content = message.get("content")
        for part in content if isinstance(content, list) else []:
            if isinstance(part, dict) and part.get("type") == "image_url":
                found.append(part["image_url"]["url"])
    return found


def image_hashes(body: dict) -> list[str]:
    """The sha256 of each data-URL image the request carries."""
    return [
        hashlib.sha256(base64.b64decode(url.split(",", 1)[1])).hexdigest()
        for url in image_urls(body)
        if url.startswith("data:")
    ]


def last_text(body: dict) -> str:
    """The text of the request's last user message (its text parts joined)."""
    users = [m for m in body.get("messages") or [] if m.get("role") == "user"]
    content = users[-1]["content"] if users else ""
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return content or ""


class VisionModel:
    """articles: claim text -> the article the model "remembers" once it sees the image."""

    def __init__(self, articles: dict[str, str]):
        self.articles = articles
        self.seen: list[dict] = []

    def answer(self, body: dict) -> str:
        self.seen.append(body)
        text = last_text(body)
        if "What colour is this image?" in text:
            return "Red"
        if "<<<" in text:  # an extraction request: the article's first sentences as evidence
            article = text.split("<<<", 1)[1].split(">>>", 1)[0]
            sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", article) if len(s.strip()) > 3]
            return json.dumps({"evidence": sentences[:5]})
        claim = text.split("Claim:", 1)[1].splitlines()[0].strip() if "Claim:" in text else ""
        if image_urls(body) and claim in self.articles:
            return self.articles[claim]
        return FORGOTTEN
