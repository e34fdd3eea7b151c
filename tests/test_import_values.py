"""Values as real files give them (issue 31, items 2, 3, 6): evidence of any shape kept as
evidence, labels kept as the file spells them unless a built-in space takes them (every
fold listed), and nothing lost on the way (empty cells, missing images, sentences without
claims, the latest import's profile)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from store import Store
from workbench.importers import ImportRequest, run_import


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


def claims_of(store, dataset: str) -> dict:
    return {
        claim.external_id: claim for claim in (store.claims.get(i) for i in store.claims.ids(f'dataset:"{dataset}"'))
    }


def kinds(report) -> list[str]:
    return [warning.kind for warning in report.warnings.items]


# -- evidence of any shape ----------------------------------------------------------------------

POINTERS = [
    [[92206, 104971, "Nikolaj_Coster-Waldau", 7], [92206, 104971, "Fox_Broadcasting_Company", 0]],
    [[92207, None, None, None]],
]


@pytest.mark.parametrize(
    "evidence, texts, attributes, warned",
    [
        ("The river floods every spring.", ["The river floods every spring."], {}, []),
        (["First passage.", "Second passage."], ["First passage.", "Second passage."], {}, []),
        ([{"text": "An object's text.", "url": "https://e.org/a"}], ["An object's text."], {}, []),
        (POINTERS, [], {"evidence": POINTERS}, []),
        ([3, 17], [], {"evidence": [3, 17]}, []),
        ({"text": "One object, not a list."}, ["One object, not a list."], {}, []),
        ("", [], {}, []),
        ([], [], {}, []),
        (None, [], {}, []),
        (["Kept.", "", "  "], ["Kept."], {}, ["empty evidence item dropped"] * 2),
    ],
    ids=[
        "string",
        "strings",
        "objects",
        "pointers",
        "numbers",
        "one-object",
        "empty-string",
        "empty-list",
        "null",
        "blank-strings",
    ],
)
def test_evidence_of_each_shape_is_kept_as_evidence(store, tmp_path, evidence, texts, attributes, warned):
    path = write_jsonl(
        tmp_path / "shapes.jsonl", [{"id": "a", "claim": "A claim.", "label": "true", "evidence": evidence}]
    )
    report = run_import(store, ImportRequest(path))
    claim = claims_of(store, "shapes")["a"]
    assert [item.text for item in claim.evidence] == texts
    assert claim.attributes == attributes
    assert kinds(report) == warned
    if attributes:  # pointers are said in the notes, with where they are kept
        assert any("pointers" in note and "attr.evidence" in note for note in report.warnings.notes)


def test_an_item_that_holds_something_is_not_called_empty(store, tmp_path):
    path = write_jsonl(
        tmp_path / "held.jsonl",
        [
            {
                "id": "a",
                "claim": "x",
                "label": "true",
                "evidence": [{"text": "kept"}, {"text": "", "url": "", "rating": 3}, {"text": "", "url": None}],
            }
        ],
    )
    report = run_import(store, ImportRequest(path))
    assert kinds(report) == ["evidence item without text", "empty evidence item dropped"]
    held, empty = report.warnings.items
    assert "rating" in held.message and "kept" in held.message and held.field == "evidence[1].text"
    assert empty.field == "evidence[2].text"
    items = claims_of(store, "held")["a"].evidence
    assert [(item.text, item.attributes) for item in items] == [("kept", {}), (None, {"rating": 3})]


def test_map_evidence_on_a_string_field_keeps_the_passage(store, tmp_path):
    path = write_jsonl(
        tmp_path / "mapped.jsonl",
        [
            {"uid": "1", "statement": "A.", "verdict": "true", "evidence": "The passage."},
            {"uid": "2", "statement": "B.", "verdict": "false", "evidence": ["One.", "Two."]},
        ],
    )
    report = run_import(
        store, ImportRequest(path, maps=["id=uid", "claim=statement", "label=verdict", "evidence=evidence"])
    )
    claims = claims_of(store, "mapped")
    assert [item.text for item in claims["1"].evidence] == ["The passage."]
    assert [item.text for item in claims["2"].evidence] == ["One.", "Two."]
    assert kinds(report) == [] and claims["1"].attributes == {}


def test_a_mapping_that_reads_the_list_itself_still_makes_one_page(store, tmp_path):
    path = write_jsonl(
        tmp_path / "sentences.jsonl",
        [{"id": "1", "claim": "A.", "label": "true", "sentences": ["First line.", "Second line."]}],
    )
    run_import(store, ImportRequest(path, maps=["evidence=sentences", "evidence.text=.", "evidence.kind==page"]))
    (page,) = claims_of(store, "sentences")["1"].evidence
    assert (page.kind, page.text) == ("page", "First line.\nSecond line.")


def test_a_csv_evidence_column_of_plain_text_imports_with_no_flags(store, tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text('id,claim,label,evidence\n1,A.,true,"The passage, quoted."\n2,B.,false,\n', encoding="utf-8")
    report = run_import(store, ImportRequest(path))
    claims = claims_of(store, "rows")
    assert [item.text for item in claims["1"].evidence] == ["The passage, quoted."]
    assert claims["2"].evidence == [] and kinds(report) == []


texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=20)
pointer_arrays = st.lists(
    st.lists(st.one_of(st.integers(0, 10**6), st.none(), texts), min_size=4, max_size=4), min_size=1, max_size=2
)
items = st.one_of(
    texts,
    st.none(),
    pointer_arrays,
    st.fixed_dictionaries({"text": texts}, optional={"url": texts, "rating": st.integers(0, 5)}),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(evidence=st.one_of(texts, st.lists(items, max_size=5)))
def test_only_a_really_empty_item_is_called_empty_and_no_text_is_lost(tmp_path_factory, evidence):
    folder = tmp_path_factory.mktemp("shape")
    path = write_jsonl(folder / "any.jsonl", [{"id": "a", "claim": "A claim.", "label": "true", "evidence": evidence}])
    store = Store.open(folder / "w.db")
    try:
        report = run_import(store, ImportRequest(path))
        claim = claims_of(store, "any")["a"]
    finally:
        store.close()
    listed = evidence if isinstance(evidence, list) else [evidence]
    stored = [item.text for item in claim.evidence]
    wanted = [
        value if isinstance(value, str) else value["text"]
        for value in listed
        if isinstance(value, str) and value.strip() or isinstance(value, dict) and value["text"].strip()
    ]
    assert [text for text in stored if text is not None] == wanted
    pointers = [value for value in listed if isinstance(value, list)]
    assert claim.attributes.get("evidence") == (pointers or None)
    empty = [
        value
        for value in listed
        if isinstance(value, str)
        and not value.strip()
        or isinstance(value, dict)
        and not any(str(v).strip() for v in value.values())
    ]
    if isinstance(evidence, str):
        empty = []  # a blank field is no evidence, not an empty item
    assert kinds(report).count("empty evidence item dropped") == len(empty)


# -- labels kept as the file spells them --------------------------------------------------------


def run_cli(db, *args):
    from click.testing import CliRunner

    from workbench.cli import main

    return CliRunner().invoke(main, ["--db", str(db), *map(str, args)], terminal_width=200)


def test_yes_and_no_are_the_files_own_labels_and_every_message_agrees(tmp_path):
    path = write_jsonl(
        tmp_path / "checkworthy.jsonl",
        [{"id": n, "claim": f"Claim {n}.", "label": label} for n, label in enumerate(["Yes", "No", "No", "Yes", "No"])],
    )
    plain = run_cli(tmp_path / "w.db", "import", path)
    assert plain.exit_code == 0, plain.output
    assert "label space checkworthy (the file's own): Yes 2, No 3" in plain.output
    assert "realfactbench" not in plain.output.replace("--label-space realfactbench", "")
    assert "no built-in label space takes the labels (Yes, No)" in plain.output
    asked = run_cli(tmp_path / "w.db", "import", path, "--label-space", "own", "--dataset", "own")
    assert asked.exit_code == 0, asked.output
    assert "label space own (the file's own): Yes 2, No 3" in asked.output
    assert "as --label-space own asks: Yes, No" in asked.output and "no built-in" not in asked.output
    told = run_cli(tmp_path / "w.db", "import", path, "--label-space", "realfactbench", "--dataset", "told")
    assert "label space realfactbench (built-in): true 2, false 3" in told.output
    assert "labels folded into realfactbench: 'Yes' as true 2, 'No' as false 3" in told.output


def spelt(word: str):
    """The word in any case, with spaces around it."""
    return st.tuples(st.lists(st.booleans(), min_size=len(word), max_size=len(word)), st.sampled_from(["", " "])).map(
        lambda cased: "".join(c.upper() if up else c for c, up in zip(word, cased[0])) + cased[1]
    )


@settings(max_examples=15, deadline=None)
@given(raw=st.lists(st.one_of(spelt("true"), spelt("false")), min_size=1, max_size=12))
def test_true_and_false_in_any_case_fold_into_realfactbench_with_every_fold_listed(tmp_path_factory, raw):
    folder = tmp_path_factory.mktemp("labels")
    path = write_jsonl(
        folder / "tf.jsonl", [{"id": n, "claim": f"Claim {n}.", "label": label} for n, label in enumerate(raw)]
    )
    store = Store.open(folder / "w.db")
    try:
        report = run_import(store, ImportRequest(path))
        claims = claims_of(store, "tf")
    finally:
        store.close()
    assert report.dataset.label_space.name == "realfactbench"
    assert [claims[str(n)].label for n in range(len(raw))] == [label.strip().lower() for label in raw]
    assert [claims[str(n)].raw_label for n in range(len(raw))] == raw
    folded = {label: raw.count(label) for label in raw if label != label.strip().lower()}
    notes = [note for note in report.warnings.notes if note.startswith("labels folded into realfactbench")]
    if not folded:
        assert notes == []
    else:
        (note,) = notes
        for label, count in folded.items():
            assert f"{label!r} as {label.strip().lower()} {count:,}" in note


@settings(max_examples=15, deadline=None)
@given(raw=st.lists(st.sampled_from(["Yes", "yes", "NO", "no", "Maybe", "maybe "]), min_size=1, max_size=10))
def test_own_labels_keep_their_first_spelling_and_list_the_others(tmp_path_factory, raw):
    folder = tmp_path_factory.mktemp("own")
    path = write_jsonl(
        folder / "own.jsonl", [{"id": n, "claim": f"Claim {n}.", "label": label} for n, label in enumerate(raw)]
    )
    store = Store.open(folder / "w.db")
    try:
        report = run_import(store, ImportRequest(path))
    finally:
        store.close()
    first: dict[str, str] = {}
    for label in raw:
        first.setdefault(label.strip().lower(), label)
    assert report.dataset.label_space.labels == list(first.values())
    for label in set(raw):
        if label != first[label.strip().lower()]:
            assert any(
                f"{label!r} as {first[label.strip().lower()]} {raw.count(label)}" in note
                for note in report.warnings.notes
            )


def test_the_docs_list_every_synonym_a_space_is_detected_by():
    from tests.conftest import REPO
    from workbench import labels

    table = (REPO / "docs" / "formats.md").read_text(encoding="utf-8")
    for name in labels.BUILTIN_SPACES:
        for label, spellings in labels.synonyms(name).items():
            row = next(line for line in table.splitlines() if line.startswith(f"| `{name}` | {label} |"))
            assert all(spelling in row for spelling in spellings), (name, label)


# -- nothing lost --------------------------------------------------------------------------------


def test_empty_csv_cells_are_kept_as_empty_strings(store, tmp_path):
    path = tmp_path / "cells.csv"
    path.write_text("id,claim,label,topic,speaker\n1,A.,true,,Bo\n2,B.,false,health,\n", encoding="utf-8")
    run_import(store, ImportRequest(path))
    claims = claims_of(store, "cells")
    assert claims["1"].attributes == {"topic": "", "speaker": "Bo"}
    assert claims["2"].attributes == {"topic": "health", "speaker": ""}
    assert claims["1"].question is None  # a mapped field reads an empty cell as no value


def test_the_fields_an_error_lists_include_columns_with_only_empty_cells(tmp_path):
    path = tmp_path / "headlines.csv"
    path.write_text("title,news_url,label\nA headline.,,real\nAnother.,,fake\n", encoding="utf-8")
    result = run_cli(tmp_path / "w.db", "import", path)
    assert result.exit_code == 1
    assert "the text fields are title (2 values), label (2); news_url holds only empty values" in result.output


def test_a_missing_image_keeps_its_path_with_a_located_warning(store, tmp_path):
    path = tmp_path / "data" / "pictures.jsonl"
    path.parent.mkdir()
    write_jsonl(
        path,
        [
            {
                "id": "r1",
                "claim": "A photo of a flood.",
                "label": "false",
                "images": ["photos/gone.png", "https://example.org/kept.png"],
            }
        ],
    )
    report = run_import(store, ImportRequest(path))
    claim = claims_of(store, "pictures")["r1"]
    assert claim.attributes["images_not_read"] == ["photos/gone.png"]
    assert [image.url for image in claim.images] == ["https://example.org/kept.png"]
    (warning,) = report.warnings.items
    assert (warning.line, warning.field) == (1, "images") and "'photos/gone.png'" in warning.message
    assert "attr.images_not_read" in warning.message


def factcheck_bench_record(sentences: dict) -> dict:
    return {"prompt": "Who built the bridge?", "response": "Ilse Marr built it. It is long.", "sentences": sentences}


def sentence(text: str, claims: list[str]) -> dict:
    return {
        "text": text,
        "claims": claims,
        "claims_factuality_label": [True] * len(claims),
        "sentence_checkworthiness": "yes" if claims else "no",
    }


def test_a_factcheck_bench_sentence_with_no_claims_is_kept_on_the_responses_claims(store, tmp_path):
    path = write_jsonl(
        tmp_path / "fcb.jsonl",
        [
            factcheck_bench_record(
                {
                    "sentence1": sentence("Ilse Marr built it.", ["Ilse Marr built the bridge."]),
                    "sentence2": sentence("It is long.", []),
                }
            ),
            factcheck_bench_record({"sentence1": sentence("Nothing to check.", [])}),
        ],
    )
    report = run_import(store, ImportRequest(path, profile="factcheck-bench"))
    (claim,) = claims_of(store, "fcb").values()
    kept = claim.attributes["sentences_without_claims"]
    assert kept == {"sentence2": sentence("It is long.", [])}
    (warning,) = report.warnings.items
    assert (warning.line, warning.field, warning.kind) == (2, "sentences.sentence1.claims", "response without claims")


def test_datasets_shows_the_profile_and_options_of_the_latest_import(tmp_path):
    path = write_jsonl(
        tmp_path / "bench.jsonl",
        [
            {"id": "1", "claim": "A.", "label": "SUPPORTS", "title": "T"},
            {"id": "2", "claim": "B.", "label": "REFUTES", "title": "U"},
        ],
    )
    db = tmp_path / "w.db"
    assert run_cli(db, "import", path, "--dataset", "bench").exit_code == 0
    again = run_cli(
        db,
        "import",
        path,
        "--dataset",
        "bench",
        "--profile",
        "workbench",
        "--map",
        "claim=title",
        "--label-map",
        "SUPPORTS=Supported",
    )
    assert again.exit_code == 0, again.output
    (listed,) = json.loads(run_cli(db, "datasets", "--json").output)
    assert listed["source_format"] == "workbench+map --map claim=title --label-map SUPPORTS=Supported"
    from click.testing import CliRunner

    from workbench.cli import main

    wide = CliRunner(env={"COLUMNS": "200"}).invoke(main, ["--db", str(db), "datasets"])
    assert "workbench+map --map claim=title --label-map SUPPORTS=Supported" in wide.output
    narrow = run_cli(db, "datasets").output  # 80 columns: the options wrap between words, whole
    assert all(word in narrow.split() for word in ["workbench+map", "--map", "claim=title", "SUPPORTS=Supported"])


def test_labels_in_scripts_without_ascii_letters_stay_apart(store, tmp_path):
    """正しい and كاذب are two labels (they once squashed alike to nothing and became one)."""
    path = write_jsonl(
        tmp_path / "mixed.jsonl",
        [
            {"id": "1", "claim": "A", "label": "正しい"},
            {"id": "2", "claim": "B", "label": "كاذب"},
            {"id": "3", "claim": "C", "label": "كاذب"},
        ],
    )
    report = run_import(store, ImportRequest(path))
    assert report.counts.added == 3
    assert sorted(report.dataset.label_space.labels) == sorted(["正しい", "كاذب"])
    both = write_jsonl(
        tmp_path / "ja.jsonl",
        [{"id": "1", "claim": "A", "label": "正しい"}, {"id": "2", "claim": "B", "label": "誤り"}],
    )
    folded = run_import(store, ImportRequest(both))
    assert folded.dataset.label_space.name == "jsfactcheck"  # documented Japanese synonyms
    assert any("'正しい' as Supported 1" in note and "'誤り' as Refuted 1" in note for note in folded.warnings.notes)
