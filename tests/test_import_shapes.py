"""A file's shape read from its bytes (workbench/importers/sniffing.py): JSON or JSON Lines by
content, the CSV dialect and header, the encoding; the command-line overrides; ClaimReview's
flat exports; every profile on every format; errors that name the fix."""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.importers import ImportRequest, run_import
from workbench.importers.reading import BadInput

ROWS = [
    ("1", "The ferry is late.", "Refuted"),
    ("2", 'He said "no"; then | left @ noon, again.', "Supported"),
    ("3", "Line one\nline two of one cell", "Refuted"),
]


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def delimited(delimiter: str, header=("id", "claim", "label"), rows=ROWS, index: bool = False) -> str:
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    if header:
        writer.writerow(([""] if index else []) + list(header))
    for number, row in enumerate(rows):
        writer.writerow(([str(number)] if index else []) + list(row))
    return out.getvalue()


def texts(store, dataset: str) -> list[str]:
    return [store.claims.get(claim_id).text for claim_id in store.claims.ids(f"dataset:{dataset}")]


# -- JSON and JSON Lines by content ---------------------------------------------------------------


def test_json_lines_in_a_json_file_imports_with_a_note(store, tmp_path):
    path = tmp_path / "lines.json"
    path.write_text("".join(json.dumps({"id": n, "claim": c, "label": label}) + "\n" for n, c, label in ROWS))
    report = run_import(store, ImportRequest(path))
    assert report.counts.added == 3
    assert any("holds JSON Lines" in note and "jsonl" in note for note in report.warnings.notes)


def test_one_json_array_in_a_jsonl_file_imports_with_a_note(store, tmp_path):
    path = tmp_path / "array.jsonl"
    path.write_text(json.dumps([{"id": n, "claim": c, "label": label} for n, c, label in ROWS], indent=1))
    report = run_import(store, ImportRequest(path))
    assert report.counts.added == 3
    assert any("holds one JSON document" in note for note in report.warnings.notes)


# -- dialects and headers -------------------------------------------------------------------------


@pytest.mark.parametrize("delimiter", [",", ";", "\t", "|", "@"])
def test_each_delimiter_with_quoted_newlines_and_doubled_quotes(store, tmp_path, delimiter):
    path = tmp_path / "rows.csv"
    path.write_text(delimited(delimiter), encoding="utf-8")
    report = run_import(store, ImportRequest(path))
    assert report.counts.added == 3
    assert sorted(texts(store, "rows")) == sorted(row[1] for row in ROWS)


def test_a_pandas_index_column_and_repeated_names_keep_the_header(store, tmp_path):
    path = tmp_path / "pandas.csv"
    path.write_text(
        delimited(
            ",",
            header=("id", "claim", "label", "label"),
            rows=[(*row, f"x{n}") for n, row in enumerate(ROWS)],
            index=True,
        )
    )
    report = run_import(store, ImportRequest(path))
    assert report.counts.added == 3  # the header row is not a claim
    assert "label" not in {str(label) for label in report.label_counts}
    claim = store.claims.get(store.claims.resolve("pandas:2"))
    assert claim.attributes["Unnamed: 0"] == "1" and claim.attributes["label.1"] == "x1"
    note = " ".join(report.warnings.notes)
    assert "'Unnamed: 0'" in note and "'label.1'" in note


def test_the_overrides_delimiter_header_and_encoding(tmp_path):
    db = tmp_path / "w.db"
    text = delimited(":", header=None)  # a delimiter no sniffer is asked to look for
    path = tmp_path / "colons.txt.csv"
    path.write_text(text, encoding="cp1252")
    result = run(
        "--db",
        db,
        "import",
        path,
        "--delimiter",
        ":",
        "--no-header",
        "--columns",
        "id,claim,label",
        "--encoding",
        "cp1252",
        "--dataset",
        "colons",
    )
    assert result.exit_code == 0, result.output
    assert "3 added" in result.output
    headed = tmp_path / "headed.csv"
    headed.write_text("id,claim,label\n1,First,Refuted\n2,Second,Supported\n")
    result = run("--db", db, "import", headed, "--no-header", "--columns", "a,claim,label", "--dry-run", "--json")
    preview = json.loads(result.output)
    assert preview["claims"] == 3 and "no header row" in preview["shape"]  # the first row is data when told
    result = run(
        "--db",
        db,
        "import",
        tmp_path / "colons.txt.csv",
        "--delimiter",
        ":",
        "--encoding",
        "cp1252",
        "--no-header",
        "--columns",
        "id,claim,label",
        "--dry-run",
        "--json",
    )
    assert json.loads(result.output)["shape"].startswith("CSV, cp1252 (--encoding)")
    result = run("--db", db, "import", headed, "--header", "--columns", "a,claim,label", "--dry-run", "--json")
    assert json.loads(result.output)["claims"] == 2  # the row is skipped, the names given used


# -- encodings ------------------------------------------------------------------------------------

