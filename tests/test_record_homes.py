"""The store's records live by what reads them: a reading command makes only the dataclasses
it prints (each costs it about a millisecond), and every record is still found in
store.records and store, checked by pydantic as before when outside data comes in."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

import store
import store.records as records
from store.records import Claim, Dataset, Evidence, Flag, LabelSpace, Prediction, Run, validated
from tests.support.reading import modules_at_exit

RECORDS = ("Claim", "ClaimImage", "Evidence", "LabelSpace", "Dataset", "Run", "Prediction", "Flag")


def test_every_record_is_found_where_it_was():
    for name in RECORDS:
        assert getattr(records, name) is getattr(store, name)
        assert name in dir(records)
    with pytest.raises(AttributeError, match="no attribute 'Claims'"):
        records.Claims  # noqa: B018


def test_outside_data_is_checked_as_before():
    claim = validated(Claim, {"external_id": "a1", "text": "Tides", "evidence": [{"kind": "qa", "text": "yes"}]})
    assert isinstance(claim.evidence[0], Evidence) and claim.evidence[0].text == "yes"
    with pytest.raises(ValidationError, match="claim text is empty"):
        validated(Claim, {"external_id": "a1", "text": "  "})
    with pytest.raises(ValidationError, match="colour"):
        validated(Claim, {"external_id": "a1", "text": "Tides", "colour": "red"})
    with pytest.raises(ValidationError, match="evidence.0.kind"):
        validated(Claim, {"external_id": "a1", "text": "Tides", "evidence": [{"kind": "rumour"}]})
    with pytest.raises(ValidationError, match="importance"):
        validated(Claim, {"external_id": "a1", "text": "Tides", "importance": "Big"})
    space = validated(Dataset, {"name": "d", "source_format": "csv", "label_space": {"name": "x", "labels": ["A"]}})
    assert isinstance(space.label_space, LabelSpace)
    with pytest.raises(ValidationError, match="status"):
        validated(Run, {"name": "r", "model": "m", "status": "sleeping"})
    with pytest.raises(ValidationError, match="run_id"):
        validated(Prediction, {"claim_id": 1, "status": "ok"})
    assert validated(Flag, {"claim_id": 1, "kind": "contaminated"}).source == "manual"


def made_by(db, *command: str) -> set[str]:
    """The records a command's process had made when it exited (held by any store module)."""
    _, store_modules = modules_at_exit(db, list(command))
    return {name for names in store_modules.values() for name in names if name in RECORDS}


def test_the_reading_commands_make_only_the_records_they_print(demo_with_a_search):
    assert made_by(demo_with_a_search, "claims", "--limit", "3") == set()
    assert made_by(demo_with_a_search, "runs") == {"Run"}
    assert made_by(demo_with_a_search, "datasets") == {"Dataset", "LabelSpace"}
    assert "Run" not in made_by(demo_with_a_search, "show", "1")


def test_a_listing_without_a_filter_loads_no_filter_parser_migration_or_json(demo_with_a_search):
    modules, _ = modules_at_exit(demo_with_a_search, ["claims", "--limit", "3"])
    unwanted = {"store.filters", "store.filter_terms", "store.migrations", "store.migration_registry", "json"}
    assert unwanted & set(modules) == set()
    modules, _ = modules_at_exit(demo_with_a_search, ["claims", "--where", "label:Refuted"])
    assert "store.filters" in modules  # a filter is compiled as before


def test_a_filter_loads_only_the_parts_its_terms_need(demo_with_a_search):
    modules, _ = modules_at_exit(demo_with_a_search, ["predictions", "demo-checker", "--wrong"])
    assert "store.filters" in modules  # run:N wrong is compiled
    assert {"store.flag_specs", "store.text_search"} & set(modules) == set()
    modules, _ = modules_at_exit(demo_with_a_search, ["claims", "--where", "flagged:any vitamin"])
    assert {"store.flag_specs", "store.text_search"} <= set(modules)


def test_runs_of_answers_made_elsewhere_read_no_price_table(demo_with_a_search):
    """The demo's runs are imported answers: they have no price here, so `runs` reads neither
    our price table nor the config (tomllib) for them; a model that needs a price reads both."""
    from workbench.usage.prices import PriceTable

    modules, _ = modules_at_exit(demo_with_a_search, ["runs"])
    assert {"tomllib", "workbench.config"} & set(modules) == set()

    read = []
    table = PriceTable(lambda: read.append("read") or {})
    assert table.for_model("imported:demo-checker") is None and table.for_model("gguf:x.gguf").local
    assert read == []
    assert table.for_model("openai:gpt-4o") is None and read == ["read"]
