"""A file's shape read from its first bytes, before any mapping: JSON or JSON Lines by content
(not by name), the text encoding and how it was found, and for delimited text the dialect
and whether the first row names the columns.

    shape = sniff(Path("export.csv"), "csv")
    shape.encoding, shape.delimiter, shape.header, shape.columns, shape.notes

Encodings: a byte-order mark says it; else text that is valid UTF-8 is UTF-8; else
charset-normalizer names the legacy encoding (cp932/Shift_JIS from Japanese Excel, cp1252
from Western Windows). Dialects and headers: the standard library's csv.Sniffer, limited to
the delimiters , ; tab | @ (measured against clevercsv and DuckDB's sniff_csv in
bench/bench_sniffers.py; docs/formats.md has the figures). Header cells are named as pandas
names them: a blank cell "Unnamed: N", a repeated name "x.1", "x.2".
"""

from __future__ import annotations

import codecs
import csv
import gzip
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from workbench.importers.reading import BadInput

SAMPLE_BYTES = 1 << 16
"""How much of a file the sniffers look at (a file's first 64 KiB)."""
DELIMITERS = ",;\t|@"
DELIMITER_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe", "@": "at sign"}
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
TEXT_FORMATS = ("json", "jsonl", "csv", "tsv")


@dataclass(frozen=True)
class Overrides:
    """What the command line says about the shape (`--encoding`, `--delimiter`, `--header`)."""

    encoding: str | None = None
    delimiter: str | None = None
    header: bool | None = None


@dataclass
class Shape:
    """A plain description of a file: what it is and how it is read."""

    format: str
    encoding: str = "utf-8"
    """A Python codec name (utf-8, utf-8-sig, utf-16, cp932, cp1252, ...)."""
    encoding_found: str = "valid UTF-8"
    """How the encoding was found, in words."""
    delimiter: str | None = None
    quoting: bool = True
    """Delimited text: "..." quotes a cell (doubled "" inside it is one quote)."""
    quoted_newlines: bool = False
    doubled_quotes: bool = False
    """A quoted cell holds a quote, written twice ("")."""
    header: bool | None = None
    """Delimited text: the first row names the columns."""
    columns: list[str] | None = None
    """The column names as used (blank and repeated cells renamed), when there is a header."""
    notes: list[str] = field(default_factory=list)
    """What the import note says about the shape."""

    def describe(self) -> str:
        """One line: the format, encoding and dialect, as the import note says it."""
        parts = [self.format.upper() if self.format != "jsonl" else "JSON Lines"]
        parts.append(f"{self.encoding} ({self.encoding_found})")
        if self.delimiter is not None:
            parts.append(f"{DELIMITER_NAMES.get(self.delimiter, repr(self.delimiter))}-delimited")
            parts.append("quoted cells" if self.quoting else "no quoting")
            if self.doubled_quotes:
                parts.append('doubled quotes ("") inside them')
            if self.quoted_newlines:
                parts.append("line breaks inside quoted cells")
            parts.append(f"a header row ({', '.join(self.columns or [])})" if self.header else "no header row")
        return ", ".join(parts)


def sniff(path: Path, format: str, overrides: Overrides = Overrides(), quoting: bool | None = None) -> Shape:
    """The shape of a text file named as `format` (json, jsonl, csv, tsv); binary formats
    (parquet, arrow) are returned as they are."""
    if format not in TEXT_FORMATS:
        return Shape(format, encoding="", encoding_found="binary")
    head = _head(path)
    encoding, found = encoding_of(path, head, overrides.encoding)
    text = _decoded_head(head, encoding)
    shape = Shape(format, encoding, found)
    if encoding not in ("utf-8", "utf-8-sig"):
        shape.notes.append(f"read as {encoding} ({found})")
    if format in ("json", "jsonl"):
        _json_kind(path, shape, text, complete=len(head) < SAMPLE_BYTES)
    if shape.format in ("csv", "tsv"):
        _dialect(path, shape, text, overrides, quoting)
    return shape


def is_compressed(path: Path) -> bool:
    return path.name.lower().endswith(".gz")


def open_binary(path: Path):
    """The file's bytes, decompressed as they are read when it is gzip."""
    if is_compressed(path):
        return gzip.open(path, "rb")
    return path.open("rb")


def _head(path: Path) -> bytes:
    try:
        with open_binary(path) as handle:
            return handle.read(SAMPLE_BYTES)
    except (OSError, EOFError) as error:
        raise BadInput(path, f"cannot be read: {error}") from None


