"""Importing every format into a real SQLite store, and the real AVeriTeC dev file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from store import PageRequest
from tests.conftest import AVERITEC_DEV, DEMO_DATA, require_shared
from workbench.importers import BadInput, ImportRequest, import_file, load_file, run_import


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


PAGE = "Intro paragraph about the harbour. " * 40 + "The ferry began service in 1998. " + "More text. " * 300


def js_record(n: int, **changes) -> dict:
    record = {
        "id": f"js-{n}",
        "question": "When did the ferry start?",
        "response": "The ferry started in 1998. It crosses the bay.",
        "claim": "The ferry started in 1998.",
        "reference_time": "2025-01-01",
        "importance": "Main",
        "label": "supported",
        "reference": {
            "url": "https://example.org/ferry",
            "title": "Ferry",
            "text": PAGE,
            "quote": "The ferry began service in 1998.",
        },
        "candidates": [
            {"url": "https://example.org/other", "title": "Other", "text": "Other page. " * 100},
            {"url": "https://example.org/ferry", "title": "Ferry", "text": PAGE},
        ],
    }
    record.update(changes)
    return record


def test_real_averitec_dev_file_imports_500_claims_with_label_counts(store):
    path = require_shared(AVERITEC_DEV)
    dataset, counts = import_file(store, path)
    assert counts.added == 500 and dataset.label_space.name == "averitec"
    assert store.datasets.label_counts(dataset.id) == {
        "Refuted": 305,
        "Supported": 122,
        "Conflicting Evidence/Cherrypicking": 38,
        "Not Enough Evidence": 35,
    }
    first = store.claims.get(store.claims.resolve(f"{dataset.name}:0"))
    assert first.text.startswith("In a letter to Steve Jobs, Sean Connery")
    assert first.article_url.startswith("https://web.archive.org/")
    assert first.claim_date == "2020-10-31"
    assert {e.kind for e in first.evidence} == {"qa"}
    assert first.evidence[0].question == "Where was the claim first published"
    assert first.attributes["claim_types"] == ["Event/Property Claim"]


def test_averitec_boolean_answers_keep_their_explanation(store):
    path = require_shared(AVERITEC_DEV)
    dataset, _ = import_file(store, path)
    row = store.db.execute(
        "SELECT count(*) FROM evidence WHERE answer_type = 'Boolean' AND explanation IS NOT NULL"
    ).fetchone()
    assert row[0] == 292


def test_reimport_is_idempotent_and_reports_changes(store, tmp_path):
    path = write_jsonl(tmp_path / "js.jsonl", [js_record(1), js_record(2)])
    _, first = import_file(store, path, "jsfactcheck")
    assert (first.added, first.updated, first.unchanged) == (2, 0, 0)
    _, again = import_file(store, path, "jsfactcheck")
    assert (again.added, again.updated, again.unchanged) == (0, 0, 2)
    write_jsonl(path, [js_record(1, label="Refuted"), js_record(2), js_record(3)])
    _, changed = import_file(store, path, "jsfactcheck")
    assert (changed.added, changed.updated, changed.unchanged) == (1, 1, 1)
    claim = store.claims.get(store.claims.resolve("js:js-1"))
    assert claim.label == "Refuted" and len(claim.evidence) == 2


def test_jsfactcheck_cited_page_is_marked_and_the_quote_located(store, tmp_path):
    path = write_jsonl(tmp_path / "js.jsonl", [js_record(1)])
    import_file(store, path, "auto")
    claim = store.claims.get(store.claims.resolve("js-1"))
    assert claim.label == "Supported" and claim.raw_label == "supported"
    cited = [e for e in claim.evidence if e.is_cited]
    assert len(cited) == 1 and cited[0].rank == 1
    assert PAGE[cited[0].passage_start : cited[0].passage_end] == "The ferry began service in 1998."
    assert (claim.claim_start, claim.claim_end) == (0, len("The ferry started in 1998."))


def test_realfactbench_json_array_and_generic_csv(store, tmp_path):
    rfb = tmp_path / "rfb.json"
    rfb.write_text(
        json.dumps(
            [
                {
                    "id": "r1",
                    "claim": "Water boils at 100 C at sea level.",
                    "label": "TRUE",
                    "evidence": "Physics.",
                    "task": "KV",
                    "domain": "science",
                    "date": "2024-02-01",
                    "source": "blog",
                    "image": "a.png",
                },
                {"id": "r2", "claim": "The moon is cheese.", "label": "FALSE", "evidence": ["a", "b"], "task": "RD"},
            ]
        ),
        encoding="utf-8",
    )
    dataset, counts = import_file(store, rfb)
    assert dataset.source_format == "realfactbench" and dataset.label_space.abstain == "unknown"
    claim = store.claims.get(store.claims.resolve("rfb:r1"))
    assert (claim.label, claim.task, claim.claim_date) == ("true", "KV", "2024-02-01")
    assert claim.images == [] and "image" not in claim.attributes  # a.png is not there: a warning, no image
    assert len(store.claims.get(store.claims.resolve("rfb:r2")).evidence) == 2

    csv_file = tmp_path / "mine.csv"
    csv_file.write_bytes(
        "\ufeffid,claim,label,importance,attr.topic,evidence\r\n"
        'c1,"A claim, with a comma",Refuted,Sub,bridges,"[{""kind"": ""passage"", ""text"": ""snippet""}]"\r\n'.encode(
            "utf-8"
        )
    )
    dataset, counts = import_file(store, csv_file)
    claim = store.claims.get(store.claims.resolve("mine:c1"))
    assert claim.text == "A claim, with a comma" and claim.attributes == {"topic": "bridges"}
    assert claim.evidence[0].text == "snippet" and dataset.label_space.name == "jsfactcheck"


def test_generic_jsonl_header_sets_name_and_custom_label_space(store, tmp_path):
    path = write_jsonl(
        tmp_path / "g.jsonl",
        [
            {"_dataset": {"name": "mine", "label_space": {"labels": ["yes", "no"], "abstain": "pass"}}},
            {"id": 1, "claim": "Something.", "label": "YES", "attributes": {"tags": ["a", "b"]}},
        ],
    )
    dataset, _ = import_file(store, path)
    assert dataset.name == "mine" and dataset.label_space.labels == ["yes", "no"]
    assert store.claims.count("attr.tags:b") == 1


def test_demo_files_all_import(store):
    from workbench.cli.demo import DEMO_FILES, load_demo

    if not all((DEMO_DATA / name).exists() for name, _, _ in DEMO_FILES):
        pytest.fail("the bundled demo data is missing from workbench/demo_data")
    load_demo(store)
    names = {d.name: d for d in store.datasets.list()}
    assert set(names) == {"demo", "demo-realfact", "demo-averitec", "demo-ja"}
    assert sum(d.claim_count for d in names.values()) >= 75
    assert {
        names["demo"].label_space.name,
        names["demo-realfact"].label_space.name,
        names["demo-averitec"].label_space.name,
    } == {"jsfactcheck", "realfactbench", "averitec"}
    assert names["demo-ja"].label_space.name == "jsfactcheck" and names["demo-ja"].claim_count == 20
    assert store.claims.count("dataset:demo importance:Main") > 0
    assert store.claims.count("dataset:demo has:pages") == names["demo"].claim_count


# -- bad input: one clear error naming file, line and field; the database unchanged -----------


def db_snapshot(store) -> tuple:
    return tuple(
        store.db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("datasets", "claims", "evidence")
    )


BAD_JSONL = {
    "malformed JSON": ('{"id": 1, "claim": "ok", "label": "Refuted"}\n{"id": 2, "claim": \n', 2, None, "invalid JSON"),
    "wrong type": ('{"id": 1, "claim": ["x"], "label": "Refuted"}\n', 1, "claim", "must be text"),
    "missing field": ('{"id": 1, "label": "Refuted"}\n', 1, "claim", "no record has claim text"),
    "unknown label": (
        '{"id": 1, "claim": "a", "label": "Refuted"}\n{"id": 2, "claim": "b", "label": "Maybe"}\n',
        2,
        None,
        "'Maybe'",
    ),
    "duplicate id": (
        '{"id": 1, "claim": "a", "label": "Refuted"}\n{"id": 1, "claim": "b", "label": "Refuted"}\n',
        2,
        "id",
        "duplicate id '1' (first on line 1)",
    ),
}
# Content oddities: imported with a warning; --strict refuses them, located the same way (issue 12).
ODD_JSONL = {
    "bad importance": (
        '{"id": 1, "claim": "a", "label": "Refuted", "importance": "Huge"}\n',
        1,
        "importance",
        "is not one of Main, Sub, Irrelevant",
    ),
    "bad date": (
        '{"id": 1, "claim": "a", "label": "Refuted", "claim_date": "yesterday"}\n',
        1,
        "claim_date",
        "not a date",
    ),
    "quote not in page": (
        '{"id": 1, "claim": "a", "label": "Refuted", "evidence": [{"kind": "page", '
        '"text": "abc", "passage": "xyz"}]}\n',
        1,
        "evidence[0].passage",
        "does not occur",
    ),
    "no claim text": (
        '{"id": 1, "claim": "a", "label": "Refuted"}\n{"id": 2, "claim": "", "label": "Refuted"}\n',
        2,
        "claim",
        "no claim text",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_JSONL) + sorted(ODD_JSONL))
def test_bad_jsonl_gives_one_located_error_and_writes_nothing(store, tmp_path, case):
    good = write_jsonl(tmp_path / "good.jsonl", [{"id": "g", "claim": "fine", "label": "Refuted"}])
    import_file(store, good, "jsonl")
    before = db_snapshot(store)
    text, line, field, fragment = BAD_JSONL.get(case) or ODD_JSONL[case]
    bad = tmp_path / "good.jsonl"  # same dataset name: a failed update must not touch it either
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(BadInput) as caught:
        run_import(store, ImportRequest(bad, "jsonl", strict=case in ODD_JSONL))
    error = caught.value
    assert error.path == str(bad) and error.line == line
    assert error.field == field or field is None
    assert fragment in str(error) and str(bad) in str(error)
    assert db_snapshot(store) == before


@pytest.mark.parametrize("case", sorted(ODD_JSONL))
def test_content_oddities_import_with_a_located_warning(store, tmp_path, case):
    text, line, field, fragment = ODD_JSONL[case]
    path = tmp_path / "odd.jsonl"
    path.write_text('{"_dataset": {"name": "odd", "label_space": "jsfactcheck"}}\n' + text, encoding="utf-8")
    report = run_import(store, ImportRequest(path))
    (warning,) = report.warnings.items
    assert (warning.line, warning.field) == (line + 1, field) and fragment in warning.message
    assert report.counts.added == (1 if case != "no claim text" else 1)


def test_unknown_fields_are_kept_as_attributes(store, tmp_path):
    path = write_jsonl(
        tmp_path / "extra.jsonl", [{"id": 1, "claim": "a", "label": "Refuted", "lable": "x", "meta": {"k": [1, 2]}}]
    )
    report = run_import(store, ImportRequest(path))
    claim = store.claims.get(store.claims.resolve("extra:1"))
    assert claim.attributes == {"lable": "x", "meta": {"k": [1, 2]}}
    assert any("lable" in note and "attr.NAME" in note for note in report.warnings.notes)
    assert store.claims.count("attr.lable:x") == 1


def test_legacy_bytes_are_read_in_the_encoding_found_and_named(store, tmp_path):
    # This test once pinned a refusal ("not UTF-8 text"): issue 31 asks for cp1252 to be read.
    path = tmp_path / "latin.jsonl"
    path.write_bytes(
        b'{"id": 1, "claim": "ok", "label": "Refuted"}\n{"id": 2, "claim": "caf\xe9", "label": "Refuted"}\n'
    )
    report = run_import(store, ImportRequest(path))
    assert store.claims.get(store.claims.resolve("latin:2")).text == "café"
    assert any("cp1252" in note for note in report.warnings.notes)


def test_non_utf8_bytes_past_the_sniffed_start_name_the_line(store, tmp_path):
    path = tmp_path / "late.jsonl"
    first = b"".join(b'{"id": %d, "claim": "%s", "label": "Refuted"}\n' % (n, b"x" * 100) for n in range(800))
    path.write_bytes(first + b'{"id": "z", "claim": "caf\xe9", "label": "Refuted"}\n')
    with pytest.raises(BadInput, match=r"late.jsonl:801: not UTF-8 text \(byte 0xe9.*--encoding"):
        import_file(store, path)
    assert db_snapshot(store) == (0, 0, 0)


def test_bom_and_crlf_are_accepted(store, tmp_path):
    path = tmp_path / "crlf.jsonl"
    path.write_bytes(
        b'\xef\xbb\xbf{"id": 1, "claim": "ok", "label": "Refuted"}\r\n{"id": 2, "claim": "b", "label": "Supported"}\r\n'
    )
    _, counts = import_file(store, path)
    assert counts.added == 2


def test_empty_file_and_directory_are_clear_errors(store, tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n  \n")
    with pytest.raises(BadInput, match="empty.jsonl: the file is empty"):
        import_file(store, empty)
    folder = tmp_path / "nothing"
    folder.mkdir()
    with pytest.raises(BadInput, match="nothing: holds no data files"):
        import_file(store, folder)
    with pytest.raises(BadInput, match="no such file"):
        import_file(store, tmp_path / "absent.jsonl")


def test_ten_megabyte_page_imports_but_a_ten_megabyte_claim_is_refused(store, tmp_path):
    big = "word " * 2_000_000  # 10 MB
    ok = write_jsonl(
        tmp_path / "big.jsonl",
        [{"id": 1, "claim": "short", "label": "Refuted", "evidence": [{"kind": "page", "text": big}]}],
    )
    _, counts = import_file(store, ok)
    assert counts.added == 1
    assert len(store.claims.get(store.claims.resolve("big:1")).evidence[0].text) == len(big)
    bad = write_jsonl(tmp_path / "bigclaim.jsonl", [{"id": 1, "claim": big, "label": "Refuted"}])
    with pytest.raises(BadInput, match=r"bigclaim.jsonl:1, field 'claim': is 10,000,000 characters long"):
        import_file(store, bad)


def test_csv_errors_name_line_and_field(store, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("id,claim,label\n1,fine,Refuted\n2,,Refuted\n", encoding="utf-8")
    with pytest.raises(BadInput) as caught:
        run_import(store, ImportRequest(path, strict=True))
    assert (caught.value.line, caught.value.field) == (3, "claim")
    path.write_text("id,claim,label\n1,fine,Refuted,extra\n", encoding="utf-8")
    with pytest.raises(BadInput, match="bad.csv:2: this row has 4 cells; the header has 3"):
        import_file(store, path)


def test_averitec_errors_name_record_and_nested_field(tmp_path):
    path = tmp_path / "av.json"
    path.write_text(
        json.dumps(
            [
                {"claim": "x", "label": "Refuted", "questions": []},
                {
                    "claim": "y",
                    "label": "Refuted",
                    "questions": [{"question": "q?", "answers": [{"answer": {"no": 1}}]}],
                },
            ],
            indent=1,
        ),
        encoding="utf-8",
    )
    with pytest.raises(BadInput) as caught:
        load_file(path, "averitec")
    error = caught.value
    # The line of the field itself (the record starts on line 7).
    assert error.record == 1 and error.field == "questions[0].answers[0].answer" and error.line == 15


def test_labels_that_fit_no_built_in_space_are_the_files_own(tmp_path):
    path = write_jsonl(
        tmp_path / "odd.jsonl",
        [{"id": 1, "claim": "a", "label": "Perhaps"}, {"id": 2, "claim": "b", "label": "Surely"}],
    )
    parsed = load_file(path)
    assert parsed.dataset.label_space.labels == ["Perhaps", "Surely"]
    assert [c.label for c in parsed.claims] == ["Perhaps", "Surely"]


def test_failed_import_leaves_fts_and_pages_consistent(store, tmp_path):
    write_jsonl(tmp_path / "a.jsonl", [{"id": 1, "claim": "lighthouse keeper", "label": "Refuted"}])
    import_file(store, tmp_path / "a.jsonl")
    (tmp_path / "a.jsonl").write_text('{"id": 1, "claim": "submarine", "label": "Refuted"}\n{"id": 2,\n')
    with pytest.raises(BadInput):
        import_file(store, tmp_path / "a.jsonl")
    assert store.claims.count('"lighthouse"') == 1 and store.claims.count('"submarine"') == 0
    assert [r.text for r in store.claims.page(PageRequest())] == ["lighthouse keeper"]