JAPANESE = [
    ("1", "富士山は日本一高い山である。", "true"),
    ("2", "東京タワーは333メートルである。", "false"),
    ("3", "ワクチンは不妊の原因になる。", "false"),
]


@pytest.mark.parametrize(
    "encoding,named", [("cp932", "cp932"), ("shift_jis", "cp932"), ("utf-8-sig", "utf-8-sig"), ("utf-16", "utf-16")]
)
def test_japanese_files_in_each_encoding(store, tmp_path, encoding, named):
    path = tmp_path / "ja.csv"
    path.write_bytes(delimited(",", rows=JAPANESE).encode(encoding))
    report = run_import(store, ImportRequest(path, label_space="own"))
    assert sorted(texts(store, "ja")) == sorted(row[1] for row in JAPANESE)
    if encoding not in ("utf-8-sig",):
        assert any(named in note for note in report.warnings.notes)


def test_a_cp1252_file_is_read_and_named(store, tmp_path):
    path = tmp_path / "latin.jsonl"
    path.write_bytes('{"id": 1, "claim": "Le café coûte 2 €", "label": "Refuted"}\n'.encode("cp1252"))
    report = run_import(store, ImportRequest(path))
    assert texts(store, "latin") == ["Le café coûte 2 €"]
    assert any("cp1252" in note and "charset-normalizer" in note for note in report.warnings.notes)


def test_a_bad_byte_after_utf8_text_names_the_line_and_the_flag(store, tmp_path):
    path = tmp_path / "late.jsonl"
    good = "".join(
        json.dumps({"id": n, "claim": f"claim {n} " + "x" * 80, "label": "Refuted"}) + "\n" for n in range(1000)
    )
    path.write_bytes(good.encode() + b'{"id": "z", "claim": "caf\xe9", "label": "Refuted"}\n')
    with pytest.raises(BadInput, match=r"late.jsonl:1001: not UTF-8 text .*--encoding"):
        run_import(store, ImportRequest(path))


# -- ClaimReview's flat exports -------------------------------------------------------------------

FLAT = [
    {
        "claimReviewed": "The bridge will close for a year.",
        "alternativeName": "False",
        "ratingValue": "1",
        "bestRating": "5",
        "datePublished": "2024-03-01",
        "URL": "https://checks.example/a",
        "reviewBody": "The council denied it.",
        "author": "Checks Example",
    },
    {
        "claimReviewed": "Taxes rose 5% in 2023.",
        "alternativeName": "True",
        "ratingValue": "5",
        "bestRating": "5",
        "datePublished": "2024-04-02",
        "URL": "https://checks.example/b",
        "reviewBody": "Official figures agree.",
        "author": "Checks Example",
    },
]


@pytest.mark.parametrize("delimiter", [",", "\t"])
@pytest.mark.parametrize("flags", [["--profile", "claimreview"], []])
def test_claimreview_flat_export_columns_through_the_rating_map(tmp_path, delimiter, flags):
    path = tmp_path / ("flat.csv" if delimiter == "," else "flat.tsv")
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(FLAT[0]), delimiter=delimiter, lineterminator="\n")
    writer.writeheader()
    writer.writerows(FLAT)
    path.write_text(out.getvalue())
    db = tmp_path / "w.db"
    result = run("--db", db, "import", path, *flags, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["profile"] == "claimreview" and report["added"] == 2
    assert report["labels"] == {"Refuted": 1, "Supported": 1}  # the rating map's folds
    shown = json.loads(run("--db", db, "show", "flat:https://checks.example/a", "--json").output)
    assert shown["attributes"]["reviewBody"] == "The council denied it."
    assert shown["attributes"]["rating"] == "False" and shown["reference_time"].startswith("2024-03-01")


def test_a_claimreview_api_page_in_cp1252_is_read(store, tmp_path):
    page = {
        "claims": [
            {
                "text": "Le café coûte 2 € à Noël, dit le maire",
                "claimant": "Le maire",
                "claimReview": [
                    {
                        "publisher": {"name": "Vérif"},
                        "url": "https://verif.example/a",
                        "textualRating": "Faux",
                        "reviewDate": "2024-01-02",
                    }
                ],
            }
        ]
    }
    path = tmp_path / "page.json"
    path.write_bytes(json.dumps(page, ensure_ascii=False).encode("cp1252"))
    run_import(store, ImportRequest(path, label_space="own"))
    assert texts(store, "page") == ["Le café coûte 2 € à Noël, dit le maire"]


# -- every profile on every format ----------------------------------------------------------------


def _claims_profiles() -> list[str]:
    from workbench.importers.profiles import available, read_profile

    return sorted(name for name, profile in available().items() if read_profile(profile.path).kind == "claims")


def _records_for(profile: str) -> list[dict]:
    """Small records holding the first field set the profile detects, as plain strings."""
    from workbench.importers.profiles import load_profile

    mapping = load_profile(profile)
    names = list(dict.fromkeys([*(mapping.detect[0] if mapping.detect else []), "id", "claim", "label"]))
    label = mapping.labels.classes[0] if mapping.labels.classes else "Refuted"
    return [{name: f"{name} {n} text" if name != "label" else label for name in names} for n in range(3)]


def _write(path, records: list[dict], format: str) -> None:
    if format == "jsonl":
        path.write_text("".join(json.dumps(record) + "\n" for record in records))
    elif format == "json":
        path.write_text(json.dumps(records, indent=1))
    elif format in ("csv", "tsv"):
        out = io.StringIO()
        writer = csv.DictWriter(
            out, fieldnames=list(records[0]), delimiter="," if format == "csv" else "\t", lineterminator="\n"
        )
        writer.writeheader()
        writer.writerows(records)
        path.write_text(out.getvalue())
    elif format == "arrow":
        import pyarrow as pa

        table = pa.Table.from_pylist(records)
        with pa.ipc.new_stream(str(path), table.schema) as writer:
            writer.write_table(table)
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(records), path)


