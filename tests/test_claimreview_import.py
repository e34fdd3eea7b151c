"""ClaimReview in: the three published shapes (schema.org JSON-LD alone, in lists and in saved
pages; Fact Check Tools API pages concatenated, as JSON Lines or a folder; the DataCommons
feed), ratings folded by the rating map, and the bad input of each."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from tests.claimreview_files import api_claim, api_page, api_review, claim_review, feed, page, write_json
from workbench.cli import main
from workbench.importers import BadInput, ImportRequest, MappingError, dry_run, run_import


def claims_of(store, dataset: str) -> dict:
    return {c.external_id: c for c in (store.claims.get(i) for i in store.claims.ids(f'dataset:"{dataset}"'))}


def two_api_pages(tmp_path, name: str = "pages.json"):
    first = api_page(
        [
            api_claim(
                "The harbour bridge cost 90 million crowns.",
                [
                    api_review("https://harbourtruth.example/checks/bridge", "False"),
                    api_review(
                        "https://valleyfacts.example/bridge",
                        "Mostly False.",
                        "2025-10-03T23:30:00-05:00",
                        "Valley Facts",
                        "valleyfacts.example",
                    ),
                ],
            )
        ]
    )
    second = api_page(
        [
            api_claim(
                "Schools will close on Fridays.",
                [api_review("https://harbourtruth.example/checks/fridays", "Pants on Fire!", "2025-10-06")],
            )
        ],
        token=None,
    )
    return write_json(tmp_path / name, first, second)


def test_api_pages_back_to_back_are_one_claim_per_review(store, tmp_path):
    report = run_import(store, ImportRequest(two_api_pages(tmp_path)))
    assert (report.plan.mapping.name, report.plan.source.format, report.counts.added) == (
        "claimreview",
        "claimreview",
        3,
    )
    claims = claims_of(store, "pages")
    bridge = claims["https://harbourtruth.example/checks/bridge"]
    assert (bridge.text, bridge.label, bridge.raw_label, bridge.source) == (
        "The harbour bridge cost 90 million crowns.",
        "Refuted",
        "False",
        "A councillor",
    )
    assert (bridge.claim_date, bridge.reference_time, bridge.article_url) == (
        "2025-09-28",
        "2025-10-02",
        "https://harbourtruth.example/checks/bridge",
    )
    assert bridge.attributes["publisher"] == "Harbour Truth"
    assert bridge.attributes["publisher_site"] == "harbourtruth.example"
    assert bridge.attributes["language"] == "en" and bridge.attributes["claimreview_shape"] == "factcheck-api"
    # 23:30 at UTC-5 is the next day in UTC.
    assert claims["https://valleyfacts.example/bridge"].reference_time == "2025-10-04"
    assert claims["https://harbourtruth.example/checks/fridays"].raw_label == "Pants on Fire!"
    assert any("Refuted" in note and "'Pants on Fire!' 1" in note for note in report.warnings.notes)


def test_a_folder_of_api_pages_and_json_lines_give_the_same_claims(store, tmp_path):
    folder = tmp_path / "api"
    folder.mkdir()
    pages = json.loads("[" + two_api_pages(tmp_path).read_text().replace("}\n{", "},\n{") + "]")
    write_json(folder / "page-002.json", pages[1])
    write_json(folder / "page-001.json", pages[0])
    (folder / "notes.txt").write_text("not data")
    lines = write_json(tmp_path / "pages.jsonl", *pages, pretty=False)
    run_import(store, ImportRequest(folder))
    run_import(store, ImportRequest(lines, dataset="lines"))
    from_folder, from_lines = claims_of(store, "api"), claims_of(store, "lines")
    assert len(from_folder) == 3
    assert {k: (c.text, c.label) for k, c in from_folder.items()} == {
        k: (c.text, c.label) for k, c in from_lines.items()
    }


def test_the_datacommons_feed(store, tmp_path):
    reviews = [
        claim_review("The river rose two metres in one night.", "False", "https://valleyfacts.example/river"),
        claim_review("The dam was opened on purpose.", "Half True", "https://valleyfacts.example/dam"),
    ]
    document = feed(reviews)
    document["dataFeedElement"].append({"@type": "DataFeedItem", "item": [{"@type": "Article", "name": "news"}]})
    report = run_import(store, ImportRequest(write_json(tmp_path / "feed.json", document)))
    claims = claims_of(store, "feed")
    river = claims["https://valleyfacts.example/river"]
    assert (river.label, river.source, river.claim_date, river.reference_time) == (
        "Refuted",
        "A radio host",
        "2025-10-01",
        "2025-10-04",
    )
    assert river.attributes["appearances"] == ["https://social.example/p/1"]
    assert river.attributes["claimreview_shape"] == "datacommons"
    assert claims["https://valleyfacts.example/dam"].label == "NotEnoughInfo"  # mixed, in FEVER's three
    assert [w.kind for w in report.warnings.items] == ["skipped in ClaimReview data"]
    assert "Article" in report.warnings.items[0].message


def test_json_ld_alone_in_a_list_and_in_a_graph(store, tmp_path):
    alone = write_json(tmp_path / "alone.jsonld", claim_review("A is B.", "True", "https://a.example/1"))
    listed = write_json(
        tmp_path / "listed.json",
        [
            claim_review("C is D.", "False", "https://a.example/2"),
            claim_review("E is F.", "Misleading", "https://a.example/3"),
        ],
    )
    graph = write_json(
        tmp_path / "graph.json",
        {
            "@context": "https://schema.org",
            "@graph": [
                {"@type": "WebPage", "name": "x"},
                {"@type": "WebPage", "mainEntity": claim_review("G is H.", "Unproven", "https://a.example/4")},
            ],
        },
    )
    for path in (alone, listed, graph):
        run_import(store, ImportRequest(path))
    assert claims_of(store, "alone")["https://a.example/1"].label == "Supported"
    assert {c.label for c in claims_of(store, "listed").values()} == {"Refuted"}  # misleading: Refuted of three
    assert claims_of(store, "graph")["https://a.example/4"].label == "NotEnoughInfo"


def test_a_saved_page_with_several_claim_reviews(store, tmp_path):
    reviews = json.dumps(
        [
            claim_review("The river rose two metres in one night.", "False"),
            claim_review("The dam was opened on purpose.", "Half True"),
        ]
    )
    path = tmp_path / "two.html"
    path.write_text(
        page(
            ['{"@type": "BreadcrumbList", "itemListElement": []}', reviews],
            canonical="https://valleyfacts.example/checks/flood",
        )
    )
    report = run_import(store, ImportRequest(path))
    claims = claims_of(store, "two")
    assert report.counts.added == 2
    ids = sorted(claims)
    # Both reviews have the page's address; the second is told apart by its claim.
    assert ids[0] == "https://valleyfacts.example/checks/flood"
    assert ids[1].startswith("https://valleyfacts.example/checks/flood#")
    assert {c.article_url for c in claims.values()} == {"https://valleyfacts.example/checks/flood"}


def test_the_same_review_twice_is_read_once(store, tmp_path):
    review = claim_review("A is B.", "False", "https://a.example/1")
    path = tmp_path / "twice.json"
    write_json(path, [review, review])
    report = run_import(store, ImportRequest(path))
    assert report.counts.added == 1
    assert [w.kind for w in report.warnings.items] == ["review met twice"]


def test_malformed_json_ld_in_the_review_refuses_the_page_and_writes_nothing(db_path, tmp_path):
    path = tmp_path / "broken.html"
    path.write_text(page(['{"@type": "ClaimReview", "claimReviewed": "A is B." "author": {}}']))
    result = CliRunner().invoke(main, ["--db", str(db_path), "import", str(path)])
    assert result.exit_code == 1
    assert "broken.html:3" in result.output and "malformed JSON-LD" in result.output
    assert not db_path.exists()  # a failed first import leaves no database behind


def test_malformed_json_ld_elsewhere_on_the_page_is_a_warning(store, tmp_path):
    path = tmp_path / "page.html"
    path.write_text(
        page(
            ['{"@type": "BreadcrumbList", "broken": }', json.dumps(claim_review("A is B.", "False"))],
            canonical="https://a.example/p",
        )
    )
    report = run_import(store, ImportRequest(path))
    assert report.counts.added == 1 and "malformed JSON-LD" in report.warnings.items[0].message
    with pytest.raises(BadInput, match="--strict refuses it"):
        run_import(store, ImportRequest(path, dataset="strict", strict=True))
    assert store.datasets.get("strict") is None


def test_invalid_json_names_the_line(store, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"claims": [\n  {"text": "A", "claimReview": [\n    {"url": "x" "textualRating": "False"}]}]}\n')
    with pytest.raises(BadInput) as error:
        run_import(store, ImportRequest(path))
    assert error.value.line == 3 and "invalid JSON" in str(error.value)


def test_ratings_nobody_mapped_stop_the_import_listed_with_their_counts(store, tmp_path):
    reviews = [
        claim_review(f"Claim {n}.", rating, f"https://a.example/{n}")
        for n, rating in enumerate(["False", "Wibble", "Wibble", "[bold]Grue", "Wibble"])
    ]
    path = write_json(tmp_path / "odd.json", reviews)
    with pytest.raises(BadInput) as error:
        run_import(store, ImportRequest(path))
    message = str(error.value)
    assert "2 ratings cannot be folded into jsfactcheck" in message
    assert "'Wibble' (3, first on line 1" in message and "'[bold]Grue' (1," in message
    assert "--exclude-label" in message and "[ratings]" in message
    assert store.datasets.get("odd") is None
    # Mapped on the command line (a meaning or a label) or left out of scores: it imports.
    report = run_import(store, ImportRequest(path, label_maps=["wibble=false", "[bold]Grue=Supported"]))
    claims = claims_of(store, "odd")
    assert report.counts.added == 5 and claims["https://a.example/1"].label == "Refuted"
    assert claims["https://a.example/3"].label == "Supported"
    run_import(store, ImportRequest(path, dataset="excluded", label_maps=["[bold]Grue=true"], excluded=["Wibble"]))
    assert claims_of(store, "excluded")["https://a.example/2"].label == "Unevaluable"


def test_the_config_and_a_rating_map_file_extend_the_map(store, tmp_path, monkeypatch):
    path = write_json(
        tmp_path / "odd.json",
        [claim_review("A.", "Wibble", "https://a.example/1"), claim_review("B.", "Grue", "https://a.example/2")],
    )
    config = tmp_path / "config.toml"
    config.write_text('[ratings]\n"Wibble" = "mostly-true"\n')
    monkeypatch.setenv("WORKBENCH_CONFIG", str(config))
    extra = tmp_path / "mine.toml"
    extra.write_text('[ratings]\n"grue" = "excluded"\n')
    run_import(store, ImportRequest(path, extra_files={"ratings": extra}))
    claims = claims_of(store, "odd")
    assert (claims["https://a.example/1"].label, claims["https://a.example/2"].label) == ("Supported", "Unevaluable")
    extra.write_text('[ratings]\n"grue" = "sort-of"\n')
    with pytest.raises(MappingError, match="the meanings are"):
        run_import(store, ImportRequest(path, dataset="again", extra_files={"ratings": extra}))


def test_numbers_fold_a_rating_the_map_does_not_know(store, tmp_path):
    reviews = [
        claim_review("A.", "Wibble", "https://a.example/1", value=1, best=5, worst=1),
        claim_review("B.", None, "https://a.example/2", value=4, best=5, worst=1),
        claim_review("C.", "Grue", "https://a.example/3", value=5, best=5, worst=1),
        claim_review("D.", "Grue", "https://a.example/4", value=1, best=5, worst=1),
    ]
    path = write_json(tmp_path / "numbers.json", reviews)
    with pytest.raises(BadInput, match=r"'Grue' \(2, first on line 1: its numbers disagree \(1 of 1-5, 5 of 1-5\)\)"):
        run_import(store, ImportRequest(path))
    run_import(store, ImportRequest(path, label_maps=["Grue=mixed"]))
    claims = claims_of(store, "numbers")
    assert claims["https://a.example/1"].label == "Refuted"
    assert (claims["https://a.example/2"].raw_label, claims["https://a.example/2"].label) == (
        "rating 4 (1 to 5)",
        "Supported",
    )
    assert claims["https://a.example/3"].label == "NotEnoughInfo"


def test_the_first_words_of_a_long_rating(store, tmp_path):
    path = write_json(
        tmp_path / "long.json",
        [
            claim_review("A.", "False. The photo is from 2019 and shows another city.", "https://a.example/1"),
            claim_review("B.", "Mostly true: the figure is a little lower", "https://a.example/2"),
        ],
    )
    run_import(store, ImportRequest(path))
    assert {c.label for c in claims_of(store, "long").values()} == {"Refuted", "Supported"}


def test_averitec_four_and_own_spaces(store, tmp_path):
    path = write_json(
        tmp_path / "spaces.json",
        [
            claim_review("A.", "Missing context", "https://a.example/1"),
            claim_review("B.", "Unproven", "https://a.example/2"),
        ],
    )
    report = run_import(store, ImportRequest(path, label_space="averitec"))
    assert report.dataset.label_space.name == "averitec"
    claims = claims_of(store, "spaces")
    assert claims["https://a.example/1"].label == "Conflicting Evidence/Cherrypicking"
    assert claims["https://a.example/2"].label == "Not Enough Evidence"
    own = run_import(store, ImportRequest(path, dataset="own", label_space="own"))
    assert own.dataset.label_space.labels == ["Missing context", "Unproven"]


def test_dates_in_other_spellings_and_time_zones(store, tmp_path):
    reviews = [
        claim_review("A.", "False", "https://a.example/1", day="October 3, 2025"),
        claim_review("B.", "False", "https://a.example/2", day="Fri, 03 Oct 2025 22:00:00 -0700"),
        claim_review("C.", "False", "https://a.example/3", day="25/10/2025"),
        claim_review("D.", "False", "https://a.example/4", day="04/10/2025"),
        claim_review("E.", "False", "https://a.example/5", day="soon"),
    ]
    path = write_json(tmp_path / "dates.json", reviews)
    report = run_import(store, ImportRequest(path))
    days = {k: c.reference_time for k, c in claims_of(store, "dates").items()}
    assert days == {
        "https://a.example/1": "2025-10-03",
        "https://a.example/2": "2025-10-04",
        "https://a.example/3": "2025-10-25",
        "https://a.example/4": None,
        "https://a.example/5": None,
    }
    messages = [w.message for w in report.warnings.items]
    assert any("'04/10/2025' is ambiguous" in m for m in messages) and any(
        "'soon' is not a date" in m for m in messages
    )
    with pytest.raises(BadInput, match="ambiguous"):
        run_import(store, ImportRequest(path, dataset="strict", strict=True))


def test_a_dry_run_shows_the_folds_and_writes_nothing(db_path, tmp_path):
    path = two_api_pages(tmp_path)
    result = CliRunner().invoke(main, ["--db", str(db_path), "import", str(path), "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "profile claimreview, detected; claimreview" in result.output
    assert "ratings folded into jsfactcheck Refuted: 'False' 1, 'Mostly False.' 1, 'Pants on Fire!' 1" in result.output
    assert not db_path.exists()


def test_a_rating_map_option_on_import(db_path, tmp_path):
    path = write_json(tmp_path / "odd.json", [claim_review("A.", "Wibble", "https://a.example/1")])
    extra = tmp_path / "mine.toml"
    extra.write_text('[ratings]\n"Wibble" = "true"\n')
    result = CliRunner().invoke(main, ["--db", str(db_path), "import", str(path), "--rating-map", str(extra)])
    assert result.exit_code == 0, result.output
    assert "Supported 1" in result.output


def test_files_that_are_not_claimreview_keep_their_formats(store, tmp_path):
    path = tmp_path / "plain.jsonl"
    path.write_text(
        json.dumps({"id": "1", "claim": "A mentions ClaimReview in its text.", "label": "Supported"}) + "\n"
    )
    assert dry_run(ImportRequest(path)).plan.source.format == "jsonl"
