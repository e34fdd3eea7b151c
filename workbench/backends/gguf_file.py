"""Reading a GGUF file's header (metadata and tensor table) and content hash without
loading the model.

The run's identity needs the file's sha256, its quantisation and its chat template
before any work starts, and `workbench models` shows sizes, parameter counts and context
lengths of every model on the machine; loading weights for that would be slow and noisy.
The header is read through a memory map: only the pages it lies on are touched, even in
a file of many gigabytes.
"""

from __future__ import annotations

import hashlib
import mmap
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# llama.cpp's llama_ftype numbers (general.file_type) for the common quantisations.
FILE_TYPES = {
    0: "F32",
    1: "F16",
    2: "Q4_0",
    3: "Q4_1",
    7: "Q8_0",
    8: "Q5_0",
    9: "Q5_1",
    10: "Q2_K",
    11: "Q3_K_S",
    12: "Q3_K_M",
    13: "Q3_K_L",
    14: "Q4_K_S",
    15: "Q4_K_M",
    16: "Q5_K_S",
    17: "Q5_K_M",
    18: "Q6_K",
    19: "IQ2_XXS",
    20: "IQ2_XS",
    21: "Q2_K_S",
    22: "IQ3_XS",
    23: "IQ3_XXS",
    24: "IQ1_S",
    25: "IQ4_NL",
    26: "IQ3_S",
    27: "IQ3_M",
    28: "IQ2_S",
    29: "IQ2_M",
    30: "IQ4_XS",
    31: "IQ1_M",
    32: "BF16",
    36: "TQ1_0",
    37: "TQ2_0",
    38: "MXFP4",
}
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
_DEFAULT_ALIGNMENT = 32
_digests: dict[tuple[str, int, int], str] = {}


class NotGGUF(ValueError):
    """The file is not a GGUF model this reader understands (or it is cut short)."""


@dataclass(frozen=True)
class GGUFInfo:
    path: Path
    sha256: str
    quantisation: str
    chat_template: str | None
    name: str | None


@dataclass(frozen=True)
class Tensor:
    """One entry of the tensor table: its shape, storage type and place in the data."""

    name: str
    shape: tuple[int, ...]
    type: int
    offset: int

    @property
    def elements(self) -> int:
        count = 1
        for size in self.shape:
            count *= size
        return count


@dataclass(frozen=True)
class GGUFHeader:
    """Everything before the weights: the key-value metadata and the tensor table."""

    path: Path
    version: int
    metadata: dict[str, Any]
    """Scalar and string values; arrays are kept as their length (an int in `array_lengths`)."""
    tensors: list[Tensor]
    data_start: int
    file_size: int
    array_lengths: dict[str, int] = field(default_factory=dict)

    @property
    def parameters(self) -> int:
        """Weights in the file (the sum of every tensor's elements)."""
        return sum(t.elements for t in self.tensors)

    @property
    def architecture(self) -> str | None:
        value = self.metadata.get("general.architecture")
        return value if isinstance(value, str) else None

    @property
    def context_length(self) -> int | None:
        """The context the model was trained for (`ARCH.context_length`)."""
        value = self.metadata.get(f"{self.architecture}.context_length")
        return value if isinstance(value, int) else None

    @property
    def chat_template(self) -> str | None:
        value = self.metadata.get("tokenizer.chat_template")
        return value if isinstance(value, str) else None

    @property
    def is_projector(self) -> bool:
        """A vision (or audio) projector for a multimodal model, not a model of its own."""
        return self.metadata.get("general.type") == "mmproj" or self.architecture == "clip"

    @property
    def quantisation(self) -> str:
        """general.file_type's name, else the storage type holding most of the weights."""
        file_type = self.metadata.get("general.file_type")
        if isinstance(file_type, int):
            return FILE_TYPES.get(file_type, f"type {file_type}")
        return dominant_tensor_type(self.tensors)


def read_info(path: Path) -> GGUFInfo:
    """The identity facts of a GGUF file (raises FileNotFoundError or NotGGUF)."""
    header = read_header(path)
    # Without general.file_type the identity says "unknown", as it always has: a run's
    # identity must not change under it when the reader learns more.
    quantisation = header.quantisation if "general.file_type" in header.metadata else "unknown"
    return GGUFInfo(
        Path(path), file_sha256(Path(path)), quantisation, header.chat_template, header.metadata.get("general.name")
    )


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
    """The key-value header of a GGUF v2/v3 file (arrays are read as None)."""
    header = read_header(path, check_size=False)
    return {key: (None if key in header.array_lengths else value) for key, value in header.metadata.items()}


def read_header(path: Path, check_size: bool = True) -> GGUFHeader:
    """The metadata and tensor table; NotGGUF when the file is not one, or (with
    `check_size`) when it is shorter than its tensor table says (a download cut short)."""
    path = Path(path)
    with path.open("rb") as handle:
        size = path.stat().st_size
        if size < 24:
            raise NotGGUF(f"{path} is not a GGUF file ({size} bytes, shorter than a GGUF header)")
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as view:
            header = _Parser(view, path).header(size)
    if check_size:
        _check_complete(header)
    return header