def encoding_of(path: Path, head: bytes, asked: str | None = None) -> tuple[str, str]:
    """The codec and how it was found: --encoding, a BOM, valid UTF-8, else charset-normalizer."""
    if asked:
        try:
            return codecs.lookup(asked).name, "--encoding"
        except LookupError:
            raise BadInput(
                path, f"unknown encoding {asked!r} for --encoding (e.g. utf-8, cp932, shift_jis, cp1252, utf-16)"
            ) from None
    for bom, codec in _BOMS:
        if head.startswith(bom):
            return codec, "byte-order mark"
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=len(head) < SAMPLE_BYTES)
        return "utf-8", "valid UTF-8"
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    # The code pages most legacy files are in go first: a short Western text also reads
    # cleanly as Baltic or Central European, and the common one is the likely one.
    for isolation in (list(COMMON_LEGACY), None):
        results = from_bytes(head, cp_isolation=isolation)
        best = results.best()
        if best is not None:
            tied = [match for match in results if (match.chaos, match.coherence) == (best.chaos, best.coherence)]
            candidates = [name for match in tied for name in (match.could_be_from_charset or [match.encoding])]
            return _preferred(candidates), "detected by charset-normalizer"
    return "utf-8", "valid UTF-8"  # nothing fits better: the reader names the first bad byte


COMMON_LEGACY = ("cp932", "shift_jis", "cp1252", "gb18030", "big5", "euc_kr", "cp1251", "cp1256", "cp1253")
"""Legacy encodings tried first, most common first (when several read the bytes as well)."""


def _preferred(candidates: list[str]) -> str:
    """The most common of the encodings that give the same text; Shift_JIS as cp932 (its
    Windows superset, what Japanese Excel writes)."""
    names = [codecs.lookup(name).name for name in candidates]
    for common in COMMON_LEGACY:
        if codecs.lookup(common).name in names:
            return "cp932" if common == "shift_jis" else codecs.lookup(common).name
    return {"iso8859-1": "cp1252"}.get(names[0], names[0])


def _decoded_head(head: bytes, encoding: str) -> str:
    text = codecs.getincrementaldecoder(encoding)(errors="replace").decode(head, final=False)
    return text.removeprefix("\ufeff")


def _json_kind(path: Path, shape: Shape, text: str, complete: bool) -> None:
    """JSON or JSON Lines, whatever the name says: an object per line is JSON Lines; one
    document (an array, or an object over several lines) is JSON. A first line longer than
    the sample cannot tell: the name decides."""
    named = shape.format
    stripped = text.lstrip()
    if stripped.startswith("["):
        shape.format = "json"
    elif stripped.startswith("{") and ("\n" in stripped or complete):
        first, _, rest = stripped.partition("\n")
        whole = _is_object(first)
        if whole and rest.strip():
            shape.format = "jsonl"
        elif not whole:
            shape.format = "json"
    if shape.format != named:
        said = "JSON Lines (one object per line)" if shape.format == "jsonl" else "one JSON document"
        shape.notes.append(f"{path.name} holds {said}: read as {shape.format}, not as its name says")


