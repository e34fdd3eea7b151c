"""What a user names on `workbench import`: a file (maybe gzip-compressed), or a local
Hugging Face dataset folder with one data file or several shards per split.

    open_source(Path("fever/train.jsonl"))            one JSONL file
    open_source(Path("climate_fever.parquet"))         one Parquet file
    open_source(Path("liar/train.tsv.gz"))             gzip, read as it streams
    open_source(Path("hub/snapshot"), split="test")    a Hub snapshot or a save_to_disk folder

The format comes from the file name (.jsonl .json .csv .tsv .parquet .arrow, each also
.gz), else from the first bytes; `--format` overrides both.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from workbench.choices import IMPORT_FORMATS
from workbench.importers.claimreview.reading import FORMAT as CLAIMREVIEW
from workbench.importers.claimreview.reading import claimreview_files
from workbench.importers.reading import BadInput
from workbench.importers.sniffing import Overrides, Shape, open_binary, sniff

FILE_FORMATS = IMPORT_FORMATS[1:]
_SUFFIXES = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
    ".csv": "csv",
    ".tsv": "tsv",
    ".parquet": "parquet",
    ".arrow": "arrow",
}
_SPLIT_ALIASES = {"validation": ("validation", "valid", "val", "dev"), "dev": ("dev", "validation", "valid", "val")}
_SHARD = re.compile(r"^(?P<split>[A-Za-z0-9_]+?)(?:[-_]\d{5}-of-\d{5}|-\d{5})?(?:\.[a-z]+)+$")
MAGIC_PARQUET = b"PAR1"


@dataclass
class Source:
    """The data files to read, in order, and their format."""

    path: Path
    """What the user named (a file or a folder)."""
    files: list[Path]
    format: str
    split: str | None = None
    splits: list[str] = field(default_factory=list)
    """Every split a folder holds (empty for a single file)."""
    features: dict | None = None
    """Hugging Face feature types (dataset_info.json), to name ClassLabel integers."""
    shape: Shape | None = None
    """The first data file's shape, read from its bytes (sniffing.py): encoding, dialect, header."""

    @property
    def folder(self) -> Path:
        """Where relative paths inside the data (images) are looked up: the folder named,
        or the named file's folder."""
        return self.path if self.path.is_dir() else self.path.parent

    @property
    def name_hint(self) -> str:
        """A dataset name from the file or folder name (train.jsonl.gz -> train)."""
        base = self.path.name
        for suffix in (".gz", *_SUFFIXES, ".jsonld", ".html", ".htm"):
            base = base.removesuffix(suffix)
        return f"{base}-{self.split}" if self.split and self.path.is_dir() else base


def open_source(
    path: Path, format: str = "auto", split: str | None = None, overrides: Overrides | None = None
) -> Source:
    """The Source a path names, its shape sniffed from its first data file; BadInput for a
    path that holds nothing to read."""
    source = _found(Path(path), format, split)
    if source.format != CLAIMREVIEW:
        source.shape = sniff(source.files[0], source.format, overrides or Overrides())
        source.format = source.shape.format
    return source


def _found(path: Path, format: str, split: str | None) -> Source:
    if not path.exists():
        raise BadInput(path, "no such file")
    reviews = claimreview_files(path, format, split)  # ClaimReview markup, API pages, the feed
    if reviews is not None:
        return Source(path, reviews, CLAIMREVIEW)
    if path.is_dir():
        return _folder(path, format, split)
    if split is not None:
        raise BadInput(path, "--split is for a dataset folder; this is one file")
    if path.stat().st_size == 0:
        raise BadInput(path, "the file is empty")
    return Source(path, [path], _format_of(path, format))


def _format_of(path: Path, format: str) -> str:
    if format != "auto":
        if format not in FILE_FORMATS:
            raise BadInput(path, f"unknown format {format!r}; choose from auto, {', '.join(FILE_FORMATS)}")
        return format
    name = path.name.lower().removesuffix(".gz")
    for suffix, found in _SUFFIXES.items():
        if name.endswith(suffix):
            return found
    return _sniff(path)


