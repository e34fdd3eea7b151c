"""File formats and field mappings: Parquet and Arrow as Hugging Face publishes them (class
names in the file, splits in shards), gzip, TSV, headerless CSV, JSON keyed by id, mappings
on the command line, saved profiles, dry runs, and every kind of bad input said in one line
with nothing written."""

from __future__ import annotations

import gzip
import json
import shutil
import sqlite3

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from tests.support.import_fixtures import FIXTURES
from workbench.cli import main
from workbench.importers import BadInput, ImportRequest, MappingError, dry_run, run_import

CLIMATE_FEATURES = {
    "claim_id": {"dtype": "string", "_type": "Value"},
    "claim": {"dtype": "string", "_type": "Value"},
    "claim_label": {"names": ["SUPPORTS", "REFUTES", "NOT_ENOUGH_INFO", "DISPUTED"], "_type": "ClassLabel"},
    "evidences": {
        "feature": {
            "evidence_id": {"dtype": "string", "_type": "Value"},
            "evidence_label": {"names": ["SUPPORTS", "REFUTES", "NOT_ENOUGH_INFO"], "_type": "ClassLabel"},
            "article": {"dtype": "string", "_type": "Value"},
            "evidence": {"dtype": "string", "_type": "Value"},
        },
        "_type": "List",
    },
}


def climate_table(rows: list[dict]) -> pa.Table:
    table = pa.Table.from_pylist(rows)
    metadata = {b"huggingface": json.dumps({"info": {"features": CLIMATE_FEATURES}}).encode()}
    return table.replace_schema_metadata(metadata)


def climate_rows(start: int, count: int) -> list[dict]:
    return [
        {
            "claim_id": str(i),
            "claim": f"Claim number {i} about the coast.",
            "claim_label": i % 4,
            "evidences": [
                {
                    "evidence_id": f"Coast:{i}",
                    "evidence_label": i % 3,
                    "article": "Coast",
                    "evidence": f"Sentence {i} about the coast.",
                }
            ],
        }
        for i in range(start, start + count)
    ]


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_parquet_with_hugging_face_class_names(store, tmp_path):
    path = tmp_path / "climate.parquet"
    pq.write_table(climate_table(climate_rows(0, 8) + [{**climate_rows(8, 1)[0], "claim_label": -1}]), path)
    report = run_import(store, ImportRequest(path))
    assert (report.plan.mapping.name, report.plan.source.format) == ("climate-fever", "parquet")
    claim = store.claims.get(store.claims.resolve("climate:3"))
    assert claim.label == "DISPUTED" and claim.evidence[0].attributes["evidence_label"] == "SUPPORTS"
    assert report.label_counts[None] == 1  # -1: Hugging Face's "no label"


def test_a_hub_folder_with_splits_in_shards(store, tmp_path):
    data = tmp_path / "snapshot" / "data"
    data.mkdir(parents=True)
    pq.write_table(climate_table(climate_rows(0, 5)), data / "train-00000-of-00002.parquet")
    pq.write_table(climate_table(climate_rows(5, 4)), data / "train-00001-of-00002.parquet")
    pq.write_table(climate_table(climate_rows(100, 3)), data / "test-00000-of-00001.parquet")
    (tmp_path / "snapshot" / "README.md").write_text("---\nlicense: cc-by-4.0\n---\n")
    with pytest.raises(BadInput, match="holds the splits test, train; choose one with --split"):
        run_import(store, ImportRequest(tmp_path / "snapshot"))
    with pytest.raises(BadInput, match="has no split 'validation'; it holds test, train"):
        run_import(store, ImportRequest(tmp_path / "snapshot", split="validation"))
    report = run_import(store, ImportRequest(tmp_path / "snapshot", split="train"))
    assert report.dataset.name == "snapshot-train" and report.counts.added == 9
    assert len(report.plan.source.files) == 2


def test_a_save_to_disk_folder_with_arrow_files(store, tmp_path):
    root = tmp_path / "saved"
    for split, rows in (("train", climate_rows(0, 4)), ("test", climate_rows(50, 2))):
        folder = root / split
        folder.mkdir(parents=True)
        table = pa.Table.from_pylist(rows)
        with pa.OSFile(str(folder / "data-00000-of-00001.arrow"), "wb") as sink:
            with pa.ipc.new_stream(sink, table.schema) as writer:
                writer.write_table(table)
        (folder / "dataset_info.json").write_text(json.dumps({"features": CLIMATE_FEATURES}))
        (folder / "state.json").write_text("{}")
    (root / "dataset_dict.json").write_text(json.dumps({"splits": ["train", "test"]}))
    report = run_import(store, ImportRequest(root, split="test"))
    assert report.counts.added == 2 and report.plan.source.format == "arrow"
    assert store.claims.get(store.claims.resolve("saved-test:50")).label == "NOT_ENOUGH_INFO"  # 50 % 4 = 2


