"""The bytes of the images a prompt's messages show, read from the store: what a verdict run,
a task run and a search run's first turn send along with their text. (Here, the lowest layer
that sees both prompting and the backends' ImageData.)"""

from __future__ import annotations

from store import Store
from workbench.backends.images import ImageData
from workbench.prompting import PromptError


def image_bytes(store: Store, messages: list[dict]) -> dict[str, ImageData]:
    """The images the messages name, by sha256, read from the store (PromptError for one
    the database lacks)."""
    found = {}
    for message in messages:
        content = message.get("content")
        for part in content if isinstance(content, list) else []:
            if part.get("type") == "image" and part.get("sha256") and part["sha256"] not in found:
                data = store.claims.image_data(part["sha256"])
                if data is None:
                    raise PromptError(f"image {part['sha256'][:12]}… is missing from the database")
                found[part["sha256"]] = ImageData(part.get("mime") or "image/png", data)
    return found
