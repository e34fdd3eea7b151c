"""Completeness, as a property: through every built-in profile, in the shape of its fixture,
a record's every value ends up in a mapped field, an attribute, or a warning that names it.

Hypothesis adds fields nobody maps (nested objects, lists, NaN and Infinity, numbers,
empty strings, nulls) at the top of a record and inside the objects a profile reads in
part, imports the record, and reads the database back. An export then imports again as
the same claims."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from store import Store, as_dict
from tests.conftest import DEMO_DATA
from tests.support.import_fixtures import FIXTURES
from workbench.exporters import export_claims
from workbench.importers import ImportRequest, run_import
from workbench.importers.values import json_safe

# profile -> (its fixture, where extra fields go besides the top: (object path, where they end up)).
# "claim" puts a field named NAME in the object at that path into the claim's attributes as
# "PREFIX.NAME" (or NAME for an empty prefix); "item N" into the N-th evidence item's.
PROFILES = {
    "fever": (FIXTURES / "fever.jsonl", []),
    "climate-fever": (FIXTURES / "climate-fever.jsonl", [("evidences[0]", "item 0", "")]),
    "hover": (FIXTURES / "hover_train.json", []),
    "wice": (FIXTURES / "wice.jsonl", [("meta", "claim", "meta")]),
    "scifact": (FIXTURES / "scifact" / "claims_dev.jsonl", []),
    "felm": (FIXTURES / "felm_wk.jsonl", []),
    "liar-plus": (FIXTURES / "liar_plus_upstream.jsonl", []),
    "factcheck-bench": (FIXTURES / "factcheck_bench.jsonl", [("sentences.sentence1", "claim", "")]),
    "factcheck-bench-claims": (FIXTURES / "factcheck_bench_claims.jsonl", []),
    "averitec": (
        FIXTURES / "averitec_train.json",
        [("questions[0]", "claim", "questions[0]"), ("questions[0].answers[0]", "item 0", "")],
    ),
    "jsfactcheck": (DEMO_DATA / "jsfactcheck.jsonl", []),
    "realfactbench": (DEMO_DATA / "realfactbench.json", []),
}


def names(prefix: str):
    return st.text("abcdefghij_", min_size=1, max_size=8).map(lambda text: prefix + text)


scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.text(max_size=12)
    | st.floats(allow_nan=True, allow_infinity=True)
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text("xyz", min_size=1, max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)
extras = st.dictionaries(names("extra_"), values, min_size=1, max_size=3)
inner_extras = st.dictionaries(names("inner_"), values, min_size=1, max_size=3)


def first_record(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return json.loads(text)[0]
    return next(json.loads(line) for line in text.splitlines() if line.strip() and "_dataset" not in line)


def write_like(source: Path, record: dict, folder: Path) -> Path:
    """The record alone, in its fixture's format (JSON allows NaN and Infinity, as Python writes them)."""
    path = folder / source.name
    if source.suffix == ".json":
        path.write_text(json.dumps([record], indent=2), encoding="utf-8")
    else:
        path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    return path


def put(record: dict, where: str, extra: dict) -> None:
    target = record
    for part in where.replace("]", "").replace("[", ".").split("."):
        target = target[int(part)] if part.isdigit() else target[part]
    target.update(extra)


def non_finite(value) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, list):
        return any(non_finite(item) for item in value)
    if isinstance(value, dict):
        return any(non_finite(item) for item in value.values())
    return False


def claims_of(store: Store, dataset: str):
    return [store.claims.get(i) for i in store.claims.ids(f'dataset:"{dataset}"')]


def check_kept(attributes: dict, extra: dict, prefix: str, warnings) -> None:
    for name, value in extra.items():
        key = f"{prefix}.{name}" if prefix else name
        assert key in attributes, (key, sorted(attributes))
        assert attributes[key] == json_safe(value), key
        if non_finite(value):
            assert any(w.field and w.field.endswith(name) or name in (w.field or "") for w in warnings), key


@pytest.mark.parametrize("profile", sorted(PROFILES))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(top=extras, nested=inner_extras)
def test_every_value_of_a_record_is_kept_or_named(profile, top, nested):
    source, inside = PROFILES[profile]
    record = first_record(source)
    record.update(top)
    for where, _, _ in inside:
        put(record, where, nested)
    with tempfile.TemporaryDirectory() as folder:
        path = write_like(source, record, Path(folder))
        store = Store.open(Path(folder) / "w.db")
        try:
            report = run_import(store, ImportRequest(path, profile=profile, dataset="d"))
            warnings = report.warnings.items
            claims = claims_of(store, "d")
            assert claims
            for claim in claims:  # an exploded record's fields go with every claim it makes
                check_kept(claim.attributes, top, "", warnings)
            for _where, end, prefix in inside:
                if end == "claim":
                    for claim in claims:
                        if profile != "factcheck-bench" or claim.attributes.get("sentence") == "sentence1":
                            check_kept(claim.attributes, nested, prefix, warnings)
                else:
                    check_kept(claims[0].evidence[int(end.split()[1])].attributes, nested, prefix, warnings)
            export = Path(folder) / "export.jsonl"
            export_claims(store, 'dataset:"d"', "jsonl", export)
            again = run_import(store, ImportRequest(export, dataset="d-again"))
            assert again.counts.added == len(claims)
            for first, second in zip(claims, claims_of(store, "d-again")):
                keep = {"id", "dataset"}
                assert as_dict(first, exclude=keep) == as_dict(second, exclude=keep)
        finally:
            store.close()


@pytest.mark.parametrize("value", [12345, 2.5, float("nan"), float("inf")])
def test_a_number_or_nan_as_claim_text_is_a_warning_never_silent(tmp_path, value):
    path = tmp_path / "odd.jsonl"
    path.write_text(
        json.dumps({"id": "a", "claim": value, "label": "true"})
        + "\n"
        + json.dumps({"id": "b", "claim": "text", "label": "false"})
        + "\n",
        encoding="utf-8",
    )
    store = Store.open(tmp_path / "w.db")
    try:
        report = run_import(store, ImportRequest(path))
        said = report.warnings.items  # NaN: no value, so also a record without claim text (skipped)
        assert said and all((w.field, w.line) == ("claim", 1) for w in said)
        assert len(said) == (2 if isinstance(value, float) and not math.isfinite(value) else 1)
    finally:
        store.close()


def test_a_null_in_a_field_a_profile_keeps_as_an_attribute_stays_null(tmp_path):
    record = first_record(FIXTURES / "averitec_train.json")
    record.update(original_claim_url=None, reporting_source="")
    record["questions"][0]["answers"][0]["source_medium"] = None
    store = Store.open(tmp_path / "w.db")
    try:
        run_import(
            store,
            ImportRequest(
                write_like(FIXTURES / "averitec_train.json", record, tmp_path), profile="averitec", dataset="d"
            ),
        )
        (claim,) = claims_of(store, "d")
        assert claim.attributes["original_claim_url"] is None and claim.attributes["reporting_source"] == ""
        assert claim.evidence[0].attributes["source_medium"] is None
    finally:
        store.close()
