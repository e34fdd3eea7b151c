"""Every built-in import profile reads a file written in its benchmark's published format,
with that format's known quirks (tests/fixtures/benchmarks: invented claims, real layouts).
Auto-detection picks the profile and says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.support.import_fixtures import FIXTURES, imported, kinds
from workbench.importers import ImportRequest, dry_run, run_import


def test_fever_jsonl(store):
    report, claims = imported(store, "fever.jsonl")
    assert (report.plan.mapping.name, report.plan.how_picked) == ("fever", "detected")
    assert report.dataset.label_space.name == "jsfactcheck"
    assert {c.external_id: c.label for c in claims.values()} == {
        "101": "Supported",
        "102": "Refuted",
        "103": "NotEnoughInfo",
    }
    assert claims["101"].raw_label == "SUPPORTS"
    # The evidence sets point into Wikipedia, which the file does not hold: kept as they are.
    assert claims["101"].attributes["evidence"][1][1] == [5002, 6002, "Quillmere", 4]
    assert claims["103"].attributes["verifiable"] == "NOT VERIFIABLE"


def test_fever_rows_of_the_hugging_face_copy_merge_into_claims(store, tmp_path):
    rows = [
        {"id": 7, "label": "SUPPORTS", "claim": "A is B.", "evidence_wiki_url": "A", "evidence_sentence_id": 0},
        {"id": 7, "label": "SUPPORTS", "claim": "A is B.", "evidence_wiki_url": "B", "evidence_sentence_id": 3},
        {"id": 8, "label": "REFUTES", "claim": "C is D.", "evidence_wiki_url": "C", "evidence_sentence_id": 1},
    ]
    path = tmp_path / "fever_rows.jsonl"
    path.write_text("\n".join(__import__("json").dumps(row) for row in rows) + "\n")
    report = run_import(store, ImportRequest(path))
    assert report.plan.mapping.name == "fever" and report.counts.added == 2
    claim = store.claims.get(store.claims.resolve("fever_rows:7"))
    assert claim.attributes["evidence_wiki_url"] == ["A", "B"] and claim.attributes["evidence_sentence_id"] == [0, 3]


def test_climate_fever_has_four_classes_of_its_own(store):
    report, claims = imported(store, "climate-fever.jsonl")
    space = report.dataset.label_space
    assert (report.plan.mapping.name, space.labels) == (
        "climate-fever",
        ["SUPPORTS", "REFUTES", "NOT_ENOUGH_INFO", "DISPUTED"],
    )
    assert claims["2"].label == "DISPUTED"
    first = claims["0"].evidence
    assert [e.title for e in first] == ["Mount Verrin", "Glacier"] and first[0].kind == "passage"
    assert first[1].attributes["votes"] == ["NOT_ENOUGH_INFO", "SUPPORTS", None, None, None]
    assert claims["3"].evidence == []  # a claim with no evidence sentences


def test_hover_two_classes_and_the_unlabelled_test_split(store):
    report, claims = imported(store, "hover_train.json")
    assert report.dataset.label_space.labels == ["SUPPORTED", "NOT_SUPPORTED"]
    assert claims["9a1c0b0e-0001"].attributes["num_hops"] == 3
    test, test_claims = imported(store, "hover_test.json")
    assert test.plan.mapping.name == "hover" and test.label_counts[None] == 1
    assert test_claims["7f00aa00-0001"].label is None
    assert store.claims.count('dataset:"hover_test" has:question') == 0


def test_wice_the_cited_article_is_one_page_and_an_empty_rationale_set_is_kept(store):
    report, claims = imported(store, "wice.jsonl")
    assert report.dataset.label_space.labels == ["supported", "partially_supported", "not_supported"]
    page = claims["dev00001"].evidence[0]
    assert page.kind == "page" and page.is_cited and page.text.splitlines()[1].startswith("Dana Fell founded")
    assert claims["dev00002"].attributes["supporting_sentences"] == [[]]
    assert claims["dev00001"].attributes["claim_title"] == "Dana Fell"


def test_scifact_labels_from_rationales_and_abstracts_from_the_corpus(store):
    report, claims = imported(store, "scifact/claims_dev.jsonl")
    assert report.plan.mapping.name == "scifact"
    assert {k: c.label for k, c in claims.items()} == {"7": "Supported", "8": "Refuted", "9": "NotEnoughInfo"}
    cited = claims["7"].evidence[0]
    assert cited.is_cited and cited.title == "Effects of drug K on heart rate"
    assert cited.passage.startswith("Resting heart rate fell") and cited.passage_start is not None
    assert [e.is_cited for e in claims["8"].evidence] == [True, False]  # the cited doc without a rationale
    test, test_claims = imported(store, "scifact/claims_test.jsonl", profile="scifact")
    assert test_claims["50"].label is None and test.label_counts[None] == 1


def test_liar_headerless_tsv_with_a_blank_row_and_a_quote(store):
    report, claims = imported(store, "liar_train.tsv")
    assert (report.plan.mapping.name, report.plan.source.format) == ("liar", "tsv")
    assert report.dataset.label_space.labels == [
        "true",
        "mostly-true",
        "half-true",
        "barely-true",
        "false",
        "pants-fire",
    ]
    assert claims["8811.json"].text.startswith('"Every" resident')  # a quote is text in LIAR's TSV
    assert claims["8811.json"].label == "pants-fire" and claims["2635.json"].source == "mara-holt"
    assert claims["2635.json"].attributes["party_affiliation"] == "republican"
    assert kinds(report) == {"blank row": 1}


def test_liar_six_labels_folded_into_true_false(store):
    folds = ["true=true", "mostly-true=true", "half-true=false", "barely-true=false", "false=false", "pants-fire=false"]
    report = run_import(
        store,
        ImportRequest(FIXTURES / "liar_train.tsv", label_space="realfactbench", label_maps=folds, dataset="liar2"),
    )
    assert report.dataset.label_space.name == "realfactbench"
    assert {store.claims.get(i).label for i in store.claims.ids("dataset:liar2")} == {"true", "false"}


def test_liar_plus_tsv_quirks(store):
    report, claims = imported(store, "liar_plus_train2.tsv")
    assert report.plan.mapping.name == "liar-plus" and report.counts.added == 3
    assert claims["8811.json"].justification == "Children are exempt from the tax.\tThe mailer was withdrawn."
    assert claims["1204.json"].justification is None
    assert kinds(report) == {"blank row": 1, "extra cells joined to the last column": 1, "row with too few cells": 1}


def test_liar_plus_jsonl_and_a_label_in_another_case(store):
    report, claims = imported(store, "liar_plus.jsonl")
    assert report.plan.mapping.name == "liar-plus"
    assert claims["1204.json"].label == "mostly-true" and claims["1204.json"].raw_label == "Mostly True"
    assert claims["2635.json"].justification.startswith("The bridge cost")
    assert kinds(report) == {"label in another case": 1}


def test_felm_one_claim_per_segment(store):
    report, claims = imported(store, "felm_wk.jsonl")
    assert report.plan.mapping.name == "felm" and set(claims) == {"0-0", "0-1", "1-0"}
    first = claims["0-0"]
    assert (first.label, first.question) == ("false", "Which river is the longest in the Arvenne region?")
    assert first.justification.startswith("The Sola is 380 km long")
    assert first.attributes["error_type"] == "knowledge_error" and claims["0-1"].justification is None
    assert (first.claim_start, first.claim_end) == (0, len(first.text))  # placed in its response


def test_factcheck_bench_document_and_claim_files(store):
    report, claims = imported(store, "factcheck_bench.jsonl")
    assert report.plan.mapping.name == "factcheck-bench"
    wrong = claims["0-sentence1-0"]
    assert (wrong.label, wrong.attributes["revised_claim"]) == (
        "false",
        "The Harrow Bay bridge was designed by Otto Renn.",
    )
    assert wrong.evidence[0].url == "https://example.org/harrow-bridge"
    assert claims["0-sentence2-0"].evidence == []  # human evidence "NA"
    claim_report, claim_claims = imported(store, "factcheck_bench_claims.jsonl")
    assert claim_report.plan.mapping.name == "factcheck-bench-claims"
    assert [claim_claims[k].label for k in ("0", "1", "2")] == ["Refuted", "Supported", "NotEnoughInfo"]
    assert any("no id" in note for note in claim_report.warnings.notes)


def test_averitec_train_quirks_and_the_unlabelled_test_split(store):
    report, claims = imported(store, "averitec_train.json")
    assert report.plan.mapping.name == "averitec"
    assert kinds(report) == {"empty question": 1, "answer without text": 1, "unreadable date": 1}
    qa = claims["0"].evidence
    assert [e.question for e in qa] == [
        "How much did water prices change in Velsa in 2021?",
        "Did the board announce a doubling?",
        None,
        "Who first published the claim?",
    ]
    assert qa[1].explanation.startswith("The minutes") and qa[3].text is None
    assert claims["0"].claim_date == "2022-02-03" and claims["1"].claim_date is None
    assert claims["1"].evidence[0].question == "When did the library open?"  # a question without answers
    warning = report.warnings.items[0]
    assert (warning.record, warning.field) == (0, "questions[2].question")
    test, test_claims = imported(store, "averitec_test.json")
    assert test_claims["0"].label is None and test.dataset.label_space.name == "averitec"


@pytest.mark.parametrize("name", ["fever.jsonl", "climate-fever.jsonl", "wice.jsonl", "felm_wk.jsonl"])
def test_a_dry_run_reads_everything_and_writes_nothing(store, name):
    preview = dry_run(ImportRequest(FIXTURES / name))
    assert preview.claims >= 3 and preview.first
    assert store.datasets.list() == []


def test_the_bundled_demo_files_still_pick_their_profiles():
    demo = Path(REPO / "workbench" / "demo_data")
    picked = {
        name: dry_run(ImportRequest(demo / name)).plan.mapping.name
        for name in ("jsfactcheck.jsonl", "realfactbench.json", "averitec.json")
    }
    assert picked == {
        "jsfactcheck.jsonl": "jsfactcheck",
        "realfactbench.json": "realfactbench",
        "averitec.json": "averitec",
    }
