"""What comes in equals the file, value for value: positions kept, nothing dropped without a
word, each oddity a warning that points at the field (and --strict refuses it)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import REPO
from tests.support.import_fixtures import FIXTURES, imported, kinds
from workbench.importers import BadInput, ImportRequest, run_import
from workbench.prompting.evidence import page_sentences


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


# -- positions ----------------------------------------------------------------------------------


def test_a_wice_page_keeps_one_line_per_sentence_empty_ones_included(store):
    _, claims = imported(store, "wice.jsonl")
    raw = [json.loads(line) for line in (FIXTURES / "wice.jsonl").read_text().splitlines()]
    sentences = next(r for r in raw if r["meta"]["id"] == "dev00004")["evidence"]
    page = claims["dev00004"].evidence[0]
    assert page_sentences(page) == sentences  # the empty one (2) and the one with a line break (3)
    cited = claims["dev00004"].attributes["supporting_sentences"][0][0]
    assert page_sentences(page)[cited] == "In 2003 the Orrin prize went to the Lorn Gazette."


def test_sentences_without_line_breaks_are_the_pages_lines(store):
    _, claims = imported(store, "wice.jsonl")
    page = claims["dev00001"].evidence[0]
    assert "sentence_starts" not in page.attributes
    assert page_sentences(page) == page.text.split("\n")


# -- profiles fit the published formats ----------------------------------------------------------


def test_factcheck_bench_as_published(store):
    report, claims = imported(store, "factcheck_bench.jsonl")
    space = report.dataset.label_space
    assert (space.labels, space.excluded, space.abstain) == (["true", "false"], ["unknown"], "unknown")
    unsure = claims["1-sentence1-0"]
    assert (unsure.label, unsure.raw_label) == ("unknown", "unknown")  # kept, left out of scores
    assert unsure.attributes["revised_claims"] == ["The Vell may be the longest river in Aram."]  # one short: whole
    assert unsure.attributes["revised_decontext"] == ["The Vell is the longest river in Aram."]
    assert unsure.attributes["response_factuality"] == "NA"
    first = claims["0-sentence1-0"]
    for name, value in {
        "decontext": "The Harrow Bay bridge was designed by Ilse Marr.",
        "sentence_factuality_label": False,
        "sentence_checkworthiness": "yes",
        "most_importance_sentence": "yes",
        "if_automatic_evidence_enough_to_verify": "no",
        "usedEvidence_index_in_revision": "1",
        "revised_claim": "The Harrow Bay bridge was designed by Otto Renn.",
        "claim_checkworthiness": "factual",
    }.items():
        assert first.attributes[name] == value, name
    assert [first.importance, claims["0-sentence2-0"].importance, claims["1-sentence1-1"].importance] == [
        "Main",
        "Sub",
        "Irrelevant",
    ]
    annotators, *retrieved = first.evidence
    assert (annotators.url, annotators.text, annotators.is_cited) == (
        "https://example.org/harrow-bridge",
        "The bridge's designer was Otto Renn.",
        True,
    )
    assert [(e.url, e.text, e.attributes["stance"]) for e in retrieved] == [
        ("https://example.org/renn", "Otto Renn drew the Harrow Bay bridge in 1957.", "refute"),
        ("https://example.org/marr", "Ilse Marr designed the town hall.", "irrelevant"),
    ]
    linked = unsure.evidence[0]  # the address on a "Link:" line of its own leaves the text
    assert (linked.url, linked.text) == (
        "https://example.org/aram-rivers",
        "Surveys disagree on the lengths of the Vell and the Osk.",
    )
    assert claims["1-sentence1-1"].evidence[0].url == "https://example.org/tor-hills"  # a bare address
    assert claims["1-sentence1-0"].evidence[2].attributes == {"origin": "retrieved", "stance": "irrelevant"}


def test_exclude_label_works_with_a_built_in_space(store, tmp_path):
    path = write_jsonl(
        tmp_path / "rf.jsonl",
        [
            {"id": "a", "claim": "x", "label": "true"},
            {"id": "b", "claim": "y", "label": "unknown"},
            {"id": "c", "claim": "z", "label": "Disputed"},
        ],
    )
    report = run_import(store, ImportRequest(path, label_space="realfactbench", excluded=["unknown", "Disputed"]))
    assert report.dataset.label_space.excluded == ["unknown", "Disputed"]
    assert report.label_counts == {"true": 1, "unknown": 1, "Disputed": 1}


def test_the_liar_plus_json_lines_read_like_the_tsv(store):
    jsonl, by_jsonl = imported(store, "liar_plus_upstream.jsonl")
    tsv, by_tsv = imported(store, "liar_plus_train2.tsv", dataset="liar-tsv")
    assert (jsonl.plan.mapping.name, jsonl.plan.how_picked) == ("liar-plus", "detected")
    assert sorted(by_jsonl) == sorted(by_tsv) == ["1204.json", "2635.json", "8811.json"]
    for key in by_jsonl:
        assert (by_jsonl[key].text, by_jsonl[key].label, by_jsonl[key].source) == (
            by_tsv[key].text,
            by_tsv[key].label,
            by_tsv[key].source,
        )
    assert by_jsonl["2635.json"].attributes == {
        "id": 0,
        "topics": ["budget"],
        "title": "County commissioner",
        "party": "Oregon",
    }


# -- nothing dropped without a word --------------------------------------------------------------


def test_explode_keeps_the_records_unmapped_fields_on_every_claim(store, tmp_path):
    path = write_jsonl(
        tmp_path / "factbench.jsonl",
        [
            {
                "prompt": "Who runs Keel?",
                "response": "Ada runs Keel. She founded it.",
                "response_label": False,
                "claims": ["Ada runs Keel", "Ada founded Keel"],
                "claim_labels": [True, False],
                "source": "factool-qa",
                "hallucination_spans": None,
            }
        ],
    )
    report = run_import(store, ImportRequest(path, maps=["explode=claims[]", "claim=.", "label=$claim_labels[#]"]))
    claims = [store.claims.get(i) for i in store.claims.ids("dataset:factbench")]
    assert [c.text for c in claims] == ["Ada runs Keel", "Ada founded Keel"]
    for claim in claims:
        assert (claim.response, claim.source) == ("Ada runs Keel. She founded it.", "factool-qa")
        assert claim.attributes == {"prompt": "Who runs Keel?", "response_label": False, "hallucination_spans": None}
    assert [c.external_id for c in claims] == ["0-0", "0-1"]
    assert "1 record has no id" in " ".join(report.warnings.notes)  # records, not claims


def test_explode_keeps_an_elements_own_unmapped_fields(store, tmp_path):
    path = write_jsonl(
        tmp_path / "objs.jsonl",
        [{"id": "r", "claims": [{"text": "A", "label": "true", "span": [0, 1]}, {"text": "B", "label": "false"}]}],
    )
    run_import(store, ImportRequest(path, maps=["explode=claims[]", "claim=text", "label=label"]))
    claims = [store.claims.get(i) for i in store.claims.ids("dataset:objs")]
    assert [c.external_id for c in claims] == ["r-0", "r-1"]
    assert claims[0].attributes == {"span": [0, 1]} and claims[1].attributes == {}


def test_a_nan_response_is_a_warning(store, tmp_path):
    path = tmp_path / "felm.jsonl"
    path.write_text(
        '{"index": 0, "source": "wk", "prompt": "p", "response": NaN, "segmented_response":'
        ' ["seg a", "seg b"], "labels": [true, false], "comment": ["", ""], "type": [null, null],'
        ' "ref": []}\n',
        encoding="utf-8",
    )
    report = run_import(store, ImportRequest(path))
    (warning,) = [w for w in report.warnings.items if w.kind == "NaN or Infinity for a value"]
    assert (warning.line, warning.field) == (1, "response")  # said once, not once per segment
    with pytest.raises(BadInput, match="NaN.*--strict refuses it"):
        run_import(store, ImportRequest(path, dataset="felm2", strict=True))


def test_a_number_where_text_is_expected_is_a_warning(store, tmp_path):
    path = write_jsonl(
        tmp_path / "num.jsonl",
        [{"id": 7, "claim": 12345, "label": "true"}, {"id": 8, "claim": "words", "label": "false"}],
    )
    report = run_import(store, ImportRequest(path))
    (warning,) = report.warnings.items
    assert (warning.kind, warning.line, warning.field) == ("number where text is expected", 1, "claim")
    assert store.claims.get(store.claims.ids("ext:7")[0]).text == "12345"
    with pytest.raises(BadInput, match="12345"):
        run_import(store, ImportRequest(path, dataset="num2", strict=True))


def test_a_question_object_without_its_question_is_a_warning(store, tmp_path):
    path = tmp_path / "av.json"
    path.write_text(
        json.dumps(
            [
                {
                    "claim": "x",
                    "label": "Refuted",
                    "questions": [
                        {"answers": [{"answer": "an answer", "answer_type": "Extractive"}]},
                        {
                            "question": "Empty?",
                            "answers": [{"answer": "", "answer_type": "Abstractive", "note": "kept"}],
                        },
                    ],
                }
            ],
            indent=2,
        ),
        encoding="utf-8",
    )
    report = run_import(store, ImportRequest(path, profile="averitec"))
    assert kinds(report) == {"question without its text": 1, "answer without text": 1}
    claim = store.claims.get(store.claims.ids("dataset:av")[0])
    assert claim.evidence[0].text == "an answer" and claim.evidence[1].attributes["note"] == "kept"
    with pytest.raises(BadInput, match="without its question text"):
        run_import(store, ImportRequest(path, profile="averitec", dataset="av2", strict=True))


def test_an_evidence_item_with_nothing_in_it_is_a_warning(store, tmp_path):
    path = write_jsonl(
        tmp_path / "ev.jsonl",
        [
            {
                "id": "a",
                "claim": "x",
                "label": "true",
                "evidence": [{"text": "kept"}, {"text": "", "url": "", "rating": None}],
            }
        ],
    )
    report = run_import(store, ImportRequest(path))
    (warning,) = report.warnings.items
    assert warning.kind == "empty evidence item dropped" and "rating" in warning.message
    assert warning.field == "evidence[1].text"


# -- warnings point at the field -------------------------------------------------------------------


def test_a_warning_in_pretty_printed_json_names_the_fields_own_line(store, tmp_path):
    path = tmp_path / "pretty.json"
    records = [
        {"claim": "x", "label": "Refuted", "questions": []},
        {
            "claim": "y",
            "label": "Refuted",
            "questions": [
                {"question": "fine?", "answers": [{"answer": "yes"}]},
                {"question": "", "answers": [{"answer": "no"}]},
            ],
        },
    ]
    text = json.dumps(records, indent=2)
    path.write_text(text, encoding="utf-8")
    report = run_import(store, ImportRequest(path, profile="averitec"))
    (warning,) = [w for w in report.warnings.items if w.kind == "empty question"]
    lines = text.splitlines()
    assert lines[warning.line - 1].strip() == '"question": "",'
    assert (warning.record, warning.field) == (1, "questions[1].question")
    assert f"line {warning.line} record 1 questions[1].question" in report.warnings.summary()[0]


def test_a_warning_in_one_line_json_names_the_record(store, tmp_path):
    path = tmp_path / "flat.json"
    path.write_text(
        json.dumps([{"id": "a", "claim": "x", "label": "true"}, {"id": "b", "claim": 3, "label": "false"}]),
        encoding="utf-8",
    )
    report = run_import(store, ImportRequest(path))
    (warning,) = report.warnings.items
    assert (warning.line, warning.record, warning.field) == (1, 1, "claim")
    assert "line 1 record 1 claim" in report.warnings.summary()[0]


def test_the_docs_state_the_completeness_rule():
    text = (REPO / "docs" / "importing.md").read_text(encoding="utf-8")
    assert "Every value of a record ends up in exactly one place" in text


# -- the smaller things a user reads -----------------------------------------------------------


def cli(db, *args):
    from click.testing import CliRunner

    from workbench.cli import main

    result = CliRunner().invoke(main, ["--db", str(db), *map(str, args)])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture
def demo_db(tmp_path):
    db = tmp_path / "demo.db"
    cli(db, "demo", "--no-tui")
    answers = write_jsonl(
        tmp_path / "answers.jsonl", [{"id": "js-001", "verdict": "Supported"}, {"id": "js-002", "verdict": "Refuted"}]
    )
    return db, answers


def test_importing_the_same_predictions_again_adds_nothing_and_says_so(demo_db):
    db, answers = demo_db
    before = {run["name"] for run in json.loads(cli(db, "runs", "--json"))}  # the demo's own
    first = json.loads(cli(db, "import-predictions", answers, "--dataset", "demo", "--json"))
    again = cli(db, "import-predictions", answers, "--dataset", "demo")
    assert "already holds the predictions of this file" in again and "nothing added" in again
    assert json.loads(cli(db, "import-predictions", answers, "--dataset", "demo", "--json"))["already_imported"]
    other = json.loads(cli(db, "import-predictions", answers, "--dataset", "demo", "--run", "second", "--json"))
    names = [run["name"] for run in json.loads(cli(db, "runs", "--json")) if run["name"] not in before]
    assert (first["run"], other["run"], sorted(names)) == ("imported-answers", "second", ["imported-answers", "second"])


def test_runs_lists_no_none_for_an_imported_run(demo_db):
    db, answers = demo_db
    cli(db, "import-predictions", answers, "--dataset", "demo")
    listing = cli(db, "runs")
    assert "imported-answers" in listing and "None" not in listing


def test_show_lists_a_claims_images_and_every_attribute(tmp_path):
    db = tmp_path / "demo.db"
    cli(db, "demo", "--no-tui")
    shown = " ".join(cli(db, "show", "demo-realfact:rfb-004").split())
    assert "image 1 images/rfb-004.png · image/png · 800 bytes · 320×200 · sha256 acd082daed17" in shown
    path = write_jsonl(tmp_path / "nulls.jsonl", [{"id": "a", "claim": "x", "label": "true", "gap": None, "blank": ""}])
    cli(db, "import", path)
    shown = " ".join(cli(db, "show", "nulls:a").split())
    assert "attr.gap null" in shown and 'attr.blank ""' in shown
