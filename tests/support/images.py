"""Small real image files for the tests of claims with images."""

from __future__ import annotations

import io

from PIL import Image


def picture(path, size=(6, 4), colour=(10, 120, 200), kind="PNG") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, kind)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(out.getvalue())
    return out.getvalue()
