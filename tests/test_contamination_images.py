"""Image claims through the contamination pipeline (issue 25, item 1): the demo's image
claims run with --setting claim+image against a loopback vision server (an OpenAI-compatible
server on 127.0.0.1 that takes image_url parts), their images on the wire, the probe's
scores and flags kept apart from the text-only ones, and `contamination summary` comparing
the two with a paired test."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from tests.loopback_servers import Fault, LoopbackServer
from tests.loopback_vision import VisionModel, image_hashes, image_urls
from workbench.cli import main
from workbench.contamination.flagging import CONTAMINATED

pytestmark = pytest.mark.usefixtures("meteor_data")
MODEL = "openai-compatible:seer"
IMAGE_CLAIMS = ("rfb-004", "rfb-010", "rfb-013")


@pytest.fixture
def meteor_data():
    from workbench.nlp.nlp_data import NlpDataMissing, check_nlp_data

    try:
        check_nlp_data()
    except NlpDataMissing:
        pytest.skip("WordNet is not installed (make setup runs workbench nlp-data)")


def cli(db, *args):
    return CliRunner().invoke(main, ["--db", str(db), *map(str, args)], terminal_width=160)


def pipeline(db, url, *extra):
    return cli(
        db,
        "contamination",
        "run",
        "--model",
        MODEL,
        "--base-url",
        url,
        "--extractor",
        MODEL,
        "--extractor-base-url",
        url,
        "--dataset",
        "demo-realfact",
        *extra,
    )


@pytest.fixture
def seer(demo_store):
    claims = [demo_store.claims.get(i) for i in demo_store.claims.ids('dataset:"demo-realfact"')]
    return VisionModel({c.text: c.article_text for c in claims if c.article_text})


def article_requests(model: VisionModel) -> list[dict]:
    return [body for body in model.seen if "Write a fact-checking article" in json.dumps(body)]


def test_a_vision_model_sees_the_claims_images_and_the_probes_are_kept_apart(demo_store, db_path, seer):
    with LoopbackServer("openai", answer=seer.answer) as server:
        text = pipeline(db_path, server.url)
        assert text.exit_code == 0, text.output
        assert not any(image_urls(body) for body in seer.seen)  # the text-only probe shows no image
        seer.seen.clear()
        shown = pipeline(db_path, server.url, "--setting", "claim+image")
        assert shown.exit_code == 0, shown.output
        said = " ".join(shown.output.split())
        assert "shown the claim and its images" in said and "stored as meteor+image" in said
        articles = article_requests(seer)
        served = len(server.answer_arrivals())
        again = pipeline(db_path, server.url, "--setting", "claim+image")
        assert again.exit_code == 0 and len(server.answer_arrivals()) == served  # all from the caches
    # The image claims' articles carried their own images, as bytes (data URLs); the other
    # claims' prompts are the text-only ones, answered from the cache.
    by_claim = {demo_store.claims.resolve(f"demo-realfact:{e}"): e for e in IMAGE_CLAIMS}
    expected = {demo_store.claims.get(c).images[0].sha256 for c in by_claim}
    sent = [h for body in articles for h in image_hashes(body)]
    assert sorted(sent) == sorted(expected) and len(articles) == 3
    runs = {r.name: r for r in demo_store.runs.list(kind="article")}
    assert sorted(runs) == ["seer-article-demo-realfact", "seer-article-image-demo-realfact"]
    assert runs["seer-article-image-demo-realfact"].setting == "the claim and its images (no evidence)"
    # Scores and flags of each probe, apart.
    groups = {g.metric: g for g in demo_store.contamination.score_groups(MODEL)}
    assert set(groups) == {"meteor", "meteor+image"}
    with_image = demo_store.annotations.flagged_claim_ids(CONTAMINATED, MODEL, "meteor+image", "pipeline")
    text_only = demo_store.annotations.flagged_claim_ids(CONTAMINATED, MODEL, "meteor", "pipeline")
    assert with_image == set(by_claim) and text_only == set()
    # contaminated@MODEL holds for a claim either probe flagged.
    assert demo_store.claims.count(f"flagged:contaminated@{MODEL}") == 3


def test_summary_compares_text_only_with_image_on_the_same_claims(demo_store, db_path, seer):
    with LoopbackServer("openai", answer=seer.answer) as server:
        assert pipeline(db_path, server.url).exit_code == 0
        assert pipeline(db_path, server.url, "--setting", "claim+image").exit_code == 0
    found = json.loads(cli(db_path, "contamination", "summary", "--json", "--resamples", "500").output)
    (probe,) = found["probes"]
    assert probe["claims"] == 3 and probe["metric"] == "meteor"  # the image claims, scored both ways
    assert probe["image_mean"] > 0.9 and probe["text_mean"] < 0.2
    difference = probe["difference"]
    assert difference["delta"] == pytest.approx(probe["image_mean"] - probe["text_mean"])
    assert difference["low"] > 0 and difference["p_value"] <= 0.05
    assert (probe["flagged_text"], probe["flagged_image"]) == (0, 3)
    mcnemar = probe["flags_mcnemar"]  # b = 0, c = 3: p = 2 * (1/2)^3
    assert (mcnemar["text_only_flagged"], mcnemar["with_image_flagged"]) == (0, 3)
    assert mcnemar["p_value"] == pytest.approx(0.25)
    shown = cli(db_path, "contamination", "summary", "--resamples", "200")
    assert shown.exit_code == 0, shown.output
    assert "text only vs with image" in " ".join(shown.output.split())
    by = json.loads(cli(db_path, "contamination", "summary", "--by", "modality", "--json", "--resamples", "0").output)
    subsets = by["by"]["subsets"]
    assert set(subsets) == {"with image", "text only"}
    image_rows = {r["metric"]: r for r in subsets["with image"]}
    assert image_rows["meteor+image"]["would_flag"] == 3 and image_rows["meteor"]["would_flag"] == 0
    assert all(r["claims"] == 15 for r in subsets["text only"])


def test_show_and_sweep_take_the_probe(demo_store, db_path, seer):
    with LoopbackServer("openai", answer=seer.answer) as server:
        assert pipeline(db_path, server.url).exit_code == 0
        assert pipeline(db_path, server.url, "--setting", "claim+image").exit_code == 0
    shown = cli(db_path, "contamination", "show", "demo-realfact:rfb-004", "--setting", "claim+image")
    assert shown.exit_code == 0, shown.output
    said = " ".join(shown.output.split())
    assert "meteor+image (with image)" in said and "(text only)" not in said
    both = " ".join(cli(db_path, "contamination", "show", "demo-realfact:rfb-004").output.split())
    assert "(text only)" in both and "(with image)" in both
    ambiguous = cli(db_path, "contamination", "sweep")
    assert ambiguous.exit_code == 1 and "--metric meteor+image" in " ".join(ambiguous.output.split())
    for ref in ("demo-realfact:rfb-004", "demo-realfact:rfb-010"):
        assert cli(db_path, "contamination", "mark", ref, "--contaminated").exit_code == 0
    assert cli(db_path, "contamination", "mark", "demo-realfact:rfb-001", "--clean").exit_code == 0
    swept = json.loads(cli(db_path, "contamination", "sweep", "--setting", "claim+image", "--json").output)
    assert swept["metric"] == "meteor+image" and swept["labelled"] == 3


def test_a_text_only_model_is_refused_before_any_article(demo_store, db_path, seer):
    with LoopbackServer("openai", answer=seer.answer) as server:
        server.faults.append(Fault.status_code(400))  # the 2x2 probe picture is refused
        result = pipeline(db_path, server.url, "--setting", "claim+image")
        assert result.exit_code == 1
        said = " ".join(result.output.split())
        assert "does not take images" in said and "drop +image" in said
        assert len(server.requests) == 1
    assert demo_store.runs.list() == []


def test_the_image_setting_needs_image_claims_and_a_known_setting(demo_store, db_path, seer):
    with LoopbackServer("openai", answer=seer.answer) as server:
        none = cli(
            db_path,
            "contamination",
            "run",
            "--model",
            MODEL,
            "--base-url",
            server.url,
            "--extractor",
            MODEL,
            "--extractor-base-url",
            server.url,
            "--where",
            "ext:rfb-001",
            "--setting",
            "claim+image",
        )
        assert none.exit_code == 1 and "none of the 1 selected claims has an image" in " ".join(none.output.split())
        odd = pipeline(db_path, server.url, "--setting", "claim+time")
        assert odd.exit_code == 1 and "claim and claim+image" in " ".join(odd.output.split())
        assert server.requests == []


def test_combine_takes_the_intersection_of_the_two_probes(demo_store, db_path, seer):
    with LoopbackServer("openai", answer=seer.answer) as server:
        assert pipeline(db_path, server.url).exit_code == 0
        assert pipeline(db_path, server.url, "--setting", "claim+image").exit_code == 0
        # The text-only probe flagged nothing at 0.25; at tau 0 it flags every scorable claim.
        assert pipeline(db_path, server.url, "--tau", "0").exit_code == 0
    assert len(demo_store.annotations.flagged_claim_ids(CONTAMINATED, MODEL, "meteor", "pipeline")) == 18
    assert len(demo_store.annotations.flagged_claim_ids(CONTAMINATED, MODEL, "meteor+image", "pipeline")) == 3
    combined = cli(
        db_path, "contamination", "combine", "--model", MODEL, "--metric", "meteor", "--metric", "meteor+image"
    )
    assert combined.exit_code == 0, combined.output
    assert demo_store.annotations.flagged_claim_ids(CONTAMINATED, MODEL, "meteor&meteor+image", "pipeline") == {
        demo_store.claims.resolve(f"demo-realfact:{e}") for e in IMAGE_CLAIMS
    }


def test_a_gguf_target_without_its_projector_is_refused(demo_store, db_path):
    result = cli(
        db_path,
        "contamination",
        "run",
        "--model",
        "gguf:default",
        "--extractor",
        "gguf:default",
        "--dataset",
        "demo-realfact",
        "--setting",
        "claim+image",
    )
    assert result.exit_code == 1
    said = " ".join(result.output.split())
    assert "text-only GGUF model" in said and "--param mmproj=PATH" in said
    assert demo_store.runs.list() == []
