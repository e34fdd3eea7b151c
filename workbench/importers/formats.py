"""One reader per file format, each giving the file's records one at a time (Located:
the record, its line or position, its file). JSONL, CSV/TSV, Parquet and Arrow stream,
so a file of any size is read in bounded memory; a JSON document is read whole.

Structural faults (invalid JSON, a CSV quote never closed, a file that is not Parquet)
are BadInput naming file and line; a stray blank row or a row with too few cells is a
content oddity: a warning, and the row is skipped or its missing cells left empty.
"""

from __future__ import annotations

import codecs
import csv
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from workbench.importers.meter import ReadMeter
from workbench.importers.reading import LONG_FIELD_CHARS, BadInput, Located, decode_json, iter_json_array
from workbench.importers.sniffing import DELIMITER_NAMES, column_names, sniff
from workbench.importers.sources import Source, open_binary
from workbench.importers.warnings import ImportWarning, ImportWarnings

PARQUET_BATCH = 4096


@dataclass
class ReadOptions:
    """How to read a file beyond its format (from the profile or the command line)."""

    columns: list[str] | None = None
    """Names of the columns of a CSV/TSV without a header row."""
    records: str | None = None
    """For a JSON object: the field that holds the list of records."""
    quoting: bool | None = None
    """CSV/TSV: read "..." as quotes (default: yes for CSV, no for TSV)."""
    warnings: ImportWarnings = field(default_factory=ImportWarnings)
    meter: ReadMeter | None = None
    """Counts what is read (for a progress line) and stops the reading on a cancel."""


def read_records(source: Source, options: ReadOptions) -> Iterator[Located]:
    """Every record of every data file of the source, in order; positions count on across shards."""
    offset, meter = 0, options.meter
    for path in source.files:
        count = 0
        for located in _reader(source.format)(path, options, source):
            located.record += offset
            located.path = path if len(source.files) > 1 or path != source.path else None
            count += 1
            if meter is not None:
                meter.record()
            yield located
        offset += count
        if meter is not None:
            meter.file_read(path)
    if meter is not None:
        meter.finished_reading()


def _reader(format: str):
    return {
        "jsonl": jsonl_records,
        "json": json_records,
        "csv": delimited_records,
        "tsv": delimited_records,
        "parquet": parquet_records,
        "arrow": arrow_records,
        "claimreview": claimreview_records,
    }[format]


def text_lines(path: Path, encoding: str = "utf-8", meter: ReadMeter | None = None) -> Iterator[tuple[int, str]]:
    """(line number, text) of a text file in `encoding` (BOM and any line ending accepted), as it is read."""
    decoder = codecs.getincrementaldecoder(encoding)()
    number, pending = 0, ""
    with open_binary(path) as handle:
        for raw in iter(lambda: handle.read(1 << 20), b""):
            if meter is not None:
                meter.read(len(raw))
            try:
                text = decoder.decode(raw)
            except UnicodeDecodeError as error:
                raise _undecodable(path, raw, error, number + pending.count("\n"), encoding) from None
            # Only \n ends a line (str.splitlines would also split at U+2028, \x0c, \x85,
            # which real text carries inside JSON strings and CSV cells); \r\n keeps its \r.
            lines = (pending + text).split("\n")
            pending = lines.pop()
            lines = [line + "\n" for line in lines]
            for line in lines:
                number += 1
                yield number, line.removeprefix("\ufeff") if number == 1 else line
        if pending:
            yield number + 1, pending.removeprefix("\ufeff") if number == 0 else pending


def _undecodable(path: Path, raw: bytes, error: UnicodeDecodeError, lines_before: int, encoding: str) -> BadInput:
    line = lines_before + raw[: error.start].count(b"\n") + 1
    column = error.start - (raw.rfind(b"\n", 0, error.start) + 1) + 1
    name = "UTF-8" if encoding in ("utf-8", "utf-8-sig") else encoding
    return BadInput(
        path,
        f"not {name} text (byte 0x{raw[error.start]:02x} at column {column}); name the file's"
        " encoding with --encoding (e.g. cp1252, cp932, utf-16)",
        line=line,
    )


def _lines(path: Path, source: Source, options: ReadOptions | None = None) -> Iterator[tuple[int, str]]:
    encoding = source.shape.encoding if source.shape is not None else "utf-8"
    return text_lines(path, encoding, options.meter if options is not None else None)


def jsonl_records(path: Path, options: ReadOptions, source: Source) -> Iterator[Located]:
    """One JSON object per non-blank line."""
    record = 0
    for number, line in _lines(path, source, options):
        if not line.strip():
            continue
        value = decode_json(path, line.rstrip("\r\n"), number)
        if not isinstance(value, dict):
            raise BadInput(path, f"expected a JSON object, got {type(value).__name__}", line=number)
        yield Located(number, record, value)
        record += 1


def json_records(path: Path, options: ReadOptions, source: Source) -> Iterator[Located]:
    """A JSON document: an array of records, an object of records keyed by id, or an object
    with the list of records in one field (options.records, else its only list of objects)."""
    text = "".join(line for _, line in _lines(path, source, options))
    if not text.strip():
        raise BadInput(path, "the file is empty")
    if text.lstrip().startswith("["):
        yield from iter_json_array(path, text)
        return
    document = decode_json(path, text)
    if not isinstance(document, dict):
        raise BadInput(path, f"expected a JSON array or object of records, got {type(document).__name__}")
    field_name = options.records or _list_field(document)
    if field_name is not None:
        records = document.get(field_name)
        if not isinstance(records, list):
            raise BadInput(
                path, f"has no list of records in field {field_name!r}; its fields: {', '.join(list(document)[:20])}"
            )
        options.warnings.note(f"records read from the field {field_name!r} of the JSON object")
        yield from _listed(path, records)
        return
    if document and all(isinstance(value, dict) for value in document.values()):
        options.warnings.note("records read from a JSON object keyed by id (each key is the record's id)")
        for index, (key, value) in enumerate(document.items()):
            yield Located(None, index, value, key=str(key))
        return
    yield Located(1, 0, document)  # a single record


