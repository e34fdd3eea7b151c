"""Images of claims, read at import: a file path (relative to the data file's folder, and
never outside it) or a URL (kept as it is: nothing is downloaded).

A file becomes its bytes with their sha256, type, size and dimensions; one that is
missing, empty, not an image, too big, or named with a path that leaves the data folder
is a warning naming file, record and path (the claim is kept without it; --strict
refuses the file).
"""

from __future__ import annotations

import hashlib
import io
import json
import warnings as python_warnings
from pathlib import Path
from typing import Any

from workbench.importers import values as convert
from workbench.importers.common import DraftClaim

MAX_IMAGE_BYTES = 50 * 1024 * 1024
"""Bigger files are not stored (a claim's picture is not a 50 MB file)."""
MIME_TYPES = {
    "PNG": "image/png",
    "JPEG": "image/jpeg",
    "GIF": "image/gif",
    "WEBP": "image/webp",
    "BMP": "image/bmp",
    "TIFF": "image/tiff",
}
FIELD = "images"


def image_references(value: Any, where: convert.Where, field: str) -> list[str]:
    """A mapped images value: one path or URL, or a list of them."""
    if convert.absent(value):
        return []
    if isinstance(value, str) and value.lstrip().startswith("["):  # a CSV cell holding a JSON list
        try:
            value = json.loads(value)
        except ValueError:
            pass
    items = value if isinstance(value, list) else [value]
    references = []
    for item in items:
        if isinstance(item, dict):  # {"path": ...} or {"url": ...}, as some files write it
            item = item.get("path") or item.get("url") or item.get("src") or item.get("file")
        if convert.absent(item):
            continue
        if not isinstance(item, str):
            raise where.error(field, f"an image is a path or a URL, not {type(item).__name__}")
        references.append(item.strip())
    return references


NOT_READ = "images_not_read"
"""The attribute that keeps the paths of images that could not be read, as the file gives them."""


def attach_images(draft: DraftClaim, folder: Path, where: convert.Where) -> None:
    """Replace the draft's image references by what was read of each (`where`: its record);
    a path that cannot be read (missing, outside the folder, not an image) is kept in the
    attribute images_not_read, and its warning says why."""
    references = draft.fields.get(FIELD) or []
    if not references:
        return
    field = draft.source_names.get(FIELD, FIELD)
    found, not_read = [], []
    for reference in references:
        image = read_image(reference, folder, where, field)
        if image is None:
            not_read.append(reference)
        else:
            image["rank"] = len(found)
            found.append(image)
    draft.fields[FIELD] = found
    if not_read:
        attributes = draft.fields.setdefault("attributes", {})
        key = NOT_READ
        while key in attributes:  # the file's own attribute of that name stays
            key += "'"
        attributes[key] = not_read


def read_image(reference: str, folder: Path, where: convert.Where, field: str) -> dict | None:
    """One image as the store takes it, or None (with a warning saying why)."""
    if reference.lower().startswith(("http://", "https://")):
        return {"source": reference, "url": reference}
    path = _inside(reference, folder)
    if path is None:
        where.warn(
            field,
            f"image path {reference!r} leads outside the data folder (not read); {_KEPT}",
            "image outside the folder",
        )
        return None
    try:
        data = path.read_bytes() if path.stat().st_size <= MAX_IMAGE_BYTES else None
    except OSError as error:
        where.warn(field, f"image {reference!r}: {error.strerror or 'cannot be read'}; {_KEPT}", "image not readable")
        return None
    if data is None:
        where.warn(
            field, f"image {reference!r} is over {MAX_IMAGE_BYTES // 2**20} MB (not stored); {_KEPT}", "image too big"
        )
        return None
    if not data:
        where.warn(field, f"image {reference!r} is an empty file; {_KEPT}", "image not readable")
        return None
    described = describe_image(data)
    if isinstance(described, str):
        where.warn(field, f"image {reference!r} {described}; {_KEPT}", "image not readable")
        return None
    mime, width, height = described
    return {
        "source": reference,
        "sha256": hashlib.sha256(data).hexdigest(),
        "mime": mime,
        "bytes": len(data),
        "width": width,
        "height": height,
        "data": data,
    }


_KEPT = f"its path kept as attr.{NOT_READ}"


def describe_image(data: bytes) -> tuple[str, int, int] | str:
    """(mime type, width, height) of image bytes, or what is wrong with them."""
    from PIL import Image, UnidentifiedImageError

    try:
        with python_warnings.catch_warnings():
            python_warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                image.verify()
                kind, (width, height) = image.format, image.size
    except (UnidentifiedImageError, Image.DecompressionBombWarning, Image.DecompressionBombError) as error:
        return "has too many pixels" if "pixels" in str(error) else "is not an image"
    except (OSError, SyntaxError, ValueError):
        return "is a damaged image"
    mime = MIME_TYPES.get(kind or "")
    if mime is None:
        return f"is a {kind} image (PNG, JPEG, GIF, WebP, BMP and TIFF are read)"
    return mime, width, height


def _inside(reference: str, folder: Path) -> Path | None:
    """The file a reference names, if it lies inside `folder` (links resolved)."""
    base = folder.resolve()
    candidate = (base / reference).resolve()
    return candidate if candidate.is_relative_to(base) else None