def test_gzip_is_read_as_it_streams(store, tmp_path):
    path = tmp_path / "fever.jsonl.gz"
    path.write_bytes(gzip.compress((FIXTURES / "fever.jsonl").read_bytes()))
    report = run_import(store, ImportRequest(path))
    assert (report.dataset.name, report.plan.mapping.name, report.counts.added) == ("fever", "fever", 3)


def test_tsv_with_a_header_and_csv_without_one(store, tmp_path):
    tsv = tmp_path / "mine.tsv"
    tsv.write_text(
        "id\tclaim\tlabel\tspeaker\n1\tThe ferry is late.\tRefuted\tBo\n2\tThe bus is on time.\tSupported\tAl\n"
    )
    report = run_import(store, ImportRequest(tsv))
    assert report.counts.added == 2 and store.claims.count("attr.speaker:Bo") == 1
    headerless = tmp_path / "rows.csv"
    headerless.write_text('a1,"The ferry, as always, is late.",no\na2,The bus is early.,yes\n')
    # Two rows of text cannot tell a header from data: the sniffer reads a header, and the
    # error says which row was read as names and the flag that reads it as data instead.
    with pytest.raises(BadInput, match="the first row was read as column names: a1, .*--columns a,b,c"):
        run_import(store, ImportRequest(headerless))
    report = run_import(store, ImportRequest(headerless, columns=["id", "claim", "label"]))
    assert store.claims.get(store.claims.resolve("rows:a1")).text == "The ferry, as always, is late."
    assert report.dataset.label_space.labels == ["no", "yes"]  # yes/no are no verdicts: its own labels


def test_json_objects_keyed_by_id_or_holding_a_list(store, tmp_path):
    keyed = tmp_path / "keyed.json"
    keyed.write_text(
        json.dumps({"c1": {"claim": "X is Y.", "label": "Supported"}, "c2": {"claim": "Y is Z.", "label": "Refuted"}})
    )
    report = run_import(store, ImportRequest(keyed))
    assert report.counts.added == 2 and store.claims.resolve("keyed:c2") is not None
    wrapped = tmp_path / "wrapped.json"
    wrapped.write_text(json.dumps({"version": 2, "data": [{"id": "w1", "claim": "A.", "label": "Supported"}]}))
    assert run_import(store, ImportRequest(wrapped)).counts.added == 1


def test_a_mapping_on_the_command_line_for_a_benchmark_without_a_profile(tmp_path):
    path = tmp_path / "bench.jsonl"
    records = [
        {
            "uid": f"u{i}",
            "prompt_claim": f"Claim {i}.",
            "verdict": v,
            "sources": [{"link": f"https://e/{i}", "snippet": f"Snippet {i}."}],
            "topic": "science",
        }
        for i, v in enumerate(["Yes", "No", "Unclear"])
    ]
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    db = tmp_path / "w.db"
    args = [
        "--db",
        db,
        "import",
        path,
        "--map",
        "id=uid",
        "--map",
        "claim=prompt_claim",
        "--map",
        "label=verdict",
        "--map",
        "evidence=sources[]",
        "--map",
        "evidence.url=link",
        "--map",
        "evidence.text=snippet",
        "--map",
        "domain=topic",
        "--exclude-label",
        "Unclear",
    ]
    result = run(*args)
    assert result.exit_code == 0, result.output
    assert "label space bench (the file's own): Yes 1, No 1, Unclear 1" in result.output
    shown = json.loads(run("--db", db, "show", "bench:u0", "--json").output)
    assert shown["evidence"][0]["url"] == "https://e/0" and shown["domain"] == "science"
    assert shown["attributes"] == {}  # every field was mapped


def test_save_a_profile_and_use_it(tmp_path, monkeypatch):
    config = tmp_path / "config" / "config.toml"
    config.parent.mkdir()
    monkeypatch.setenv("WORKBENCH_CONFIG", str(config))
    path = tmp_path / "bench.jsonl"
    path.write_text(json.dumps({"uid": "u1", "statement_text": "A is B.", "verdict": "Refuted"}) + "\n")
    db = tmp_path / "w.db"
    saved = run(
        "--db",
        db,
        "import",
        path,
        "--map",
        "id=uid",
        "--map",
        "claim=statement_text",
        "--map",
        "label=verdict",
        "--save-profile",
        "mybench",
    )
    assert saved.exit_code == 0, saved.output
    assert (config.parent / "profiles" / "mybench.toml").is_file()
    listed = run("profiles")
    assert "mybench" in listed.output and "(yours)" in listed.output
    again = run("--db", tmp_path / "other.db", "import", path, "--profile", "mybench")
    assert again.exit_code == 0 and "profile mybench, --profile" in again.output


