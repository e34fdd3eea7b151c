"""Reading ClaimReview files into review units (shapes.py): JSON (one document, several
back to back as `cat page*.json` makes them, or JSON Lines), JSON-LD, saved fact-check
pages (their JSON-LD scripts and microdata, read with extruct), and folders of any mix.

`workbench import` reaches this as the `claimreview` format: chosen for .html/.htm/.jsonld
files, for JSON whose first bytes hold ClaimReview markup, an API page or the feed, and for
folders of such files (sources.open_source asks claimreview_source first).
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator
from pathlib import Path

from workbench.importers.claimreview.shapes import units
from workbench.importers.reading import BadInput, Located
from workbench.importers.warnings import ImportWarning

REVIEW_SUFFIXES = (".json", ".jsonl", ".ndjson", ".jsonld", ".html", ".htm")
HTML_SUFFIXES = (".html", ".htm")
LINE_SUFFIXES = (".jsonl", ".ndjson")
FORMAT = "claimreview"
_JSON_MARKERS = re.compile(
    rb'"claimReview"\s*:\s*\[|"dataFeedElement"\s*:|"@type"\s*:\s*\[?\s*"(?:schema:|https?://schema\.org/)?ClaimReview"'
)
HEAD_BYTES = 1 << 16


def claimreview_files(path: Path, format: str, split: str | None) -> list[Path] | None:
    """The ClaimReview files a path names, in reading order, or None when it is not one
    (then the other formats are tried)."""
    if format not in ("auto", FORMAT):
        return None
    if path.is_dir():
        files = _review_files(path)
        if format == "auto" and (
            not files or (path / "dataset_dict.json").is_file() or (path / "state.json").is_file()
        ):
            return None
        marked = [file for file in files[:50] if _marked(file)]
        if not marked:
            if format == FORMAT:
                raise BadInput(
                    path,
                    "holds no ClaimReview files (.json .jsonl .jsonld .html .htm with ClaimReview"
                    " markup, API pages or the DataCommons feed)",
                )
            return None
        # The first file is the one the import reads to pick its profile: one with reviews.
        files.remove(marked[0])
        return [marked[0], *files]
    if split is not None or path.stat().st_size == 0:
        return None
    name = path.name.lower().removesuffix(".gz")
    if format == FORMAT or name.endswith((".html", ".htm", ".jsonld")):
        return [path]
    if "." in name and not name.endswith((".json", *LINE_SUFFIXES)):
        return None
    return [path] if _marked(path) else None


def _review_files(folder: Path) -> list[Path]:
    return [
        file
        for file in sorted(folder.rglob("*"))
        if file.is_file()
        and not file.name.startswith(".")
        and file.name.lower().removesuffix(".gz").endswith(REVIEW_SUFFIXES)
    ]


def _marked(path: Path) -> bool:
    """The first bytes hold ClaimReview markup, an API page or the feed (pages: the word)."""
    try:
        with open_binary(path) as handle:
            head = handle.read(HEAD_BYTES)
    except (OSError, EOFError):
        return False
    if path.name.lower().removesuffix(".gz").endswith(HTML_SUFFIXES):
        return b"ClaimReview" in head or b"claimreview" in head.lower()
    return bool(_JSON_MARKERS.search(head))


def review_records(path: Path, options, source) -> Iterator[Located]:
    """The review units of one file, each Located at the line its document (or script) starts on."""
    warn = _warner(path, options.warnings)
    name = path.name.lower().removesuffix(".gz")
    if name.endswith(HTML_SUFFIXES):
        found = _page_units(path, warn)
    elif name.endswith(LINE_SUFFIXES):
        found = _line_units(path, warn)
    else:
        found = _document_units(path, warn)
    count = 0
    for line, unit in found:
        yield Located(line, count, unit)
        count += 1
    if not count:
        options.warnings.add(
            ImportWarning(
                str(path), "no ClaimReview in this file (nothing read from it)", kind="file without ClaimReview"
            )
        )


def _warner(path: Path, warnings):
    def warn(line: int | None, where: str, message: str) -> None:
        warnings.add(ImportWarning(str(path), message, line, None, where or None, "skipped in ClaimReview data"))

    return warn


def open_binary(path: Path):
    """The file's bytes, decompressed as they are read when it is gzip."""
    return gzip.open(path, "rb") if path.name.lower().endswith(".gz") else path.open("rb")


