"""The filter language: what users type, what it matches, and what it refuses."""

from __future__ import annotations

import json

import pytest

from store import FilterError, PageRequest, Prediction, Run, compile_filter
from workbench.importers import import_file


@pytest.fixture
def filled(store, tmp_path):
    records = [
        {"_dataset": {"name": "t", "label_space": "jsfactcheck"}},
        {
            "id": "a",
            "claim": "The vaccine trial ended early.",
            "label": "Refuted",
            "importance": "Main",
            "claim_date": "2024-03-01",
            "task": "EV",
            "attributes": {"types": ["Numerical", "Causal"], "n": 3},
        },
        {
            "id": "b",
            "claim": "The bridge opened in 1931.",
            "label": "Supported",
            "importance": "Sub",
            "claim_date": "2025-06-01",
            "question": "When?",
            "response": "The bridge opened in 1931.",
            "evidence": [{"kind": "page", "url": "u", "text": "Lighthouse keepers wrote logs.", "cited": True}],
        },
        {"id": "c", "claim": "Vaccines cause [bold]x[/ claims; DROP TABLE claims;--", "label": "Unclear"},
        {"id": "d", "claim": "A wrong claim about nothing.", "label": "NotEnoughInfo", "importance": "Main"},
    ]
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records), encoding="utf-8")
    import_file(store, path)
    return store


def ids(store, text: str) -> list[str]:
    return [r.external_id for r in store.claims.page(PageRequest(filter=text))]


@pytest.mark.parametrize(
    "text,expected",
    [
        ("", ["a", "b", "c", "d"]),
        ("label:Refuted", ["a"]),
        ("label:refuted", ["a"]),
        ("-label:Refuted", ["b", "c", "d"]),
        ("importance:Main", ["a", "d"]),
        ("vaccine", ["a"]),
        ("vacc*", ["a", "c"]),
        ('"bridge opened"', ["b"]),
        ("-vaccine importance:Main", ["d"]),
        ('"wrong"', ["d"]),
        ("date<2025-01-01", ["a"]),
        ("date>=2025-01-01", ["b"]),
        ("date:2024", ["a"]),
        ("attr.types:Causal", ["a"]),
        ("attr.types:causal", []),  # values as stored, so a breakdown row and its filter agree
        ("attr.n:3", ["a"]),
        ("has:response", ["b"]),
        ("has:pages", ["b"]),
        ("evidence:lighthouse", ["b"]),
        ("dataset:t task:EV", ["a"]),
        ("ext:c", ["c"]),
        ("id>2", ["c", "d"]),
        ('"DROP TABLE claims"', ["c"]),
        ("[bold]x[/", ["c"]),
        ("date:2024-03", ["a"]),
        ("date<=2024-02-29", []),
        ("or", []),  # only the capitalised OR / AND / NOT are refused; lower case is a word
    ],
)
def test_filters_match_what_they_say(filled, text, expected):
    assert ids(filled, text) == expected
    assert filled.claims.count(text) == len(expected)


def test_flags_and_run_terms(filled):
    store = filled
    a, b, c, d = (store.claims.resolve(f"t:{x}") for x in "abcd")
    store.annotations.flag([a, b], "contaminated", note="seen before")
    assert ids(store, "flagged:contaminated") == ["a", "b"]
    assert ids(store, "-flagged:contaminated") == ["c", "d"]
    assert ids(store, "flagged:any label:Supported") == ["b"]
    run = store.runs.create(Run(name="r1", model="gguf:default", dataset_id=1), [a, b, c, d])
    for claim_id, status, verdict in [(a, "ok", "Refuted"), (b, "ok", "Refuted"), (c, "abstain", "unknown")]:
        store.runs.record(Prediction(run_id=run.id, claim_id=claim_id, status=status, verdict=verdict))
    assert ids(store, "run:r1 right") == ["a"]
    assert ids(store, "run:r1 wrong") == ["b"]  # c's gold (Unclear) is excluded from scoring
    assert ids(store, "run:r1 missing") == ["d"]
    assert ids(store, "run:r1 verdict:unknown") == ["c"]
    assert ids(store, "run:r1 status:abstained") == ["c"]
    prediction = store.runs.prediction(run.id, b)
    category = store.annotations.categories()[1]
    store.annotations.toggle_category(prediction.id, category.id, who="tester")
    assert ids(store, f"triage:{category.slug}") == ["b"]
    assert ids(store, f"run:r1 triage:{category.slug}") == ["b"]


@pytest.mark.parametrize(
    "text,message,column",
    [
        ("lable:Refuted", "unknown field 'lable'; did you mean label?", 1),
        ("label:Refuted wrong", "wrong needs a run: put run:NAME before it", 15),
        ("run:nope", "no run named 'nope'", 1),
        ("dataset:nope", "no dataset named 'nope'", 1),
        ("date<yesterday", "date needs a date like 2025-01-31", 1),
        ('label:"Not Enough', "unbalanced quote", 1),
        ('x "open', "unbalanced quote", 3),
        ("id:abc", "id needs a whole number", 1),
        ("has:nothing", "has: takes one of", 1),
        ("importance<Main", "importance takes : or =, not <", 1),
        ("triage:nonsense", "no failure category named 'nonsense'", 1),
        ("label:", "label: needs a value", 1),
        ("-", "nothing to search for", 1),
        ("date<2024-13-45", "date needs a date like 2025-01-31, not '2024-13-45'", 1),
        ("reftime>=2024-02-30", "reftime needs a date like", 1),
        ("date:2024-00", "date needs a date like", 1),
        ("label:Refuted OR label:Supported", "there is no OR: terms are always combined with AND", 15),
        ("vaccine AND bridge", "there is no AND", 9),
    ],
)
def test_bad_filters_say_what_and_where(filled, text, message, column):
    with pytest.raises(FilterError) as caught:
        filled.claims.count(text)
    assert message in str(caught.value)
    assert caught.value.start + 1 == column


@pytest.mark.parametrize(
    "hostile",
    [
        "label:'; DROP TABLE claims; --",
        'label:"x\' OR 1=1 --"',
        "attr.x') OR 1=1 --:y",
        '"a" OR "b"',
        "NEAR(a b)",
        "claims_fts:*",
        '"\\"" ; DELETE FROM claims',
    ],
)
def test_injection_attempts_are_values_never_sql(filled, hostile):
    try:
        filled.claims.count(hostile)
    except FilterError:
        pass
    assert filled.claims.count("") == 4
    assert filled.db.execute("SELECT count(*) FROM datasets").fetchone()[0] == 1


def test_values_are_always_bound_parameters():
    compiled = compile_filter("label:Refuted source:\"x' OR '1'='1\" vaccine")
    assert "Refuted" not in compiled.where and "OR '1'" not in compiled.where
    assert compiled.params == ['"vaccine"', "Refuted", "x' OR '1'='1"]