def test_the_dry_run_shows_the_mapping_first_claims_and_warnings_and_writes_nothing(tmp_path):
    db = tmp_path / "never.db"
    result = run("--db", db, "import", FIXTURES / "averitec_train.json", "--dry-run")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "dry run: nothing is written" in out and "profile averitec, detected" in out
    assert "evidence       <- questions[].answers[]?" in out and "claim 1 as stored:" in out
    assert "an empty question" in out and "label space averitec" in out
    assert not db.exists()


def db_counts(db) -> tuple:
    with sqlite3.connect(db) as conn:
        return tuple(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("datasets", "claims"))


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "w.db"
    assert run("--db", path, "import", FIXTURES / "fever.jsonl").exit_code == 0
    return path


def one_line_error(result) -> str:
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    return lines[0]


def test_a_mapping_naming_a_field_no_record_has_lists_the_fields(db, tmp_path):
    before = db_counts(db)
    line = one_line_error(run("--db", db, "import", FIXTURES / "climate-fever.jsonl", "--map", "claim=statment"))
    assert "--map claim=statment: no record has a field 'statment'" in line
    assert "the file's fields are claim, claim_id, claim_label, evidences" in line
    assert db_counts(db) == before


def test_a_list_path_applied_to_a_scalar_names_record_and_path(db):
    line = one_line_error(
        run("--db", db, "import", FIXTURES / "fever.jsonl", "--profile", "workbench", "--map", "explode=claim[]")
    )
    assert "fever.jsonl:1" in line and "'claim[]' takes each element of a list" in line and "str" in line


def test_an_unknown_profile_lists_the_profiles(db):
    line = one_line_error(run("--db", db, "import", FIXTURES / "fever.jsonl", "--profile", "fevr"))
    assert "no import profile 'fevr'; profiles: averitec, averitec-predictions, claimreview, climate-fever," in line


def test_labels_the_mapping_does_not_cover_are_each_counted(db, tmp_path):
    lines = (FIXTURES / "climate-fever.jsonl").read_text().splitlines()
    odd = [json.loads(line) for line in lines] + [
        {"claim_id": str(10 + i), "claim": f"c{i}", "claim_label": "MAYBE", "evidences": []} for i in range(3)
    ]
    path = tmp_path / "climate.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in odd) + "\n")
    before = db_counts(db)
    line = one_line_error(run("--db", db, "import", path))
    assert "unknown labels 'MAYBE' (3, first on line 5)" in line and db_counts(db) == before


def test_a_parquet_file_that_is_not_parquet(db, tmp_path):
    path = tmp_path / "fake.parquet"
    path.write_text("id,claim\n1,x\n")
    line = one_line_error(run("--db", db, "import", path))
    assert f"{path}: is not a Parquet file" in line


def test_strict_refuses_at_the_first_warning_and_writes_nothing(db):
    before = db_counts(db)
    line = one_line_error(run("--db", db, "import", FIXTURES / "averitec_train.json", "--strict"))
    assert "an empty question" in line and "--strict refuses it" in line and "(record 0)" in line
    assert db_counts(db) == before


def test_a_bad_profile_file_names_itself(tmp_path, monkeypatch):
    config = tmp_path / "config.toml"
    monkeypatch.setenv("WORKBENCH_CONFIG", str(config))
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "broken.toml").write_text('[fields]\nclaimm = "x"\n')
    line = one_line_error(run("--db", tmp_path / "w.db", "import", FIXTURES / "fever.jsonl", "--profile", "broken"))
    assert "broken.toml: fields: no field 'claimm' to map (did you mean claim?)" in line


def test_a_folder_copied_from_fixtures_imports_each_file_format(store, tmp_path):
    folder = tmp_path / "liar"
    folder.mkdir()
    shutil.copy(FIXTURES / "liar_train.tsv", folder / "train.tsv")
    report = run_import(store, ImportRequest(folder))
    assert report.plan.mapping.name == "liar" and report.counts.added == 3
    preview = dry_run(ImportRequest(folder / "train.tsv", label_maps=["pants-fire=false"]))
    assert preview.plan.mapping.labels.map["pants-fire"] == "false"


def test_mapping_errors_are_workbench_errors():
    with pytest.raises(MappingError, match="--map wants FIELD=PATH"):
        dry_run(ImportRequest(FIXTURES / "fever.jsonl", maps=["claim"]))