def _text(path: Path) -> str:
    """A file's text in the encoding its bytes show (sniffing.py: a BOM, UTF-8, else a legacy
    code page), a clear error naming the line otherwise."""
    from workbench.importers.sniffing import SAMPLE_BYTES, encoding_of

    try:
        with open_binary(path) as handle:
            data = handle.read()
    except (OSError, EOFError) as error:
        raise BadInput(path, f"cannot be read: {error}") from None
    encoding, _ = encoding_of(path, data[:SAMPLE_BYTES])
    try:
        return data.decode(encoding).removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        name = "UTF-8" if encoding.startswith("utf-8") else encoding
        raise BadInput(
            path, f"not {name} text (byte 0x{data[error.start]:02x})", line=data[: error.start].count(b"\n") + 1
        ) from None


def _document_units(path: Path, warn) -> Iterator[tuple[int, dict]]:
    """JSON documents back to back (one is the usual case), each one's reviews."""
    text = _text(path)
    if not text.strip():
        raise BadInput(path, "the file is empty")
    decoder, position, line, number = json.JSONDecoder(), 0, 1, 0
    while True:
        start = _skip_space(text, position)
        line += text.count("\n", position, start)
        if start >= len(text):
            return
        try:
            document, position = decoder.raw_decode(text, start)
        except json.JSONDecodeError as error:
            raise BadInput(path, f"invalid JSON: {error.msg} (column {error.colno})", line=error.lineno) from None
        except RecursionError:
            raise BadInput(path, "invalid JSON: nested too deeply to read", line=line) from None
        prefix = f"document[{number}]" if number or _more_after(text, position) else ""
        for unit in units(document, lambda where, message, line=line: warn(line, where, message), where=prefix):
            yield line, unit
        line += text.count("\n", start, position)
        number += 1


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n\ufeff":
        position += 1
    return position


def _more_after(text: str, position: int) -> bool:
    return _skip_space(text, position) < len(text)


def _line_units(path: Path, warn) -> Iterator[tuple[int, dict]]:
    """JSON Lines: one document (an API page, a ClaimReview, a feed) per line."""
    from workbench.importers.reading import decode_json

    for number, line in enumerate(_text(path).split("\n"), start=1):
        if line.strip():
            document = decode_json(path, line.rstrip("\r\n"), number)
            for unit in units(document, lambda where, message, number=number: warn(number, where, message)):
                yield number, unit


def _page_units(path: Path, warn) -> Iterator[tuple[int, dict]]:
    """A saved page's ClaimReview markup: every JSON-LD script, then microdata."""
    from lxml import etree
    from lxml import html as lxml_html

    from workbench.articles.html import decode_html, for_lxml, page_address

    with open_binary(path) as handle:
        text = decode_html(handle.read())
    if not text.strip():
        raise BadInput(path, "the file is empty")
    try:
        tree = lxml_html.fromstring(for_lxml(text))
    except (etree.ParserError, ValueError) as error:
        raise BadInput(path, f"cannot be read as HTML: {error}") from None
    page = page_address(text)
    yield from _json_ld_units(path, tree, page, warn)
    yield from _microdata_units(tree, page, warn)


def _json_ld_units(path: Path, tree, page: str | None, warn) -> Iterator[tuple[int, dict]]:
    from extruct.jsonld import JsonLdExtractor

    extractor = JsonLdExtractor()
    scripts = tree.xpath('descendant-or-self::script[@type="application/ld+json"]')
    for number, node in enumerate(scripts):
        where = f"script[{number}]"
        try:
            items = extractor.extract_items(node)
        except (ValueError, RecursionError) as error:
            if "claimreview" in node.xpath("string()").lower():
                raise BadInput(
                    path,
                    f"malformed JSON-LD in the page's ClaimReview <script> (JSON-LD script {number + 1}): {error}",
                    line=node.sourceline,
                ) from None
            warn(node.sourceline, where, f"malformed JSON-LD in a script that holds no ClaimReview (skipped): {error}")
            continue
        for unit in units(items, lambda at, message, node=node: warn(node.sourceline, at, message), page, where):
            yield node.sourceline or 1, unit


def _microdata_units(tree, page: str | None, warn) -> Iterator[tuple[int, dict]]:
    import extruct

    found = extruct.extract(tree, base_url=page, syntaxes=["microdata"], uniform=True, errors="ignore")
    for number, item in enumerate(found.get("microdata") or []):
        for unit in units(item, lambda at, message: warn(None, at, message), page, f"microdata[{number}]"):
            yield 1, unit


__all__ = ["FORMAT", "claimreview_files", "open_binary", "review_records"]
