"""Which CSV sniffer reads the shapes issue 31 met: clevercsv, DuckDB's sniff_csv, or the
standard library's csv.Sniffer (each after the bytes are decoded: BOM, UTF-8, else
charset-normalizer). For each file of a generated shape set it checks the delimiter, the
header verdict and the column count, and times each sniffer and its import.

    python bench/bench_sniffers.py          (candidates not installed are skipped)
"""

from __future__ import annotations

import csv
import importlib
import io
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROWS = [
    ["1", "Vaccines cause autism.", "false", "2020-01-02"],
    ["2", 'He said "no", then left; it was | 5 @ noon.', "true", "2021-03-04"],
    ["3", "Line one\nline two of one cell", "half-true", "2019-12-31"],
    ["4", "ワクチンは不妊の原因になる。", "false", "2022-05-06"],
    ["5", "Café prices rose 5%, the mayor said.", "mostly-true", "2018-07-08"],
]
HEADER = ["id", "claim", "label", "date"]


def shapes() -> list[tuple[str, bytes, str, bool, int]]:
    """(name, bytes, delimiter, has header, columns) for each shape of the set."""
    found = []
    for delimiter in [",", ";", "\t", "|", "@"]:
        for header in (True, False):
            found.append((f"delim {delimiter!r} header={header}", _write(delimiter, header), delimiter, header, 4))
    found.append(("pandas index column (blank first cell)", _write(",", True, index=True), ",", True, 5))
    found.append(("duplicate header cells", _write(";", True, names=["id", "claim", "claim", "date"]), ";", True, 4))
    found.append(("utf-8 with BOM", b"\xef\xbb\xbf" + _write(",", True), ",", True, 4))
    found.append(("utf-16 with BOM", _write("\t", True).decode().encode("utf-16"), "\t", True, 4))
    found.append(("cp932 (Japanese Excel)", _write(",", True, encoding="cp932", latin=False), ",", True, 4))
    found.append(("cp1252", _write(";", True, encoding="cp1252", japanese=False), ";", True, 4))
    found.append(
        (
            "LIAR-like headerless TSV",
            "\n".join(
                "\t".join([f"{n}.json", label, f"Claim {n} said x.", "tax"])
                for n, label in [(2635, "false"), (10540, "half-true"), (324, "mostly-true"), (1123, "false")]
            ).encode(),
            "\t",
            False,
            4,
        )
    )
    french = (
        "id;affirmation;verdict\n1;Le maire a dit, hier, que les prix, les loyers, et les taxes montent;faux\n"
        "2;Selon lui, oui, non, peut-être;vrai\n3;Rien, rien, rien, à signaler;faux\n"
    ).encode()
    found.append(("semicolon file with commas in unquoted text", french, ";", True, 3))
    found.append(("header and one row", b"claim,label\nThe sky is green,false\n", ",", True, 2))
    found.append(
        (
            "CRLF, empty cells, pipe",
            b"id|claim|label|note\r\n1|A claim||\r\n2|Another one|true|x\r\n3|Third|false|\r\n",
            "|",
            True,
            4,
        )
    )
    text_only = "\n".join(
        f"{claim}\t{label}"
        for claim, label in [
            ("Vaccines cause autism", "false"),
            ("The moon is made of rock", "true"),
            ("Coffee cures cancer in mice", "mostly-false"),
            ("Paris is in France", "true"),
        ]
    ).encode()
    found.append(("headerless, text columns only", text_only, "\t", False, 2))
    return found


def _write(
    delimiter: str, header: bool, index: bool = False, names=None, encoding="utf-8", japanese=True, latin=True
) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    if header:
        writer.writerow(([""] if index else []) + (names or HEADER))
    for number, row in enumerate(ROWS):
        if (not japanese and "ワ" in row[1]) or (not latin and "é" in row[1]):
            continue
        writer.writerow(([str(number)] if index else []) + row)
    return out.getvalue().encode(encoding)


def decoded(data: bytes) -> str:
    for bom, codec in ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16")):
        if data.startswith(bom):
            return data.decode(codec)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        from charset_normalizer import from_bytes

        return str(from_bytes(data).best())


def with_stdlib(path: Path, data: bytes):
    text = decoded(data)
    sniffer = csv.Sniffer()
    dialect = sniffer.sniff(text, delimiters=",;\t|@")
    return dialect.delimiter, sniffer.has_header(text), len(next(csv.reader(io.StringIO(text), dialect)))


def with_clevercsv(path: Path, data: bytes):
    import clevercsv

    text = decoded(data)
    dialect = clevercsv.Sniffer().sniff(text, delimiters=[",", ";", "\t", "|", "@"])
    header = clevercsv.Sniffer().has_header(text)
    return dialect.delimiter, header, len(next(clevercsv.reader(io.StringIO(text), dialect)))


def with_duckdb(path: Path, data: bytes):
    import duckdb

    text = decoded(data)
    utf8 = path.with_suffix(".utf8.csv")
    utf8.write_text(text, encoding="utf-8")
    row = duckdb.sql(f"SELECT Delimiter, HasHeader, Columns FROM sniff_csv('{utf8}')").fetchall()[0]
    return row[0], row[1], len(row[2])


def import_seconds(module: str) -> float | None:
    try:
        importlib.import_module(module)
    except ImportError:
        return None
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", f"import {module}"], check=True)
    bare = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return (bare - started) - (time.perf_counter() - bare)


def main() -> None:
    candidates = {
        "csv.Sniffer+charset-normalizer": (with_stdlib, "charset_normalizer"),
        "clevercsv": (with_clevercsv, "clevercsv"),
        "duckdb sniff_csv": (with_duckdb, "duckdb"),
    }
    cases = shapes()
    with tempfile.TemporaryDirectory() as folder:
        for name, (sniff, module) in candidates.items():
            try:
                importlib.import_module(module)
            except ImportError:
                print(f"{name}: not installed (skipped)")
                continue
            right, seconds, misses = 0, 0.0, []
            for number, (case, data, delimiter, header, columns) in enumerate(cases):
                path = Path(folder) / f"{number}.csv"
                path.write_bytes(data)
                started = time.perf_counter()
                try:
                    found = sniff(path, data)
                except Exception as error:  # noqa: BLE001 (a sniffer that gives up is a miss, named)
                    found = (f"error {type(error).__name__}",)
                seconds += time.perf_counter() - started
                if found == (delimiter, header, columns):
                    right += 1
                else:
                    misses.append(f"{case}: got {found}")
            cost = import_seconds(module)
            print(
                f"{name}: {right}/{len(cases)} shapes right, {seconds * 1000 / len(cases):.1f} ms a file,"
                f" import {cost * 1000:.0f} ms"
            )
            for miss in misses:
                print(f"    miss  {miss}")


if __name__ == "__main__":
    main()