def _list_field(document: dict) -> str | None:
    lists = [
        key
        for key, value in document.items()
        if isinstance(value, list) and value and all(isinstance(item, dict) for item in value)
    ]
    return lists[0] if len(lists) == 1 and not all(isinstance(v, dict) for v in document.values()) else None


def _listed(path: Path, records: list) -> Iterator[Located]:
    for index, value in enumerate(records):
        if not isinstance(value, dict):
            raise BadInput(path, f"expected a JSON object, got {type(value).__name__}", record=index)
        yield Located(None, index, value)


def delimited_records(path: Path, options: ReadOptions, source: Source) -> Iterator[Located]:
    """Delimited rows as records, in the dialect sniffed (sniffing.py): named by the header
    row, or by options.columns."""
    csv.field_size_limit(LONG_FIELD_CHARS)
    shape = source.shape if source.shape is not None else sniff(path, source.format)
    quoting = options.quoting if options.quoting is not None else shape.quoting
    lines = _LineCounter(_lines(path, source, options))
    # strict: a quote never closed is an error, not a cell that swallows the rest of the file.
    rows = csv.reader(
        lines, delimiter=shape.delimiter or ",", strict=True, quoting=csv.QUOTE_MINIMAL if quoting else csv.QUOTE_NONE
    )
    names = options.columns
    header_row = names is not None and bool(shape.header)
    if names is None and shape.header is False:
        raise BadInput(
            path,
            "has no header row: name its columns with --columns a,b,c (or say --header if its first row names them)",
        )
    record = 0
    while True:
        start = lines.number + 1
        try:
            row = next(rows, None)
        except csv.Error as error:
            raise BadInput(
                path,
                f"malformed {source.format.upper()} in the row starting here: {error}{_dialect_hint(shape)}",
                line=start,
            ) from None
        if row is None:
            return
        if not any(cell.strip() for cell in row):
            options.warnings.add(ImportWarning(str(path), "a blank row (skipped)", line=start, kind="blank row"))
            continue
        if names is None or header_row:  # with --header --columns, the names given replace the row's
            names, header_row = names or column_names(row)[0], False
            continue
        yield Located(start, record, _cells(path, row, names, start, options, shape))
        record += 1


def _dialect_hint(shape) -> str:
    """How the rows were split, and the flag that splits them otherwise."""
    delimiter = DELIMITER_NAMES.get(shape.delimiter, repr(shape.delimiter))
    return f" (read as {delimiter}-delimited; if the file uses another delimiter, say --delimiter CHAR)"


def first_row(source: Source) -> list[str]:
    """The first non-blank row of delimited text, in its sniffed dialect ([] if unreadable)."""
    shape = source.shape
    lines = (text for _, text in _lines(source.files[0], source))
    rows = csv.reader(lines, delimiter=shape.delimiter, quoting=csv.QUOTE_MINIMAL if shape.quoting else csv.QUOTE_NONE)
    try:
        return next((row for row in rows if any(cell.strip() for cell in row)), [])
    except csv.Error:
        return []


def _cells(path: Path, row: list[str], names: list[str], line: int, options: ReadOptions, shape) -> dict:
    """A row as {column: cell}; an empty cell is "" (a mapped field reads it as no value, an
    unmapped column keeps it as an "" attribute)."""
    if len(row) > len(names):
        if options.columns is None:
            raise BadInput(
                path, f"this row has {len(row)} cells; the header has {len(names)}{_dialect_hint(shape)}", line=line
            )
        options.warnings.add(
            ImportWarning(
                str(path),
                f"{len(row)} cells where {len(names)} columns are named; the extra cells joined to the last column",
                line=line,
                field=names[-1],
                kind="extra cells joined to the last column",
            )
        )
        row = row[: len(names) - 1] + ["\t".join(row[len(names) - 1 :])]
    elif len(row) < len(names):
        options.warnings.add(
            ImportWarning(
                str(path),
                f"{len(row)} cells where {len(names)} columns are named; the rest left empty",
                line=line,
                kind="row with too few cells",
            )
        )
    return {name: cell for name, cell in zip(names, row) if name}


class _LineCounter:
    """Lines for csv.reader, counting them (a quoted cell may span lines)."""

    def __init__(self, lines: Iterator[tuple[int, str]]):
        self.lines, self.number = lines, 0

    def __iter__(self):
        return self

    def __next__(self) -> str:
        self.number, line = next(self.lines)
        return line


def parquet_records(path: Path, options: ReadOptions, source: Source) -> Iterator[Located]:
    """Parquet rows, read a batch of rows at a time; Hugging Face ClassLabel integers named."""
    from workbench.importers.columnar import parquet_batches

    yield from _rows(parquet_batches(path, PARQUET_BATCH))


def arrow_records(path: Path, options: ReadOptions, source: Source) -> Iterator[Located]:
    """Arrow IPC files as `datasets.save_to_disk` writes them."""
    from workbench.importers.columnar import arrow_batches

    yield from _rows(arrow_batches(path, source.features))


def _rows(batches) -> Iterator[Located]:
    index = 0
    for rows in batches:
        for row in rows:
            yield Located(None, index, row)
            index += 1


def claimreview_records(path: Path, options: ReadOptions, source: Source) -> Iterator[Located]:
    """ClaimReview files: one record per review (workbench/importers/claimreview)."""
    from workbench.importers.claimreview.reading import review_records

    yield from review_records(path, options, source)
