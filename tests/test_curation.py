"""Curation of a ClaimReview dataset: each step flags what it removes (never deletes), the
funnel adds up, filters and metrics leave the removed claims out, and every step can be
cleared or run again."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from tests.claimreview_files import claim_review, write_json
from workbench.cli import main
from workbench.curation import CurationError
from workbench.curation.funnel import dataset_funnel
from workbench.curation.steps import CurationRequest, curate
from workbench.curation.window import window
from workbench.importers import ImportRequest, run_import

REVIEWS = [
    # (claim, rating, publisher, site, review day, language)
    (
        "The harbour bridge cost 90 million crowns.",
        "False",
        "Harbour Truth",
        "harbourtruth.example",
        "2024-08-02",
        "en",
    ),
    ("The harbour bridge cost 90 million crowns!", "False", "Valley Facts", "valleyfacts.example", "2024-08-01", "en"),
    (
        "The harbour bridge cost ninety million crowns, says a councillor.",
        "Mostly False",
        "Coast Check",
        "coastcheck.example",
        "2024-08-05",
        "en",
    ),
    (
        "Schools in the valley will close every Friday from next month.",
        "False",
        "Valley Facts",
        "valleyfacts.example",
        "2024-09-10",
        "en",
    ),
    (
        "La presa fue abierta a propósito durante la noche.",
        "Falso",
        "Harbour Truth",
        "harbourtruth.example",
        "2024-09-11",
        None,
    ),
    ("The mayor owns three yachts in the marina.", "True", "Some Blog", "someblog.example", "2024-10-01", "en"),
    (
        "Tap water in the old town contains lead.",
        "Half True",
        "Harbour Truth",
        "harbourtruth.example",
        "2024-05-01",
        "en",
    ),
    (
        "The ferry line will be free for pensioners.",
        "True",
        "Harbour Truth",
        "news.harbourtruth.example",
        "2024-11-20",
        "de",
    ),
]


def reviews_file(tmp_path):
    items = []
    for n, (claim, rating, publisher, site, day, language) in enumerate(REVIEWS):
        review = claim_review(claim, rating, f"https://{site}/checks/{n}", day=day, author=publisher, language=language)
        review["author"]["url"] = f"https://{site}"
        items.append(review)
    return write_json(tmp_path / "cr.json", items)


@pytest.fixture
def cr(store, tmp_path):
    run_import(store, ImportRequest(reviews_file(tmp_path)))
    return store


def ids(store, filter_text: str) -> set[str]:
    return {store.claims.get(i).external_id.rsplit("/", 1)[-1] for i in store.claims.ids(filter_text)}


def test_the_date_window_after_a_model_cutoff(cr):
    (outcome,) = curate(cr, CurationRequest("cr", window=window(after_cutoff=["gpt-4.1"])))  # after 2024-06
    assert (outcome.considered, outcome.removed) == (8, 1)
    assert ids(cr, "flagged:curated-out:date") == {"6"}
    (flag,) = cr.annotations.flags_for(cr.claims.resolve("cr:https://harbourtruth.example/checks/6"))
    assert (flag.kind, flag.source) == ("curated-out:date", "pipeline")
    assert flag.note == "review date 2024-05-01 is before the window (from 2024-07-01)"
    # Narrowed: later than September 2024 and before November; the claim date can be asked for instead.
    curate(cr, CurationRequest("cr", window=window(after="2024-09", before="2024-11")))
    assert ids(cr, "-flagged:curated-out:date") == {"5"}
    curate(cr, CurationRequest("cr", window=window(before="2025-01-01", date_of="claim")))
    assert len(ids(cr, "flagged:curated-out:date")) == 8  # every claim is dated 2025-10-01 in the markup
    with pytest.raises(CurationError, match="neither a date like 2024-06-01 nor a model"):
        window(after_cutoff=["gpt-9"])
    with pytest.raises(CurationError, match="the window is empty"):
        window(after="2025-01", before="2024-12")


def test_language_from_the_markup_else_detected(cr):
    (outcome,) = curate(cr, CurationRequest("cr", languages=["en"]))
    assert ids(cr, "flagged:curated-out:language") == {"4", "7"}
    notes = {f.note for i in cr.claims.ids("flagged:curated-out:language") for f in cr.annotations.flags_for(i)}
    assert "language de (from the markup)" in notes
    assert any(note.startswith("language es (detected from the claim, 0.") for note in notes)
    assert outcome.removed == 2


def test_the_publisher_allow_list(cr, tmp_path):
    allowed = tmp_path / "ifcn.txt"
    allowed.write_text(
        "# our signatories\nHarbour Truth\nvalleyfacts.example   # by site\nhttps://www.coastcheck.example/\n"
        "[bold]Nobody\n"
    )
    (outcome,) = curate(cr, CurationRequest("cr", publishers=allowed))
    # news.harbourtruth.example is Harbour Truth's subdomain; Some Blog is not on the list.
    assert ids(cr, "flagged:curated-out:publisher") == {"5"}
    assert "[bold]Nobody" in outcome.note
    missing = tmp_path / "none.txt"
    with pytest.raises(CurationError, match="none.txt: no such file"):
        curate(cr, CurationRequest("cr", publishers=missing))
    missing.write_text("# nothing\n\n")
    with pytest.raises(CurationError, match="names no publisher"):
        curate(cr, CurationRequest("cr", publishers=missing))


def test_duplicates_across_agencies_are_kept_once_and_linked(cr):
    (outcome,) = curate(cr, CurationRequest("cr", dedup="minhash"))
    # The same text (punctuation aside) is one claim; a reworded one is another at 0.8.
    assert ids(cr, "flagged:curated-out:duplicate") == {"0"}
    kept = cr.claims.resolve("cr:https://valleyfacts.example/checks/1")  # the earliest review of the two
    links = cr.curation.duplicates_of(kept)
    assert [(link.claim_id, link.kept_id, link.similarity, link.method) for link in links] == [
        (cr.claims.resolve("cr:https://harbourtruth.example/checks/0"), kept, 1.0, "same text")
    ]
    note = cr.annotations.flags_for(links[0].claim_id)[0].note
    assert note.startswith(f"duplicate of claim {kept} (https://valleyfacts.example/checks/1, Valley Facts):")
    # A lower threshold joins the reworded claim too: the group keeps its earliest review.
    curate(cr, CurationRequest("cr", dedup="minhash", dedup_threshold=0.4))
    assert ids(cr, "flagged:curated-out:duplicate") == {"0", "2"}
    assert outcome.considered == 8


def test_the_duplicate_step_follows_the_steps_before_it(cr):
    curate(cr, CurationRequest("cr", dedup="minhash"))
    assert ids(cr, "flagged:curated-out:duplicate") == {"0"}
    # The kept claim (1) falls outside the window: the other one (0) is kept instead, and
    # the duplicate step ran again on its own with its recorded settings.
    outcomes = curate(cr, CurationRequest("cr", window=window(after="2024-08-01")))
    assert [o.step for o in outcomes] == ["date", "duplicate"]
    assert ids(cr, "flagged:curated-out:duplicate") == set()
    assert "0" in ids(cr, "dataset:cr -flagged:curated-out")


def test_the_funnel_adds_up_and_filters_leave_the_removed_out(cr, tmp_path):
    allowed = tmp_path / "ifcn.txt"
    allowed.write_text("Harbour Truth\nValley Facts\nCoast Check\n")
    curate(
        cr,
        CurationRequest(
            "cr", window=window(after_cutoff=["gpt-4.1"]), languages=["en"], publishers=allowed, dedup="minhash"
        ),
    )
    claim = cr.claims.resolve("cr:https://harbourtruth.example/checks/3") or cr.claims.resolve(
        "cr:https://valleyfacts.example/checks/3"
    )
    cr.annotations.flag([claim], "curated-out:manual", note="a person's call")
    funnel = dataset_funnel(cr, cr.datasets.get("cr"))
    rows = {row.step: (row.entering, row.removed, row.left) for row in funnel.rows}
    assert rows == {
        "date": (8, 1, 7),
        "language": (7, 2, 5),
        "publisher": (5, 1, 4),
        "duplicate": (4, 1, 3),
        "screen": (3, 0, 3),
        "by hand": (3, 1, 2),
    }
    assert funnel.kept == 2 == cr.claims.count("dataset:cr -flagged:curated-out")
    assert not funnel.rows[4].ran and funnel.rows[4].settings == "not run"


def test_steps_are_cleared_and_nothing_is_ever_deleted(cr):
    curate(cr, CurationRequest("cr", window=window(after_cutoff=["gpt-4.1"]), languages=["en"], dedup="minhash"))
    assert cr.claims.count("dataset:cr") == 8 and cr.claims.count("flagged:curated-out") == 4
    outcomes = curate(cr, CurationRequest("cr", clear=["language"]))
    assert outcomes[0].note == "cleared: 2 flags taken off"
    assert ids(cr, "flagged:curated-out") == {"6", "0"}
    assert "language" not in cr.curation.steps(cr.datasets.get("cr").id)
    curate(cr, CurationRequest("cr", clear=["all"]))
    assert cr.claims.count("flagged:curated-out") == 0 and not cr.curation.steps(cr.datasets.get("cr").id)
    with pytest.raises(CurationError, match="--clear takes"):
        curate(cr, CurationRequest("cr", clear=["dates"]))


def cli(db_path, *args):
    return CliRunner().invoke(main, ["--db", str(db_path), *map(str, args)], terminal_width=100)


def test_the_curate_command_shows_the_funnel(cr, db_path, tmp_path):
    result = cli(db_path, "curate", "cr", "--after-cutoff", "gpt-4.1", "--language", "en", "--dedup")
    assert result.exit_code == 0, result.output
    assert "date: 1 of 8 claims flagged curated-out:date" in result.output
    assert "kept 4 of 8 claims: dataset:cr -flagged:curated-out" in result.output
    shown = json.loads(cli(db_path, "curate", "cr", "--json").output)
    assert [(s["step"], s["removed"]) for s in shown["steps"]] == [
        ("date", 1),
        ("language", 2),
        ("publisher", 0),
        ("duplicate", 1),
        ("screen", 0),
    ]
    assert shown["kept"] == 4
    bad = cli(db_path, "curate", "nope")
    assert bad.exit_code == 1 and "no dataset 'nope'; datasets: cr" in bad.output


def test_metrics_score_with_and_without_what_curation_removed(cr, db_path):
    from store import Prediction, Run

    curate(cr, CurationRequest("cr", window=window(after_cutoff=["gpt-4.1"]), languages=["en"]))
    claim_ids = cr.claims.ids("dataset:cr")
    run = cr.runs.create(Run(name="r", model="openai:gpt-4o", config_key="r"), claim_ids)
    for claim_id in claim_ids:
        cr.runs.record(Prediction(run_id=run.id, claim_id=claim_id, status="ok", verdict="Refuted"))
    report = json.loads(
        cli(db_path, "metrics", "r", "--exclude-flag", "curated-out", "--json", "--resamples", "0").output
    )["runs"][0]
    assert report["all"]["overall"]["scored"] == 8 and report["filtered"]["overall"]["scored"] == 5
    by_flag = json.loads(
        cli(db_path, "metrics", "r", "--by", "flag:curated-out:language", "--json", "--resamples", "0").output
    )["runs"][0]["all"]["breakdowns"]
    assert {k: v["scored"] for k, v in by_flag["flag:curated-out:language"].items()} == {"yes": 2, "no": 6}


def test_what_curate_prints_is_shown_as_typed(cr, db_path, tmp_path):
    allowed = tmp_path / "list.txt"
    allowed.write_text("Harbour Truth\n[bold]Nobody\x1b[31m\n")
    result = cli(db_path, "curate", "cr", "--publishers", allowed)
    assert result.exit_code == 0, result.output
    assert "allow-list entries no claim matched: [bold]Nobody\\x1b[31m" in result.output
    assert "\x1b" not in result.output


def test_duplicates_by_sentence_embeddings(cr):
    curate(cr, CurationRequest("cr", dedup="embedding", dedup_threshold=0.8))
    assert ids(cr, "flagged:curated-out:duplicate") == {"0", "2"}  # the reworded one joins by meaning
    reworded = cr.claims.resolve("cr:https://coastcheck.example/checks/2")
    note = cr.annotations.flags_for(reworded)[0].note
    assert "similar text (cosine 0." in note
    (link,) = [link for link in cr.curation.duplicates_of(reworded) if link.claim_id == reworded]
    assert link.method == "embedding" and 0.8 <= link.similarity < 1