def _is_object(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except (ValueError, RecursionError):
        return False


def _dialect(path: Path, shape: Shape, text: str, overrides: Overrides, quoting: bool | None) -> None:
    """Delimiter, quoting and header from the standard library's sniffer (or the overrides)."""
    sample = _whole_lines(text)
    sniffer = csv.Sniffer()
    delimiter = overrides.delimiter
    if delimiter is not None:
        delimiter = {"tab": "\t", "\\t": "\t"}.get(delimiter, delimiter)
        if len(delimiter) != 1:
            raise BadInput(path, f"--delimiter wants one character (or tab), not {overrides.delimiter!r}")
    else:
        try:
            delimiter = sniffer.sniff(sample, delimiters=DELIMITERS).delimiter
        except csv.Error:  # one column, or too little text to tell: the name decides
            delimiter = "\t" if shape.format == "tsv" else ","
        delimiter = _steadier(sample, delimiter)
    shape.format = "tsv" if delimiter == "\t" else "csv"
    shape.delimiter = delimiter
    shape.quoting = quoting if quoting is not None else delimiter != "\t" or _quoted_tabs(sample)
    rows = _rows(sample, shape)
    shape.quoted_newlines = any("\n" in cell or "\r" in cell for row in rows for cell in row)
    shape.doubled_quotes = shape.quoting and any('"' in cell for row in rows for cell in row) and '""' in sample
    if overrides.header is not None:
        shape.header = overrides.header
    else:
        try:
            shape.header = _KnownDialect(shape).has_header(sample) if len(rows) > 1 else True
        except csv.Error:
            shape.header = True
    if shape.header and rows:
        shape.columns, renamed = column_names(rows[0])
        if renamed:
            shape.notes.append(f"header cells renamed as pandas names them: {', '.join(renamed)}")


class _KnownDialect(csv.Sniffer):
    """csv.Sniffer's header test run with the dialect already found (its own has_header
    would sniff again without the delimiters we allow)."""

    def __init__(self, shape: Shape):
        super().__init__()
        self.dialect = type(
            "Found",
            (csv.excel,),
            {"delimiter": shape.delimiter, "quoting": csv.QUOTE_MINIMAL if shape.quoting else csv.QUOTE_NONE},
        )

    def sniff(self, sample, delimiters=None):
        return self.dialect


def _steadier(sample: str, chosen: str) -> str:
    """The sniffer's delimiter, unless its rows are not of one width of two or more cells
    while another allowed delimiter's are (csv.Sniffer counts characters, and a few short
    rows of punctuation can outvote the tabs that split every line)."""

    def widths(delimiter: str) -> tuple[float, int]:
        rows = _rows(sample, Shape("csv", delimiter=delimiter, quoting=True))
        found = [len(row) for row in rows]
        if not found:
            return 0.0, 0
        common = max(set(found), key=found.count)
        return found.count(common) / len(found), common

    steady, width = widths(chosen)
    if steady == 1.0 and width > 1:
        return chosen
    better = [(widths(d), d) for d in DELIMITERS if d != chosen]
    better = [(score, d) for score, d in better if score[0] == 1.0 and score[1] > 1]
    return max(better)[1] if better else chosen


def _whole_lines(text: str) -> str:
    """The sample without its last, probably cut, line (unless it is all there is)."""
    cut = text.rfind("\n")
    return text[: cut + 1] if 0 < cut < len(text) - 1 and len(text) >= SAMPLE_BYTES // 4 else text


def _rows(sample: str, shape: Shape) -> list[list[str]]:
    import io

    reader = csv.reader(
        io.StringIO(sample, newline=""),
        delimiter=shape.delimiter,
        quoting=csv.QUOTE_MINIMAL if shape.quoting else csv.QUOTE_NONE,
    )
    rows = []
    try:
        for row in reader:
            if any(cell.strip() for cell in row):
                rows.append(row)
    except csv.Error:  # a quote the sample cut in two: the rows before it are enough
        pass
    return rows


_WHOLE_QUOTED_CELL = re.compile(r'(?:^|\t)"(?:[^"]|"")*"(?=\t|\r?$)', re.MULTILINE)


def _quoted_tabs(sample: str) -> bool:
    """Tab-separated text is read without quoting (LIAR's cells hold stray quotes) unless
    reading "..." as quotes gives rows of one width where reading them literally does not,
    or, widths equal, some cell is quoted whole (as csv.Sniffer finds quotes: beside delimiters)."""

    def steady(quoting: bool) -> float:
        rows = _rows(sample, Shape("tsv", delimiter="\t", quoting=quoting))
        widths = [len(row) for row in rows]
        return widths.count(max(set(widths), key=widths.count)) / len(widths) if widths else 0.0

    quoted, literal = steady(True), steady(False)
    return quoted > literal or (quoted == literal and bool(_WHOLE_QUOTED_CELL.search(sample)))


def column_names(cells: list[str]) -> tuple[list[str], list[str]]:
    """A header row's names as used, pandas-style (blank -> "Unnamed: N", a repeat of x ->
    "x.1"), and the renamings in words."""
    names, renamed, used = [], [], set()
    for index, cell in enumerate(cells):
        name = cell.strip().removeprefix("\ufeff")
        if not name:
            name = f"Unnamed: {index}"
            renamed.append(f"blank column {index + 1} -> {name!r}")
        elif name in used:
            base, count = name, 1
            while f"{base}.{count}" in used:
                count += 1
            name = f"{base}.{count}"
            renamed.append(f"repeated {base!r} (column {index + 1}) -> {name!r}")
        used.add(name)
        names.append(name)
    return names, renamed
