"""The records and the settings are LazyModels: what the store reads back, what validation
makes and what they print are exactly what pydantic's model of the same declaration gives."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from store import Claim, ClaimImage, Dataset, Evidence, Flag, LabelSpace, Prediction, Run, Store
from store.lazy_model import Field, LazyModel
from workbench.config import SecretStr, Settings


def typed(value):
    """JSON that tells 1 from 1.0 from true (equality in Python does not)."""
    if isinstance(value, LazyModel):
        value = value.model_dump()
    return json.dumps(value, default=repr, sort_keys=True)


def as_pydantic(record: LazyModel):
    """The same record made by pydantic from the record's fields."""
    return type(record).pydantic_model().model_validate(record.model_dump())


@pytest.fixture(scope="module")
def full_demo(tmp_path_factory) -> Store:
    from workbench.cli.demo import load_claimreview_demo, load_demo, load_demo_team

    store = Store.open(tmp_path_factory.mktemp("demo") / "demo.db")
    load_demo(store)
    load_demo_team(store)
    load_claimreview_demo(store)
    yield store
    store.close()


def stored_records(store: Store) -> list[LazyModel]:
    claim_ids = [row[0] for row in store.db.execute("SELECT id FROM claims ORDER BY id")]
    records = [*store.datasets.list(), *(store.claims.get(i) for i in claim_ids), *store.runs.claims(claim_ids)]
    for run in store.runs.list():
        records += [run, *store.runs.predictions(run.id)]
    records += [flag for i in claim_ids for flag in store.annotations.flags_for(i)]
    return records


def test_what_the_store_reads_back_is_what_pydantic_makes_of_it(full_demo):
    records = stored_records(full_demo)
    kinds = {type(r) for r in records} | {type(e) for r in records if isinstance(r, Claim) for e in r.evidence}
    assert {Dataset, Claim, Evidence, Run, Prediction, Flag} <= kinds
    assert any(isinstance(r, Claim) and r.images for r in records)  # ClaimImage too
    for record in records:
        assert typed(record) == typed(as_pydantic(record).model_dump()), record


def test_show_json_is_pydantic_json(full_demo):
    claim_ids = [row[0] for row in full_demo.db.execute("SELECT id FROM claims ORDER BY id LIMIT 40")]
    for claim_id in claim_ids:
        claim = full_demo.claims.get(claim_id)
        assert claim.model_dump_json(indent=2) == as_pydantic(claim).model_dump_json(indent=2)
        assert claim.model_dump(mode="json") == as_pydantic(claim).model_dump(mode="json")


VALID = [
    (Prediction, {"run_id": 1, "claim_id": 2, "status": "ok", "latency_s": 1, "tokens_in": 5}),
    (Prediction, {"run_id": 1, "claim_id": 2, "status": "error", "cached": 1, "parsed": {"a": [1]}}),
    (Prediction, {"run_id": "1", "claim_id": 2, "status": "ok"}),  # pydantic turns "1" into 1
    (Run, {"name": "r", "model": "m", "params": {"temperature": 0.5}, "status": "finished"}),
    (Flag, {"claim_id": 3, "kind": "contaminated", "score": 1, "source": "pipeline"}),
    (LabelSpace, {"name": "x", "labels": ["a", "b"], "excluded": ("c",)}),
    (Claim, {"external_id": "e", "text": "t", "evidence": [{"kind": "qa", "is_cited": 1}]}),
    (Claim, {"external_id": "e", "text": "t", "images": [{"source": "a.png", "bytes": 3}]}),
    (Dataset, {"name": "d", "source_format": "jsonl", "label_space": {"name": "x", "labels": ["a"]}}),
    (Dataset, {"name": "d", "source_format": "jsonl", "label_space": LabelSpace(name="x", labels=["a"])}),
    (Evidence, {"kind": "page", "rank": 2.0}),
    (ClaimImage, {"source": "s", "width": 10, "height": 20}),
]

INVALID = [
    (Prediction, {"run_id": 1, "claim_id": 2, "status": "maybe"}),
    (Prediction, {"run_id": 1, "status": "ok"}),
    (Run, {"name": "r", "model": "m", "unknown": 1}),
    (Claim, {"external_id": "e", "text": "   "}),
    (Claim, {"external_id": "e", "text": "t", "evidence": [{"kind": "hearsay"}]}),
    (LabelSpace, {"name": "x", "labels": "a"}),
    (Evidence, {"kind": "page", "rank": 2.5}),
    (Flag, {"claim_id": 3, "kind": "k", "source": "robot"}),
]


@pytest.mark.parametrize("model,values", VALID)
def test_validation_gives_what_pydantic_gives(model, values):
    made = model(**values)
    given = {key: value.model_dump() if isinstance(value, LazyModel) else value for key, value in values.items()}
    assert typed(made) == typed(model.pydantic_model()(**given).model_dump())
    assert typed(model.model_validate(values)) == typed(made)


