"""Images in chat messages, from the workbench's neutral form to each provider's.

A rendered message that carries images has a list as its content:

    [{"type": "text", "text": "..."},
     {"type": "image", "sha256": "ab12...", "mime": "image/png"}      # bytes in the request
     {"type": "image", "url": "https://..."}]                         # a URL-only image

The bytes travel beside the messages (CompletionRequest.images, by sha256), so the
response cache's key holds the hashes, not megabytes of base64. Each provider's limits
are met by scaling an image down (never up) and saying so in the answer's record:
OpenAI takes 20 MB per image, Anthropic 5 MB and 8,000 pixels a side; a local model is
given at most 2,048 pixels a side (bigger only costs time).
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from typing import Any

LIMITS = {"openai": (20 * 2**20, 16_000), "anthropic": (5 * 2**20, 8_000), "gguf": (20 * 2**20, 2_048)}
"""Provider -> (bytes, pixels on the longer side) an image may have."""
SENDABLE = {"image/png", "image/jpeg", "image/gif", "image/webp"}


@dataclass(frozen=True)
class ImageData:
    mime: str
    data: bytes


def has_images(messages: list[dict]) -> bool:
    return any(isinstance(m.get("content"), list) for m in messages)


def openai_messages(messages: list[dict], images: dict[str, ImageData], provider: str = "openai") -> list[dict]:
    """Chat Completions content parts: text, and image_url with a data URL (or the URL)."""
    return [
        _converted(m, lambda part: {"type": "image_url", "image_url": {"url": _url(part, images, provider)}})
        for m in messages
    ]


def anthropic_messages(messages: list[dict], images: dict[str, ImageData]) -> list[dict]:
    """Messages API content blocks: text, and image blocks (base64, or a URL source)."""

    def block(part: dict) -> dict:
        if part.get("url"):
            return {"type": "image", "source": {"type": "url", "url": part["url"]}}
        mime, data = fitted(images[part["sha256"]], "anthropic")
        return {
            "type": "image",
            "source": {"type": "base64", "media_type": mime, "data": base64.b64encode(data).decode("ascii")},
        }

    return [_converted(m, block) for m in messages]


def _converted(message: dict, image_part) -> dict:
    content = message.get("content")
    if not isinstance(content, list):
        return message
    parts = [{"type": "text", "text": part["text"]} if part["type"] == "text" else image_part(part) for part in content]
    return {**message, "content": parts}


def _url(part: dict, images: dict[str, ImageData], provider: str) -> str:
    if part.get("url"):
        return part["url"]
    mime, data = fitted(images[part["sha256"]], provider)
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def fitted(image: ImageData, provider: str) -> tuple[str, bytes]:
    """(mime, bytes) within the provider's limits and types: as stored when they fit,
    else scaled down (PNG stays PNG, anything else becomes JPEG)."""
    max_bytes, max_side = LIMITS.get(provider, LIMITS["openai"])
    if image.mime in SENDABLE and len(image.data) <= max_bytes and _longest_side(image.data) <= max_side:
        return image.mime, image.data
    return _scaled(image, max_bytes, max_side)


def _longest_side(data: bytes) -> int:
    from PIL import Image

    with Image.open(io.BytesIO(data)) as opened:
        return max(opened.size)


def _scaled(image: ImageData, max_bytes: int, max_side: int) -> tuple[str, bytes]:
    from PIL import Image

    with Image.open(io.BytesIO(image.data)) as opened:
        picture = opened.convert("RGBA" if image.mime == "image/png" else "RGB")
    mime, kind = ("image/png", "PNG") if image.mime == "image/png" else ("image/jpeg", "JPEG")
    side = min(max(picture.size), max_side)
    while True:
        scale = side / max(picture.size)
        resized = picture.resize((max(1, round(picture.width * scale)), max(1, round(picture.height * scale))))
        out = io.BytesIO()
        resized.save(out, kind, **({"quality": 85} if kind == "JPEG" else {"optimize": True}))
        if out.tell() <= max_bytes or side <= 64:
            return mime, out.getvalue()
        side = int(side * 0.75)


def probe_image() -> ImageData:
    """A 2x2 PNG, to ask a model once whether it takes images at all."""
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (2, 2), (200, 30, 30)).save(out, "PNG")
    return ImageData("image/png", out.getvalue())


def probe_messages(sha256: str) -> list[dict[str, Any]]:
    return [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What colour is this image? One word."},
                {"type": "image", "sha256": sha256, "mime": "image/png"},
            ],
        }
    ]