@pytest.mark.parametrize("format", ["jsonl", "json", "csv", "tsv", "parquet", "arrow"])
def test_every_profile_reads_every_format_or_refuses_in_one_line(tmp_path, format):
    for profile in _claims_profiles():
        path = tmp_path / f"{profile}.{format}"
        _write(path, _records_for(profile), format)
        result = run(
            "--db",
            tmp_path / f"{profile}-{format}.db",
            "import",
            path,
            "--profile",
            profile,
            "--label-space",
            "own",
            "--dry-run",
        )
        assert "Traceback" not in result.output, (profile, format, result.output)
        if result.exit_code != 0:
            message = result.output.strip()
            assert len(message.splitlines()) == 1, (profile, format, message)
            # Refused for its shape (naming the shapes the profile reads), or read with claims
            # whose labels the file does not give (SciFact's come from a corpus file).
            # A profile that names its own classes refuses generated labels outside them, in one line
            # that does not suggest --label-space own, which was given.
            assert (
                f"profile {profile!r} reads" in message
                or "no claim has a gold label" in message
                or ("unknown labels" in message and "--label-space own" not in message)
            ), (profile, format, message)


# -- errors that say the fix ----------------------------------------------------------------------


def test_no_claim_field_names_the_text_columns_and_the_map_to_try(store, tmp_path):
    path = tmp_path / "news.csv"
    rows = [(f"Headline number {n} says something big", f"https://news.example/{n}", "fake") for n in range(150)]
    path.write_text(delimited(",", header=("title", "news_url", "label"), rows=rows))
    with pytest.raises(BadInput) as caught:
        run_import(store, ImportRequest(path))
    message = str(caught.value)
    assert "title (150 values)" in message and "news_url (150" in message
    assert "try --map claim=title" in message
    assert store.datasets.list() == []


def test_a_path_meeting_another_type_names_the_fields_and_the_map(store, tmp_path):
    path = tmp_path / "evidence.jsonl"
    path.write_text(
        "".join(
            json.dumps({"id": n, "claim": f"Claim {n}", "label": "Refuted", "sources": {"page": f"p{n}"}}) + "\n"
            for n in range(3)
        )
    )
    # (evidence=sources[] over an object reads it as one item since evidence of any shape is kept)
    with pytest.raises(BadInput) as caught:
        run_import(store, ImportRequest(path, maps=["id=sources[]"]))
    message = str(caught.value)
    assert "meets dict" in message and "sources holds object (3 values)" in message
    assert "--map id=sources" in message


@pytest.mark.parametrize("format", ["jsonl", "json", "csv", "tsv", "parquet", "arrow"])
def test_every_predictions_profile_reads_every_format_or_refuses_in_one_line(tmp_path, format):
    from workbench.importers.profiles import available, read_profile

    db = tmp_path / "w.db"
    claims = tmp_path / "claims.jsonl"
    claims.write_text(
        "".join(json.dumps({"id": f"c{n}", "claim": f"Claim {n}.", "label": "Refuted"}) + "\n" for n in range(3))
    )
    assert run("--db", db, "import", claims, "--dataset", "d").exit_code == 0
    profiles = sorted(name for name, profile in available().items() if read_profile(profile.path).kind == "predictions")
    for profile in profiles:
        mapping = read_profile(available()[profile].path)
        names = list(dict.fromkeys([*(mapping.detect[0] if mapping.detect else []), "id", "verdict"]))
        records = [
            {name: f"c{n}" if name in ("id", "claim_id", "external_id") else "Refuted" for name in names}
            for n in range(3)
        ]
        path = tmp_path / f"{profile}.{format}"
        _write(path, records, format)
        result = run("--db", db, "import-predictions", path, "--dataset", "d", "--profile", profile, "--dry-run")
        assert "Traceback" not in result.output, (profile, format, result.output)
        if result.exit_code != 0:
            message = result.output.strip()
            assert len(message.splitlines()) == 1 and f"profile {profile!r} reads" in message, (
                profile,
                format,
                message,
            )
