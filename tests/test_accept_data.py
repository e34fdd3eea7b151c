"""Acceptance checks of the data commands as a new user meets them: hostile text in every
place `show` prints it, listings readable at 80 columns, failed imports that leave nothing
behind, malformed CSV, and exports that import again exactly (issue 2)."""

from __future__ import annotations

import json
import re
import sqlite3

import pytest
from click.testing import CliRunner

from tests.conftest import DEMO_DATA
from workbench import labels
from workbench.cli import main

HOSTILE = "[bold red]X[/] [link=http://e]L[/link] \x1b[31mR"
SHOWN = "[bold red]X[/] [link=http://e]L[/link] \\x1b[31mR"


@pytest.fixture(autouse=True)
def eighty_columns(monkeypatch):
    """The CLI's Rich console as on an 80-column terminal, whatever runs the tests."""
    monkeypatch.setenv("COLUMNS", "80")


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def write_jsonl(path, records):
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def hostile_db(tmp_path):
    records = [
        {"_dataset": {"name": "[red]ds", "label_space": {"labels": ["[b]yes", "no"]}}},
        {
            "id": "[u]id1",
            "claim": "Claim " + HOSTILE,
            "label": "[b]yes",
            "attributes": {"[k]": HOSTILE},
            "evidence": [
                {
                    "kind": "page",
                    "title": "[i]T",
                    "url": "http://u/[/]",
                    "text": "page text and more",
                    "passage": "page text",
                    "cited": True,
                },
                {"kind": "page", "title": "[cited]", "url": "u2", "text": "second page"},
            ],
        },
    ]
    db = tmp_path / "h.db"
    assert run("--db", db, "import", write_jsonl(tmp_path / "h.jsonl", records)).exit_code == 0
    return db


def test_show_prints_hostile_titles_names_and_keys_literally(hostile_db):
    result = run("--db", hostile_db, "show", "1")
    assert result.exit_code == 0, result.output
    assert "claim 1 ([red]ds:[u]id1)" in result.output
    assert "Page 1 CITED: [i]T http://u/[/]" in result.output
    assert "Page 2: [cited] u2" in result.output  # a title that looks like the mark stays a title
    assert re.search(r"attr\.\[k\]\s+" + re.escape(SHOWN), result.output)
    assert "\x1b" not in result.output


def test_the_claims_footer_names_the_datasets_literally(hostile_db, tmp_path):
    """The footer is a line of text holding data (dataset names): no markup, no emoji codes."""
    records = [
        {"_dataset": {"name": "news:fire:", "label_space": {"labels": ["yes", "no"]}}},
        {"id": "a", "claim": "A claim", "label": "yes"},
    ]
    assert run("--db", hostile_db, "import", write_jsonl(tmp_path / "e.jsonl", records)).exit_code == 0
    result = run("--db", hostile_db, "claims")
    assert result.exit_code == 0, result.output
    assert "2 shown of 2 matching (datasets [red]ds, news:fire:)" in result.output


def test_claims_listing_keeps_ids_whole_and_the_claim_readable_at_80_columns(tmp_path):
    db = tmp_path / "w.db"
    run("--db", db, "demo", "--no-tui")
    result = run("--db", db, "claims", "--where", "id<=30", "--limit", "30")
    lines = result.output.splitlines()
    assert all(len(line) <= 80 for line in lines)
    row = next(line for line in lines if line.startswith("25 "))
    assert "demo-r" in row and "Washing your hands with soap" in row
    single = run("--db", db, "claims", "--where", "dataset:demo", "--limit", "3").output
    assert "Overall, the trial found that" in single and "(dataset demo)" in single


def test_datasets_listing_fits_80_columns_with_whole_names(tmp_path):
    db = tmp_path / "w.db"
    run("--db", db, "demo", "--no-tui")
    output = run("--db", db, "datasets").output
    assert all(len(line) <= 80 for line in output.splitlines())
    for name in ("demo-realfact", "demo-averitec", "Conflicting"):
        assert name in output