def dominant_tensor_type(tensors: list[Tensor]) -> str:
    """The storage type of most of the weights (for files without general.file_type)."""
    if not tensors:
        return "unknown"
    weights: dict[int, int] = {}
    for tensor in tensors:
        weights[tensor.type] = weights.get(tensor.type, 0) + tensor.elements
    return tensor_type_name(max(weights, key=weights.get))


def tensor_type_name(type_number: int) -> str:
    """ggml's name for a tensor storage type (Q4_K, F16, ...)."""
    from gguf import GGMLQuantizationType

    try:
        return GGMLQuantizationType(type_number).name
    except ValueError:
        return f"type {type_number}"


def _check_complete(header: GGUFHeader) -> None:
    """NotGGUF when the file ends before its last tensor's data does."""
    from gguf import GGML_QUANT_SIZES, GGMLQuantizationType

    needed = 0  # a file without tensors ends with its header: no padding is owed
    for tensor in header.tensors:
        try:
            block, type_size = GGML_QUANT_SIZES[GGMLQuantizationType(tensor.type)]
        except (ValueError, KeyError):
            raise NotGGUF(f"{header.path}: tensor {tensor.name!r} has unknown storage type {tensor.type}") from None
        needed = max(needed, header.data_start + tensor.offset + tensor.elements // block * type_size)
    if header.file_size < needed:
        raise NotGGUF(
            f"{header.path} is cut short: its tensor table needs {needed:,} bytes, the file has"
            f" {header.file_size:,} (an interrupted download?)"
        )


class _Parser:
    """Reads the header fields in order from a memory map, with bounds checks."""

    def __init__(self, view: mmap.mmap, path: Path):
        self.view, self.path, self.at = view, path, 0

    def header(self, size: int) -> GGUFHeader:
        if self.view[:4] != b"GGUF":
            raise NotGGUF(f"{self.path} is not a GGUF file (no GGUF signature at its start)")
        self.at = 4
        version = self.unpack("<I")
        if version not in (2, 3):
            raise NotGGUF(f"{self.path} is GGUF version {version}; versions 2 and 3 are supported")
        tensor_count, kv_count = self.unpack("<Q"), self.unpack("<Q")
        metadata, lengths = {}, {}
        for _ in range(kv_count):
            key = self.string()
            value_type = self.unpack("<I")
            if value_type == _ARRAY:
                lengths[key] = self.skip_array()
                metadata[key] = lengths[key]
            else:
                metadata[key] = self.value(value_type)
        tensors = [self.tensor() for _ in range(tensor_count)]
        alignment = metadata.get("general.alignment")
        alignment = alignment if isinstance(alignment, int) and alignment > 0 else _DEFAULT_ALIGNMENT
        data_start = -(-self.at // alignment) * alignment
        return GGUFHeader(self.path, version, metadata, tensors, data_start, size, lengths)

    def tensor(self) -> Tensor:
        name = self.string()
        dims = self.unpack("<I")
        if dims > 8:
            raise NotGGUF(f"{self.path}: tensor {name!r} claims {dims} dimensions (a damaged file?)")
        shape = tuple(self.unpack("<Q") for _ in range(dims))
        return Tensor(name, shape, self.unpack("<I"), self.unpack("<Q"))

    def value(self, value_type: int) -> Any:
        if value_type == _STRING:
            return self.string()
        if value_type not in _SCALARS:
            raise NotGGUF(f"{self.path}: unknown metadata value type {value_type}")
        return self.unpack(_SCALARS[value_type])

    def skip_array(self) -> int:
        item_type, count = self.unpack("<I"), self.unpack("<Q")
        if item_type in _SCALARS:  # the whole block in one step
            self.need(struct.calcsize(_SCALARS[item_type]) * count)
            self.at += struct.calcsize(_SCALARS[item_type]) * count
        elif item_type == _STRING:
            view, at, end = self.view, self.at, len(self.view)
            for _ in range(count):  # a tokenizer's vocabulary: 100k+ strings, kept tight
                if at + 8 > end:
                    self.at = at
                    self.need(8)
                at += 8 + struct.unpack_from("<Q", view, at)[0]
            self.at = at
            self.need(0)
        else:
            for _ in range(count):
                self.value(item_type) if item_type != _ARRAY else self.skip_array()
        return count

    def string(self) -> str:
        length = self.unpack("<Q")
        self.need(length)
        data = self.view[self.at : self.at + length]
        self.at += length
        return data.decode("utf-8", errors="replace")

    def unpack(self, fmt: str) -> Any:
        size = struct.calcsize(fmt)
        self.need(size)
        value = struct.unpack_from(fmt, self.view, self.at)[0]
        self.at += size
        return value

    def need(self, size: int) -> None:
        if self.at + size > len(self.view):
            raise NotGGUF(f"{self.path} is cut short: the header ends early (an interrupted download?)")
