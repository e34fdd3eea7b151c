"""Messy benchmark files, generated (hypothesis): the shapes real files come in, not fixtures.

`messy_files()` draws a MessyFile: rows with an id, a claim, a label in any spelling and a
few more columns whose names may be blank, repeated or in Japanese, Chinese or Arabic;
cells with delimiters, quotes, line breaks, empty cells and "NaN"; evidence as a string, a
list of strings, a list of objects, FEVER-style pointer arrays or nothing; written as CSV with any
of , ; tab | @, or as JSON / JSON Lines (sometimes under the other's name); in UTF-8, UTF-8
with a BOM, UTF-16 with a BOM, cp1252 (Western text), or Shift_JIS / cp932 (Japanese text).
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass, field

from hypothesis import strategies as st

DELIMITERS = [",", ";", "\t", "|", "@"]
UNICODE_ENCODINGS = ["utf-8", "utf-8-sig", "utf-16"]
# Letters of several scripts, and the characters that make delimited text hard.
LETTERS = (
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZéüñç"
    + "富士山東京塔疫苗芝加哥"
    + "ワクチンメートル"
    + "كاذبصحيح"
)
HARD = ",;\t|@\"' \n"
# Whole sentences for the legacy encodings (a code page is told from real words, not noise).
WESTERN = [
    "Le café coûte deux euros à Noël",
    "Die Straße bleibt geschlossen, sagt der Bürgermeister",
    "El niño comió piñas; nadie lo vio",
    "Ça coûte 5 € « selon lui »",
    "Zoë's façade: naïve, déjà vu",
]
JAPANESE = [
    "ワクチンは不妊の原因になると投稿された",
    "富士山は日本で一番高い山である",
    "東京タワーの高さは333メートルである",
    "水道水を飲むと病気になるという主張",
    "この写真は去年の台風のものだと言われている",
]
LABELS = [
    "true",
    "TRUE",
    "False",
    "false",
    "Supported",
    "REFUTES",
    "Not Enough Info",
    "yes",
    "No",
    "pants-fire",
    "Vrai",
    "正しい",
    "誤り",
    "كاذب",
    "mostly true",
    "Half True",
]
# Extra column names: blank, repeated, or of several scripts (letters no profile maps).
NAMES = st.sampled_from(["", "label", "claim", "注記", "来源", "مصدر", "qx", "zq note", "x.1"]) | st.text(
    "qxzワク注記来源مصدر", min_size=1, max_size=5
)


@dataclass
class MessyFile:
    name: str
    data: bytes
    format: str
    encoding: str
    rows: list[dict] = field(default_factory=list)
    """Each row's cells by the name the import gives them (pandas-style for a header)."""
    delimiter: str | None = None
    evidence: list = field(default_factory=list)
    """Each row's evidence value as written (absent: no evidence field)."""


def _evidence(encoding: str, delimited: bool):
    """Evidence as files give it: one passage, passages, objects with text, FEVER pointers
    ([[[annotation, evidence, page, sentence]]]), or empty. A delimited file holds text only."""
    text = _text(encoding).filter(str.strip)  # blank text is no passage: "" stands for that
    if delimited:
        return text | st.just("")
    return st.one_of(
        text,
        st.lists(text, min_size=1, max_size=3),
        st.lists(st.builds(lambda t: {"text": t}, text), min_size=1, max_size=2),
        st.lists(
            st.lists(
                st.tuples(
                    st.integers(0, 9999),
                    st.integers(0, 9999),
                    st.sampled_from(["Tokyo", "Fuji_(mountain)"]),
                    st.integers(0, 40),
                ).map(list),
                min_size=1,
                max_size=2,
            ),
            min_size=1,
            max_size=2,
        ),
        st.sampled_from(["", [], None]),
    )


def _text(encoding: str, min_size: int = 1):
    if encoding == "cp1252":
        return st.sampled_from(WESTERN)
    if encoding in ("cp932", "shift_jis"):
        return st.sampled_from(JAPANESE)
    return st.text(LETTERS + HARD, min_size=min_size, max_size=24)


def _claim(encoding: str):
    # A claim is text with a letter in it (blank claims are another test's subject).
    return _text(encoding).filter(lambda text: text.strip() and text == text.strip())


def _cell(encoding: str):
    return st.sampled_from(["", "NaN"]) | _text(encoding, 0)


def _label(encoding: str):
    if encoding == "cp1252":
        return st.sampled_from([label for label in LABELS if _encodable(label, "cp1252")])
    if encoding in ("cp932", "shift_jis"):
        return st.sampled_from([label for label in LABELS if _encodable(label, encoding)])
    return st.sampled_from(LABELS)


def _encodable(text: str, encoding: str) -> bool:
    try:
        text.encode(encoding)
        return True
    except UnicodeEncodeError:
        return False


def pandas_names(names: list[str]) -> list[str]:
    """What a reader that names columns as pandas does calls them."""
    used, out = set(), []
    for index, name in enumerate(names):
        name = name.strip()
        if not name:
            name = f"Unnamed: {index}"
        elif name in used:
            base, count = name, 1
            while f"{base}.{count}" in used:
                count += 1
            name = f"{base}.{count}"
        used.add(name)
        out.append(name)
    return out


@st.composite
def messy_files(draw) -> MessyFile:
    kind = draw(st.sampled_from(["csv", "json", "jsonl"]))
    encoding = draw(st.sampled_from(UNICODE_ENCODINGS + ["cp1252", "cp932", "shift_jis"]))
    extra = draw(st.lists(NAMES.filter(lambda name: _encodable(name, encoding)), max_size=3))
    count = draw(st.integers(2, 5))
    rows = [
        [str(number + 1), draw(_claim(encoding)), draw(_label(encoding)), *[draw(_cell(encoding)) for _ in extra]]
        for number in range(count)
    ]
    header = ["id", "claim", "label", *extra]
    with_evidence = draw(st.booleans()) and "evidence" not in extra
    evidence = [draw(_evidence(encoding, kind == "csv")) for _ in rows] if with_evidence else []
    if with_evidence:
        header.append("evidence")
        rows = [[*row, value] for row, value in zip(rows, evidence)]
    if kind == "csv":
        delimiter = draw(st.sampled_from(DELIMITERS))
        out = io.StringIO()
        csv.writer(out, delimiter=delimiter, lineterminator=draw(st.sampled_from(["\n", "\r\n"]))).writerows(
            [header, *rows]
        )
        names = pandas_names(header)
        text, name = out.getvalue(), "messy.csv"
    else:
        delimiter = None
        names = list(dict.fromkeys(name for name in header if name))  # JSON keys: one of each, none blank
        records = [{key: _json_value(row[header.index(key)]) for key in names} for row in rows]
        if kind == "json":
            text = json.dumps(records, ensure_ascii=False, indent=draw(st.sampled_from([None, 1])))
        else:
            text = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
        # Named as its kind, or as the other one (the content decides).
        name = draw(st.sampled_from([f"messy.{kind}", "messy.jsonl" if kind == "json" else "messy.json"]))
        rows = [[record.get(key) for key in names] for record in records]
    return MessyFile(
        name, text.encode(encoding), kind, encoding, [dict(zip(names, row)) for row in rows], delimiter, evidence
    )


def _json_value(cell):
    """JSON holds real NaN where a CSV holds the text "NaN"."""
    return math.nan if cell == "NaN" else cell
