"""The data commands through click's CliRunner, on real database files."""

from __future__ import annotations

import json

from click.testing import CliRunner

from tests.conftest import DEMO_DATA
from workbench.cli import main


def run(*args, env=None):
    result = CliRunner().invoke(main, [str(a) for a in args], env=env, catch_exceptions=False)
    return result


def test_import_list_show_and_export_round_trip(tmp_path):
    db = tmp_path / "w.db"
    result = run("--db", db, "import", DEMO_DATA / "jsfactcheck.jsonl", "--dataset", "demo")
    assert result.exit_code == 0 and "24 added, 0 updated, 0 unchanged" in result.output
    assert (
        "0 added, 0 updated, 24 unchanged"
        in run("--db", db, "import", DEMO_DATA / "jsfactcheck.jsonl", "--dataset", "demo").output
    )
    listed = json.loads(run("datasets", "--db", db, "--json").output)
    assert listed[0]["name"] == "demo" and listed[0]["claim_count"] == 24
    lines = run("--db", db, "claims", "--where", "importance:Main label:Refuted", "--json").output.splitlines()
    assert lines and all(json.loads(line)["label"] == "Refuted" for line in lines)
    shown = run("--db", db, "show", "demo:js-001")
    assert "Reference (quoted passage)" in shown.output and "Full (6,000 of" in shown.output
    exported = tmp_path / "out.jsonl"
    run("--db", db, "export", "--what", "claims", "--where", "dataset:demo", "-o", exported)
    copy_db = tmp_path / "copy.db"
    again = run(
        "--db", copy_db, "import", exported, "--format", "jsonl", "--label-space", "jsfactcheck", "--dataset", "demo"
    )
    assert "24 added" in again.output
    original = json.loads(run("--db", db, "show", "demo:js-005", "--json").output)
    copied = json.loads(run("--db", copy_db, "show", "demo:js-005", "--json").output)
    for key in ("text", "label", "response", "claim_start", "importance", "reference_time"):
        assert original[key] == copied[key], key
    assert [e["passage_start"] for e in original["evidence"]] == [e["passage_start"] for e in copied["evidence"]]


def test_db_comes_from_option_then_environment(tmp_path, monkeypatch):
    env_db = tmp_path / "env.db"
    monkeypatch.chdir(tmp_path)
    run("import", DEMO_DATA / "averitec.json", env={"WORKBENCH_DB": str(env_db)})
    assert env_db.exists() and not (tmp_path / "workbench.db").exists()
    run("import", DEMO_DATA / "averitec.json")
    assert (tmp_path / "workbench.db").exists()


def test_bad_input_exits_non_zero_with_location_and_no_write(tmp_path):
    db = tmp_path / "w.db"
    run("--db", db, "import", DEMO_DATA / "averitec.json", "--dataset", "x")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1, "claim": "a", "label": "Refuted"}\n{"id": 2, "claim": "b"}\n')
    result = run("--db", db, "import", bad, "--dataset", "x", "--strict")  # without --strict: a warning
    assert result.exit_code == 1
    assert f"{bad}:2, field 'label': no gold label" in result.output
    assert json.loads(run("--db", db, "datasets", "--json").output)[0]["claim_count"] == 18


def test_reading_commands_refuse_a_missing_database_and_bad_filters(tmp_path):
    result = run("--db", tmp_path / "none.db", "claims")
    assert result.exit_code == 1 and "no database at" in result.output
    assert not (tmp_path / "none.db").exists()
    db = tmp_path / "w.db"
    run("--db", db, "import", DEMO_DATA / "averitec.json")
    result = run("--db", db, "claims", "--where", "lable:x")
    assert result.exit_code == 1 and "did you mean label?" in result.output


def test_hostile_text_prints_literally(tmp_path):
    db = tmp_path / "w.db"
    path = tmp_path / "h.jsonl"
    path.write_text(json.dumps({"id": "h", "claim": "[bold red]x[/] \x1b[2J end", "label": "Refuted"}) + "\n")
    run("--db", db, "import", path)
    output = run("--db", db, "show", "h:h").output
    assert "[bold red]x[/] \\x1b[2J end" in output and "\x1b" not in output
