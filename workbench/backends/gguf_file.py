"""Reading a GGUF file's header (metadata) and content hash without loading the model.

The run's identity needs the file's sha256, its quantisation and its chat template
before any work starts; loading weights for that would be slow and noisy.
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

# llama.cpp's llama_ftype numbers (general.file_type) for the common quantisations.
FILE_TYPES = {
    0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K",
    11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S",
    17: "Q5_K_M", 18: "Q6_K", 19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S", 22: "IQ3_XS",
    23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL", 26: "IQ3_S", 27: "IQ3_M", 28: "IQ2_S",
    29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16",
}
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q",
            11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
_digests: dict[tuple[str, int, int], str] = {}


class NotGGUF(ValueError):
    """The file is not a GGUF model this reader understands."""


@dataclass(frozen=True)
class GGUFInfo:
    path: Path
    sha256: str
    quantisation: str
    chat_template: str | None
    name: str | None


def read_info(path: Path) -> GGUFInfo:
    """The identity facts of a GGUF file (raises FileNotFoundError or NotGGUF)."""
    path = Path(path)
    metadata = read_metadata(path)
    file_type = metadata.get("general.file_type")
    quantisation = FILE_TYPES.get(file_type, f"type {file_type}") if file_type is not None else "unknown"
    return GGUFInfo(path, file_sha256(path), quantisation,
                    metadata.get("tokenizer.chat_template"), metadata.get("general.name"))


def file_sha256(path: Path) -> str:
    """The file's sha256, remembered per (path, size, mtime) for this process."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if key not in _digests:
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
        _digests[key] = digest.hexdigest()
    return _digests[key]


def read_metadata(path: Path) -> dict[str, Any]:
    """The key-value header of a GGUF v2/v3 file (arrays are skipped)."""
    with Path(path).open("rb") as handle:
        if handle.read(4) != b"GGUF":
            raise NotGGUF(f"{path} is not a GGUF file (no GGUF signature at its start)")
        version = _unpack(handle, "<I")
        if version not in (2, 3):
            raise NotGGUF(f"{path} is GGUF version {version}; versions 2 and 3 are supported")
        _unpack(handle, "<Q")  # the tensor count: only the metadata after it is read
        kv_count = _unpack(handle, "<Q")
        metadata = {}
        for _ in range(kv_count):
            key = _string(handle)
            metadata[key] = _value(handle, _unpack(handle, "<I"))
        return metadata


def _value(handle: BinaryIO, value_type: int) -> Any:
    if value_type == _STRING:
        return _string(handle)
    if value_type == _ARRAY:
        item_type, count = _unpack(handle, "<I"), _unpack(handle, "<Q")
        if item_type in _SCALARS:  # skip the block in one seek
            handle.seek(struct.calcsize(_SCALARS[item_type]) * count, 1)
        else:
            for _ in range(count):
                _value(handle, item_type)
        return None
    if value_type not in _SCALARS:
        raise NotGGUF(f"{handle.name}: unknown metadata value type {value_type}")
    return _unpack(handle, _SCALARS[value_type])


def _string(handle: BinaryIO) -> str:
    length = _unpack(handle, "<Q")
    data = handle.read(length)
    if len(data) != length:
        raise NotGGUF(f"{handle.name}: the header ends early (truncated file?)")
    return data.decode("utf-8", errors="replace")


def _unpack(handle: BinaryIO, fmt: str) -> Any:
    size = struct.calcsize(fmt)
    data = handle.read(size)
    if len(data) != size:
        raise NotGGUF(f"{handle.name}: the header ends early (truncated file?)")
    return struct.unpack(fmt, data)[0]
