"""Completeness across shapes: a generated messy file (tests/support/messy_files.py) imports
with no flags, or with the one flag its error names, and every raw value it holds is found
in the database (claim text, label as spelt, an attribute under the name the note gives),
or in a warning that names its line and field."""

from __future__ import annotations

import itertools
import math
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from store import Store
from tests.support.messy_files import MessyFile, messy_files
from workbench.importers import ImportRequest, run_import
from workbench.importers.reading import BadInput

NUMBERS = itertools.count()


@pytest.fixture(scope="module")
def shared_store(tmp_path_factory):
    """One database for every example (opening one costs more than an import); each example
    imports its own dataset."""
    store = Store.open(tmp_path_factory.mktemp("corpus") / "w.db")
    yield store
    store.close()


def imported(store: Store, file: MessyFile, path: Path, dataset: str):
    """The import with no flags; if its error names a flag (--header: a header row a few text
    rows cannot tell from data; --delimiter: rows too few and odd to tell it), once more with
    that flag, as a user would."""
    try:
        return run_import(store, ImportRequest(path, dataset=dataset))
    except BadInput as error:
        said = str(error)
        if "--header" in said:  # the flag the error names first for a header it could not tell
            return run_import(
                store,
                ImportRequest(
                    path, dataset=dataset, header=True, delimiter=file.delimiter if "--delimiter" in said else None
                ),
            )
        if "--delimiter" in said and file.delimiter:
            return run_import(store, ImportRequest(path, dataset=dataset, delimiter=file.delimiter))
        raise


def found(value, key: str, claim, warnings) -> bool:
    if value in (None, ""):
        return True  # nothing to find
    if isinstance(value, float) and math.isnan(value):
        return key in claim.attributes or any(w.field == key and w.line for w in warnings)
    return claim.attributes.get(key) == value


def assert_evidence_kept(value, claim) -> None:
    """A string is one passage, strings are passages, objects are read for their text,
    pointers are kept whole as attr.evidence, and empty is no evidence."""
    texts = [item.text for item in claim.evidence]
    if value in (None, "", []):
        assert texts == [], texts
    elif isinstance(value, str):
        assert texts == [value]
    elif all(isinstance(item, str) for item in value):
        assert texts == value
    elif all(isinstance(item, dict) for item in value):
        assert texts == [item["text"] for item in value]
    else:  # pointers: numbers and page titles, not text
        assert claim.attributes.get("evidence") == value, claim.attributes


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(file=messy_files())
def test_every_value_of_a_messy_file_is_found(shared_store, file):
    dataset = f"d{next(NUMBERS)}"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / file.name
        path.write_bytes(file.data)
        report = imported(shared_store, file, path, dataset)
    warnings = report.warnings.items
    assert report.counts.added == len(file.rows), report.warnings.notes
    for row in file.rows:
        claim = shared_store.claims.get(shared_store.claims.resolve(f"{dataset}:{row['id']}"))
        assert claim.text == row["claim"]
        assert claim.raw_label == row["label"]
        for key, value in row.items():
            if key not in ("id", "claim", "label", "evidence"):
                assert found(value, key, claim, warnings), (key, value, claim.attributes)
        if file.evidence:
            assert_evidence_kept(row["evidence"], claim)
    assert not any("empty evidence" in (w.kind or w.message) for w in warnings), warnings
    if file.encoding not in ("utf-8", "utf-8-sig"):  # named in the note (Shift_JIS as cp932, its superset)
        named = {"shift_jis": "cp932", "utf-16": "utf16"}.get(file.encoding, file.encoding)
        assert any(named in note.replace("-", "") for note in report.warnings.notes), report.warnings.notes
