"""Parquet and Arrow files (pyarrow), a batch of rows at a time.

Hugging Face datasets store a class label as an integer and its names in the file's
schema metadata (Parquet, key b"huggingface") or in dataset_info.json (save_to_disk);
rows come out with the names, so `claim_label: 3` reads `DISPUTED`, as the dataset's
authors wrote it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from workbench.importers.reading import BadInput
from workbench.importers.sources import open_binary


def parquet_batches(path: Path, batch_size: int) -> Iterator[list[dict]]:
    """Rows of a Parquet file as dicts, `batch_size` at a time."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        handle = open_binary(path)
        parquet = pq.ParquetFile(handle)
    except (pa.ArrowInvalid, pa.ArrowIOError, OSError, EOFError) as error:
        raise BadInput(path, f"is not a Parquet file ({_reason(error)})") from None
    names = class_names(_hf_features(parquet.schema_arrow.metadata))
    try:
        for batch in parquet.iter_batches(batch_size=batch_size):
            yield [name_classes(row, names) for row in batch.to_pylist()] if names else batch.to_pylist()
    except (pa.ArrowInvalid, pa.ArrowIOError, OSError) as error:
        raise BadInput(path, f"cannot be read as Parquet ({_reason(error)})") from None
    finally:
        handle.close()


def arrow_batches(path: Path, features: dict | None) -> Iterator[list[dict]]:
    """Rows of an Arrow IPC file (stream or file form), a record batch at a time."""
    import pyarrow as pa

    names = class_names(features)
    try:
        source = pa.memory_map(str(path))
        try:
            reader = pa.ipc.open_stream(source)
        except pa.ArrowInvalid:
            reader = pa.ipc.open_file(source)
        names = names or class_names(_hf_features(reader.schema.metadata))
        batches = (
            reader if hasattr(reader, "__iter__") else (reader.get_batch(i) for i in range(reader.num_record_batches))
        )
        for batch in batches:
            rows = batch.to_pylist()
            yield [name_classes(row, names) for row in rows] if names else rows
    except (pa.ArrowInvalid, pa.ArrowIOError, OSError) as error:
        raise BadInput(path, f"is not an Arrow file ({_reason(error)})") from None


def _reason(error: BaseException) -> str:
    return str(error).splitlines()[0][:200] if str(error) else type(error).__name__


def _hf_features(metadata: dict | None) -> dict | None:
    """The feature types a Hugging Face writer left in a schema's metadata, if any."""
    raw = (metadata or {}).get(b"huggingface")
    if not raw:
        return None
    try:
        return json.loads(raw).get("info", {}).get("features")
    except (ValueError, AttributeError):
        return None


def class_names(features: Any) -> Any:
    """From HF features, a tree holding only what has class names: {field: names | subtree}
    (a list of names for a ClassLabel; [subtree] for a list of them); None when nothing has."""
    if isinstance(features, list) and features:  # the old way of writing a list feature
        inner = class_names(features[0])
        return [inner] if inner is not None else None
    if not isinstance(features, dict):
        return None
    kind = features.get("_type")
    if kind == "ClassLabel":
        return list(features.get("names") or []) or None
    if kind in ("Sequence", "List", "LargeList"):
        inner = class_names(features.get("feature"))
        return [inner] if inner is not None else None
    if kind is not None:
        return None
    tree = {key: found for key, value in features.items() if (found := class_names(value)) is not None}
    return tree or None


def name_classes(value: Any, names: Any) -> Any:
    """`value` with every class-label integer replaced by its name (per the names tree)."""
    if names is None or value is None:
        return value
    if isinstance(names, list) and names and isinstance(names[0], (dict, list)):  # a list of subtrees
        return [name_classes(item, names[0]) for item in value] if isinstance(value, list) else value
    if isinstance(names, list):  # a ClassLabel
        if isinstance(value, list):
            return [name_classes(item, names) for item in value]
        if value == -1:  # how Hugging Face writes "no label" (test splits)
            return None
        return names[value] if isinstance(value, int) and 0 <= value < len(names) else value
    if isinstance(value, dict):
        return {key: name_classes(item, names.get(key)) for key, item in value.items()}
    return value
