"""Attribute filters match what is stored: names as the file wrote them (capitals kept),
values by their JSON type, and every `--by attr.NAME` slice's filter finds exactly its claims."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.metrics.breakdown import NO_VALUE
from workbench.scoring.compare import filter_value

RECORDS = [  # (location_ISO_code, required_reannotation, n, misc)
    ("GB", False, 3, "a"),
    ("gb", True, 3.0, ["a", "b"]),
    ("US", False, "3", {"k": 1}),
    ("GB", None, 2.5, [1, "x", {"k": 1}]),
    ("GB", False, 3, "A"),
    ("[bold]GB", False, -1e3, True),
]
FIELDS = ("location_ISO_code", "required_reannotation", "n", "misc")


def cli(db, *args):
    result = CliRunner().invoke(main, ["--db", str(db), *args])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture
def db(tmp_path):
    claims, answers = tmp_path / "claims.jsonl", tmp_path / "answers.jsonl"
    rows = [
        {"id": f"c{i}", "claim": f"claim {i}", "label": ["true", "false"][i % 2], **dict(zip(FIELDS, values))}
        for i, values in enumerate(RECORDS)
    ]
    claims.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    answers.write_text(
        "".join(json.dumps({"id": row["id"], "verdict": "true"}) + "\n" for row in rows), encoding="utf-8"
    )
    db = tmp_path / "w.db"
    cli(db, "import", str(claims), "--dataset", "at")
    cli(db, "import-predictions", str(answers), "--dataset", "at", "--run", "R")
    return db


def matching(db, where: str) -> list[str]:
    lines = cli(db, "claims", "--where", where, "--json", "--limit", "100").splitlines()
    return sorted(json.loads(line)["external_id"] for line in lines if line.strip())


def test_an_attribute_named_with_capitals_is_found_by_its_name(db):
    assert matching(db, "attr.location_ISO_code:GB") == ["c0", "c3", "c4"]
    assert matching(db, "attr.location_ISO_code:gb") == ["c1"]  # values as stored: case counts
    assert matching(db, "attr.location_iso_code:GB") == []  # another attribute's name


def test_values_compare_by_their_json_type(db):
    assert matching(db, "attr.required_reannotation:false") == ["c0", "c2", "c4", "c5"]
    assert matching(db, "attr.required_reannotation:true") == ["c1"]
    assert matching(db, "attr.required_reannotation:null") == ["c3"]
    assert matching(db, "attr.n:3") == ["c0", "c1", "c2", "c4"]  # 3, 3.0 and the text "3"
    assert matching(db, "attr.n:2.5") == ["c3"]
    assert matching(db, "attr.n:-1000") == ["c5"]
    assert matching(db, "attr.misc:a") == ["c0", "c1"]  # a list matches any of its items
    assert matching(db, "attr.misc:1") == ["c3"]
    assert matching(db, f"attr.misc:{filter_value(json.dumps({'k': 1}, separators=(',', ':')))}") == ["c2", "c3"]
    assert matching(db, "attr.misc:true") == ["c5"]


@pytest.mark.parametrize("field", FIELDS)
def test_every_breakdown_row_filter_finds_exactly_its_count(db, field):
    report = json.loads(cli(db, "metrics", "R", "--by", f"attr.{field}", "--json", "--resamples", "0"))
    slices = report["runs"][0]["all"]["breakdowns"][f"attr.{field}"]
    assert len(slices) >= 2
    for value, numbers in slices.items():
        if value == NO_VALUE:
            continue
        found = matching(db, f"run:R attr.{field}:{filter_value(value)}")
        assert len(found) == numbers["scored"], (value, found)