@pytest.mark.parametrize("model,values", INVALID)
def test_invalid_values_get_pydantics_errors(model, values):
    with pytest.raises(ValidationError) as ours:
        model(**values)
    with pytest.raises(ValidationError) as theirs:
        model.pydantic_model()(**values)
    assert ours.value.errors(include_context=False) == theirs.value.errors(include_context=False)
    assert str(ours.value) == str(theirs.value)  # the same title, fields and messages


def test_dump_copy_and_equality_behave_as_pydantics():
    run = Run(name="r", model="m", params={"seed": 1})
    theirs = Run.pydantic_model()(name="r", model="m", params={"seed": 1})
    for options in ({}, {"exclude": {"id"}}, {"include": {"name", "params"}}, {"exclude_none": True},
                    {"mode": "json"}):
        assert typed(run.model_dump(**options)) == typed(theirs.model_dump(**options)), options
    dumped = run.model_dump()
    dumped["params"]["seed"] = 2  # a dump is a copy
    assert run.params == {"seed": 1}
    copy = run.model_copy(update={"status": "running"})
    assert copy.status == "running" and run.status == "pending" and copy != run
    assert copy.model_copy(update={"status": "pending"}) == run
    assert Run(name="r", model="m", params={"seed": 1}) == run
    assert repr(run).startswith("Run(id=None, name='r', ")
    run.status = "running"  # a field may be set (not validated, as in pydantic); a name that is none may not
    with pytest.raises(ValueError, match='"Run" object has no field "stauts"'):
        run.stauts = "running"


def test_the_store_refuses_a_row_with_a_column_no_record_has():
    with pytest.raises(ValueError, match="no field named colour"):
        Run.from_store({"name": "r", "model": "m", "colour": "red"})


def test_settings_take_plain_values_as_pydantic_would(tmp_path):
    made = Settings(prompts_dir="p", keys={"openai": "sk-1"}, search_fetch_private=True, bogus="ignored")
    theirs = Settings.pydantic_model()(prompts_dir="p", keys={"openai": "sk-1"}, search_fetch_private=True)
    assert made.prompts_dir == theirs.prompts_dir == Path("p")
    assert isinstance(made.keys["openai"], SecretStr) and isinstance(theirs.keys["openai"], SecretStr)
    assert made.keys["openai"].get_secret_value() == "sk-1" and "sk-1" not in repr(made)
    assert Settings(search_fetch_private="yes").search_fetch_private is True  # pydantic's reading of "yes"


def test_a_plain_config_file_is_read_without_pydantic(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('annotator = "ana"\ntheme = "textual-dark"\nprompts_dir = "prompts"\n'
                      'search_blocked_domains = ["example.org"]\n[keys]\nopenai = "sk-x"\n'
                      '[keymap]\n"claims.flag" = "ctrl+f"\n[ratings]\n"Bogus" = "false"\n')
    code = ("import json, sys\nfrom workbench.config import load_settings\ns = load_settings()\n"
            "print(json.dumps([s.annotator, str(s.prompts_dir), s.keys['openai'].get_secret_value(),"
            " 'pydantic' in sys.modules]))")
    env = {"WORKBENCH_CONFIG": str(config), "WORKBENCH_ANNOTATOR": "bo", "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            env={**env, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    assert json.loads(result.stdout) == ["bo", "prompts", "sk-x", False]


class Note(LazyModel):
    """A declaration of the test's own, with what the records do not use."""

    model_config = {"extra": "forbid"}
    text: str
    tags: list[str] = []
    score: float = 0
    path: Path | None = None
    size: int = Field(default=1, ge=1)


class Stripped(LazyModel):
    model_config = {"str_strip_whitespace": True}
    text: str


@pytest.mark.parametrize("values", [{"text": "x"}, {"text": "x", "tags": ["a"], "score": 2, "path": "p"},
                                    {"text": "x", "size": 3}, {"text": "x", "size": 0}, {"text": "x", "tags": "a"},
                                    {"text": "x", "path": 5}])
def test_a_declaration_of_our_own_behaves_as_pydantic(values):
    try:
        theirs = typed(Note.pydantic_model()(**values).model_dump())
    except ValidationError as error:
        with pytest.raises(ValidationError) as ours:
            Note(**values)
        assert str(ours.value) == str(error)
        return
    assert typed(Note(**values)) == theirs


def test_defaults_are_not_shared_and_configs_are_honoured():
    first, second = Note(text="a"), Note(text="b")
    first.tags.append("mine")
    assert second.tags == [] and Note.from_store({"text": "c"}).tags == []
    assert Stripped(text="  padded  ").text == "padded"  # a config the plain check does not know: pydantic's