def test_a_failed_first_import_leaves_no_database_behind(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1, "claim": "a", "label": "Refuted"}\n{"id": 1, "claim": "b", "label": "Refuted"}\n')
    result = run("import", bad)
    assert result.exit_code == 1 and "duplicate id" in result.output
    assert run("import", tmp_path / "absent.jsonl").exit_code == 1
    assert not list(tmp_path.glob("workbench.db*"))
    run("import", DEMO_DATA / "averitec.json")
    assert run("import", bad).exit_code == 1
    assert (tmp_path / "workbench.db").exists()  # an existing database is never removed


@pytest.mark.parametrize(
    "text,line,message",
    [
        ('id,claim,label\na0,fine,Supported\na1,"never closed,Supported\na2,x,Refuted\n', 3, "unexpected end of data"),
        ('id,claim,label\na1,"bad"quote,Supported\n', 2, "',' expected after '\"'"),
    ],
)
def test_malformed_csv_names_the_row_where_it_starts(tmp_path, text, line, message):
    path = tmp_path / "bad.csv"
    path.write_text(text, encoding="utf-8")
    result = run("--db", tmp_path / "w.db", "import", path)
    assert result.exit_code == 1
    assert f"bad.csv:{line}: malformed CSV" in result.output and message in result.output


def table_dump(db, dataset: str) -> tuple[list, list]:
    con = sqlite3.connect(db)
    claims = con.execute(
        "SELECT c.external_id, c.text, c.label, c.question, c.response, c.claim_start, c.claim_end,"
        " c.reference_time, c.claim_date, c.importance, c.task, c.domain, c.source, c.article_url,"
        " c.article_text, c.justification, c.attributes, d.labels, d.abstain_label, d.excluded_labels"
        " FROM claims c JOIN datasets d ON d.id = c.dataset_id WHERE d.name = ? ORDER BY c.id",
        [dataset],
    ).fetchall()
    evidence = con.execute(
        "SELECT c.external_id, e.kind, e.rank, e.url, e.title, e.text, e.passage, e.passage_start,"
        " e.passage_end, e.is_cited, e.question, e.answer_type, e.explanation, e.attributes FROM evidence e"
        " JOIN claims c ON c.id = e.claim_id JOIN datasets d ON d.id = c.dataset_id WHERE d.name = ?"
        " ORDER BY c.id, e.rank",
        [dataset],
    ).fetchall()
    con.close()
    return claims, evidence


@pytest.mark.parametrize("dataset", ["demo", "demo-realfact", "demo-averitec"])
def test_an_exported_dataset_imports_again_exactly(tmp_path, dataset):
    db = tmp_path / "w.db"
    run("--db", db, "demo", "--no-tui")
    exported = tmp_path / f"{dataset}.jsonl"
    assert run("--db", db, "export", "--what", "claims", "--where", f"dataset:{dataset}", "-o", exported).exit_code == 0
    copy = tmp_path / "copy.db"
    result = run("--db", copy, "import", exported)  # no --dataset, no --label-space: the file says
    assert result.exit_code == 0, result.output
    assert table_dump(copy, dataset) == table_dump(db, dataset)
    count = {"demo": 24}.get(dataset, 18)
    # Read by another reader than the original file's, the same claims are still unchanged.
    assert f"0 added, 0 updated, {count} unchanged" in run("--db", db, "import", exported).output


def test_csv_export_keeps_every_attribute_and_lists_stay_lists(tmp_path):
    db = tmp_path / "w.db"
    write_jsonl(
        tmp_path / "a.jsonl",
        [
            {"id": "1", "claim": "one", "label": "Refuted", "attributes": {"types": ["Numerical", "Causal"]}},
            {"id": "2", "claim": "two", "label": "Refuted", "attributes": {"region": "north"}},
        ],
    )
    run("--db", db, "import", tmp_path / "a.jsonl")
    out = tmp_path / "a.csv"
    run("--db", db, "export", "--what", "claims", "--format", "csv", "-o", out)
    assert out.read_text().splitlines()[0].endswith("attr.region,attr.types")
    copy = tmp_path / "copy.db"
    run("--db", copy, "import", out, "--dataset", "a")
    assert table_dump(copy, "a") == table_dump(db, "a")
    assert run("--db", copy, "claims", "--where", "attr.types:Causal", "--json").output.count("\n") == 1