def _sniff(path: Path) -> str:
    """The format from the first bytes, for a file whose name does not say."""
    try:
        with open_binary(path) as handle:
            head = handle.read(65536)
    except (OSError, EOFError) as error:
        raise BadInput(path, f"cannot be read: {error}") from None
    if head.startswith(MAGIC_PARQUET):
        return "parquet"
    if head[:6] == b"ARROW1" or head[4:8] == b"\xff\xff\xff\xff":
        return "arrow"
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if text.startswith("["):
        return "json"
    if text.startswith("{"):
        return "jsonl" if _first_line_is_object(text) else "json"
    return "csv"  # delimited text: the sniffer finds the delimiter (a tab makes it tsv)


def _first_line_is_object(text: str) -> bool:
    line = text.split("\n", 1)[0].strip()
    try:
        return isinstance(json.loads(line), dict)
    except (ValueError, RecursionError):
        return False


def _folder(path: Path, format: str, split: str | None) -> Source:
    """A save_to_disk folder (dataset_dict.json / state.json), else a Hub snapshot."""
    if (path / "dataset_dict.json").is_file():
        return _saved_dict(path, split)
    if (path / "state.json").is_file():
        return _saved_split(path, path, None, [])
    return _snapshot(path, format, split)


def _saved_dict(path: Path, split: str | None) -> Source:
    try:
        splits = list(json.loads((path / "dataset_dict.json").read_text(encoding="utf-8"))["splits"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise BadInput(path / "dataset_dict.json", f"cannot be read as a dataset dict: {error}") from None
    chosen = _choose_split(path, splits, split)
    return _saved_split(path, path / chosen, chosen, splits)


def _saved_split(path: Path, folder: Path, split: str | None, splits: list[str]) -> Source:
    files = sorted(folder.glob("*.arrow"))
    if not files:
        raise BadInput(folder, "holds no .arrow data files")
    features = None
    info = folder / "dataset_info.json"
    if info.is_file():
        try:
            features = json.loads(info.read_text(encoding="utf-8")).get("features")
        except (OSError, ValueError):
            features = None
    return Source(path, files, "arrow", split, splits, features)


def _snapshot(path: Path, format: str, split: str | None) -> Source:
    files = [f for f in sorted(path.rglob("*")) if f.is_file() and _data_format(f) and not f.name.startswith(".")]
    if not files:
        raise BadInput(path, "holds no data files (.jsonl .json .csv .tsv .parquet .arrow, maybe .gz)")
    by_split: dict[str, list[Path]] = {}
    for file in files:
        by_split.setdefault(_split_of(path, file), []).append(file)
    chosen = _choose_split(path, sorted(by_split), split)
    chosen_files = by_split[chosen]
    formats = {_format_of(f, format) for f in chosen_files}
    if len(formats) > 1:
        raise BadInput(path, f"split {chosen!r} mixes formats ({', '.join(sorted(formats))}); name one file")
    return Source(path, chosen_files, formats.pop(), chosen if len(by_split) > 1 or split else None, sorted(by_split))


def _data_format(file: Path) -> str | None:
    name = file.name.lower().removesuffix(".gz")
    return next((found for suffix, found in _SUFFIXES.items() if name.endswith(suffix)), None)


def _split_of(root: Path, file: Path) -> str:
    """train-00000-of-00002.parquet -> train; data/test.jsonl -> test; test/x.parquet -> test."""
    match = _SHARD.match(file.name)
    name = match.group("split").lower() if match else file.stem.lower()
    known = {alias for aliases in _SPLIT_ALIASES.values() for alias in aliases} | {"train", "test"}
    if name not in known and file.parent != root:
        parent = file.parent.name.lower()
        if parent in known:
            return parent
    return name


def _choose_split(path: Path, splits: list[str], wanted: str | None) -> str:
    if wanted is None:
        if len(splits) == 1:
            return splits[0]
        raise BadInput(path, f"holds the splits {', '.join(splits)}; choose one with --split")
    for candidate in _SPLIT_ALIASES.get(wanted.lower(), (wanted.lower(),)):
        for split in splits:
            if split.lower() == candidate:
                return split
    raise BadInput(path, f"has no split {wanted!r}; it holds {', '.join(splits)}")
