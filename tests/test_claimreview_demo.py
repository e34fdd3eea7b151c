"""The demo shows the whole road offline: a folder of Fact Check Tools API responses becomes a
curated post-cutoff dataset with its fact-check articles read from saved pages, then a
contamination run (and a screening) with the embedded SmolLM2 model."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from store import Store
from workbench.cli import main
from workbench.cli.demo import CLAIMREVIEW_DATASET


def cli(db, *args):
    return CliRunner().invoke(main, ["--db", str(db), *map(str, args)], terminal_width=120)


@pytest.fixture
def demo_db(tmp_path):
    db = tmp_path / "demo.db"
    result = cli(db, "demo", "--no-tui")
    assert result.exit_code == 0, result.output
    assert f"{CLAIMREVIEW_DATASET}: 15 added" in result.output
    return db


def test_the_demo_builds_a_curated_post_cutoff_dataset_with_its_articles(demo_db):
    funnel = json.loads(cli(demo_db, "curate", CLAIMREVIEW_DATASET, "--json").output)
    assert [(s["step"], s["in"], s["removed"], s["left"]) for s in funnel["steps"]] == [
        ("date", 15, 2, 13),
        ("language", 13, 1, 12),
        ("publisher", 12, 1, 11),
        ("duplicate", 11, 1, 10),
        ("screen", 10, 0, 10),
    ]
    assert funnel["kept"] == 10
    store = Store.open(demo_db)
    try:
        kept = store.claims.ids(f"dataset:{CLAIMREVIEW_DATASET} -flagged:curated-out")
        with_text = store.articles.claims_with_text(kept)
        assert len(with_text) == 9  # one agency page was never saved
        missing = [store.claims.get(i).article_url for i in kept if i not in with_text]
        assert missing == ["https://valleyfacts.example/fact-checks/bay-fishing-quotas"]
        assert store.articles.get(missing[0]).cause == "not saved"
        labels = {store.claims.get(i).raw_label: store.claims.get(i).label for i in kept}
        assert labels["Pants on Fire!"] == "Refuted" and labels["Mostly True"] == "Supported"
        assert labels["Half True"] == "NotEnoughInfo"
        text = store.articles.text_for_claim(kept[0])
        assert "newsletter" not in text and "invented fact-checking agency" not in text  # page furniture left out
    finally:
        store.close()
    # Loading the demo again changes nothing.
    again = cli(demo_db, "demo", "--no-tui")
    assert f"{CLAIMREVIEW_DATASET}: 0 added, 0 updated, 15 unchanged; curated: 10 of 15 kept" in again.output


@pytest.mark.slow
def test_a_contamination_run_and_a_screening_on_the_demo_with_the_embedded_model(demo_db):
    result = cli(
        demo_db,
        "contamination",
        "run",
        "--dataset",
        CLAIMREVIEW_DATASET,
        "--where",
        "-flagged:curated-out has:fetched",
        "--limit",
        "2",
        "--model",
        "gguf:default",
        "--param",
        "max_tokens=48",
        "--extractor-param",
        "max_tokens=64",
        "--max-evidence",
        "3",
    )
    if "WordNet" in result.output:
        pytest.skip("WordNet is not installed (make setup runs workbench nlp-data)")
    assert result.exit_code == 0, result.output
    assert "2 claims extracted from their oracle fact-check article" in " ".join(result.output.split())
    assert f"details: workbench --db {demo_db} contamination show CLAIM" in " ".join(result.output.split())
    store = Store.open(demo_db)
    try:
        oracle = store.runs.get(f"smollm2-extract-oracle-{CLAIMREVIEW_DATASET}")  # read from the fetched articles
        assert oracle.kind == "extract" and oracle.setting == "oracle articles"
        assert len(store.runs.claim_ids(oracle.id)) == 2
        assert len(store.contamination.score_rows(target="gguf:default")) == 2
    finally:
        store.close()
    screened = cli(demo_db, "curate", CLAIMREVIEW_DATASET, "--screen", "gguf:default", "--param", "max_tokens=60")
    assert screened.exit_code == 0, screened.output
    funnel = json.loads(cli(demo_db, "curate", CLAIMREVIEW_DATASET, "--json").output)
    screen = funnel["steps"][-1]
    assert screen["ran"] and screen["in"] == 10 and screen["asked"].startswith("gguf:default (run ")
    assert screen["left"] == funnel["kept"]


def test_the_curated_benchmark_exports_with_its_articles_and_imports_again(demo_db, tmp_path):
    out = tmp_path / "benchmark.jsonl"
    result = cli(
        demo_db,
        "export",
        "--what",
        "claims",
        "--where",
        f"dataset:{CLAIMREVIEW_DATASET} -flagged:curated-out",
        "--with-articles",
        "-o",
        out,
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()[1:]]
    assert len(rows) == 10 and sum("article_text" in row for row in rows) == 9
    by_rating = {row["attributes"]["rating"]: row["label"] for row in rows}
    # A rating the label space reads back is written as it was; a folded one as its gold label.
    assert by_rating["False"] == "False" and by_rating["Pants on Fire!"] == "Refuted"
    copy = tmp_path / "copy.db"
    again = cli(copy, "import", out)
    assert again.exit_code == 0, again.output
    original, imported = Store.open(demo_db), Store.open(copy)
    try:

        def labels(store, dataset):
            return {store.claims.get(i).external_id: store.claims.get(i).label for i in store.claims.ids(dataset)}

        assert labels(imported, "") == labels(original, f"dataset:{CLAIMREVIEW_DATASET} -flagged:curated-out")
        assert imported.claims.count("has:article") == 10
    finally:
        original.close()
        imported.close()