@pytest.mark.parametrize(
    "raw,space",
    [
        ({"TRUE", "FALSE"}, "realfactbench"),
        ({"Supported", "Refuted", "Not Enough Evidence"}, "averitec"),
        ({"SUPPORTS", "REFUTES", "NOT ENOUGH INFO"}, "jsfactcheck"),
        ({"Supported", "Refuted"}, "jsfactcheck"),
    ],
)
def test_a_file_without_a_header_gets_the_space_its_labels_name(raw, space):
    assert labels.detect_space(raw).name == space


def test_prompts_and_filter_help_take_db_after_the_command(tmp_path):
    assert run("prompts", "--db", tmp_path / "x.db").exit_code == 0
    assert run("filter-help", "--db", tmp_path / "x.db").exit_code == 0


def test_export_to_a_missing_folder_or_a_directory_is_a_clear_error(tmp_path):
    db = tmp_path / "w.db"
    run("--db", db, "import", DEMO_DATA / "averitec.json")
    for target, reason in ((tmp_path / "no" / "x.jsonl", "No such file or directory"), (tmp_path, "Is a directory")):
        result = run("--db", db, "export", "--what", "claims", "-o", target)
        assert result.exit_code == 1 and f"cannot write {target}: {reason}" in result.output
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no temporary file left


def test_the_wrong_profile_or_label_space_is_refused_clearly(tmp_path):
    db = tmp_path / "w.db"
    path = write_jsonl(tmp_path / "mine.jsonl", [{"id": 1, "claim": "a", "label": "Refuted"}])
    run("--db", db, "import", path)
    # Issue 12: formats and profiles are apart; the AVeriTeC profile reads JSONL too, and its
    # label space is not the dataset's.
    result = run("--db", db, "import", path, "--format", "averitec")
    assert result.exit_code == 1 and "dataset 'mine' already exists with labels Supported" in result.output
    clash = run("--db", db, "import", DEMO_DATA / "realfactbench.json", "--dataset", "mine")
    assert clash.exit_code == 1
    assert (
        "dataset 'mine' already exists with labels Supported, Refuted, NotEnoughInfo;"
        " this file's labels are true, false (abstain unknown)"
    ) in clash.output


@pytest.mark.parametrize(
    "name, text",
    [
        ("deep.json", "[" * 100_000 + "]" * 100_000),
        (
            "deep.jsonl",
            '{"id": "a", "claim": "c", "label": "Supported", "attributes": {"x": '
            + "[" * 100_000
            + "]" * 100_000
            + "}}\n",
        ),
    ],
)
def test_json_nested_too_deeply_is_one_clear_error_and_changes_nothing(tmp_path, name, text):
    """Python's JSON parser stops at about 1,000 levels with a RecursionError: a broken file."""
    db = tmp_path / "w.db"
    assert (
        run(
            "--db",
            db,
            "import",
            write_jsonl(tmp_path / "ok.jsonl", [{"id": "x", "claim": "kept", "label": "Supported"}]),
        ).exit_code
        == 0
    )
    before = sqlite3.connect(db).execute("SELECT count(*) FROM claims").fetchone()
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(
        main, ["--db", str(db), "import", str(path), "--format", "jsonl" if name.endswith("l") else "averitec"]
    )
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"Error: {path}{':1' if name.endswith('l') else ''}: invalid JSON: nested too deeply to read"
        " (over about 1,000 levels)"
    ]
    assert sqlite3.connect(db).execute("SELECT count(*) FROM claims").fetchone() == before
