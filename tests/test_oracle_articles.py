"""Fetched articles are the oracle articles: the contamination pipeline extracts its oracle
evidence from them, and the search leak check compares shown pages with them, for claims
whose dataset gave only an article address."""

from __future__ import annotations

import dataclasses
import json

import pytest
from click.testing import CliRunner

from store import ArticleRecord
from tests.loopback_search import SearchServer
from tests.loopback_servers import LoopbackServer
from tests.run_fixtures import MINI_CLAIMS, write_mini
from workbench.articles.oracle import oracle_article
from workbench.cli import main
from workbench.contamination.pipeline import ContaminationRequest, plan_pipeline
from workbench.importers import import_file

ARTICLE = (
    "The Lantern Bridge over the river Ashby opened in 1911 and carries only pedestrians; the claim that it"
    " carries cars is false, the county register shows."
)
ADDRESS = "https://checks.example/lantern-cars"


@pytest.fixture
def fetched(store, tmp_path):
    """mini: m2 names its fact-check by address only; the article was fetched."""
    claims = [{**MINI_CLAIMS[1], "article_url": ADDRESS, "evidence": []}, {**MINI_CLAIMS[2]}]
    import_file(store, write_mini(tmp_path, claims), "jsonl")
    store.articles.save(
        ArticleRecord(
            url=ADDRESS,
            status="fetched",
            source="web",
            final_url=ADDRESS,
            http_status=200,
            title="Lantern Bridge",
            text=ARTICLE,
        )
    )
    return store


def test_the_oracle_article_is_the_claims_own_else_the_fetched_one(fetched):
    claim = fetched.claims.get(fetched.claims.resolve("mini:m2"))
    assert claim.article_text is None and oracle_article(fetched, claim) == ARTICLE
    with_own = dataclasses.replace(claim, article_text="its own")
    assert oracle_article(fetched, with_own) == "its own"
    other = fetched.claims.get(fetched.claims.resolve("mini:m3"))
    assert oracle_article(fetched, other) is None
    # A failed fetch is no article.
    fetched.articles.save(ArticleRecord(url=ADDRESS, status="failed", source="web", cause="http 404"))
    assert oracle_article(fetched, claim) == ARTICLE  # the fetched text stays


def test_the_pipeline_extracts_oracle_evidence_from_the_fetched_article(fetched, db_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    plan = plan_pipeline(
        fetched,
        ContaminationRequest(
            model="openai:gpt-test",
            extractor="openai:gpt-test",
            base_url="http://127.0.0.1:9/v1",
            extractor_base_url="http://127.0.0.1:9/v1",
            dataset="mini",
        ),
    )
    m2, m3 = fetched.claims.resolve("mini:m2"), fetched.claims.resolve("mini:m3")
    assert (plan.article_claims, plan.missing) == ([m2], [m3])


def test_a_contamination_run_reads_the_fetched_article(fetched, db_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")

    def answer(body):
        text = body["messages"][-1]["content"]
        return (
            json.dumps({"evidence": ["The Lantern Bridge carries only pedestrians."]})
            if "article" in text
            else "The bridge carries only pedestrians, the county register shows."
        )

    with LoopbackServer("openai", answer=answer) as server:
        result = CliRunner().invoke(
            main,
            [
                "--db",
                str(db_path),
                "contamination",
                "run",
                "--dataset",
                "mini",
                "--model",
                "openai:gpt-test",
                "--base-url",
                server.url,
                "--extractor",
                "openai:gpt-test",
                "--extractor-base-url",
                server.url,
                "--metric",
                "meteor",
            ],
        )
        prompts = [a.body["messages"][-1]["content"] for a in server.answer_arrivals()]
    if "WordNet" in result.output:
        pytest.skip("WordNet is not installed (make setup runs workbench nlp-data)")
    assert result.exit_code == 0, result.output
    assert any(ARTICLE in prompt for prompt in prompts)  # the oracle extraction read the fetched text


def one_search(body):
    from tests.loopback_servers import ToolUse

    if not any(m.get("role") == "tool" for m in body["messages"]):
        return ToolUse([("search", {"query": "lantern"})])
    return '{"verdict": "Refuted", "explanation": "The register says otherwise."}'


def test_a_shown_page_copying_the_fetched_article_is_a_search_leak(fetched, db_path):
    from workbench.nlp.nlp_data import check_nlp_data

    try:
        check_nlp_data()
    except Exception:
        pytest.skip("WordNet is not installed (make setup runs workbench nlp-data)")
    copied = [{"url": "https://mirror.example.net/story", "title": "Copied", "snippet": ARTICLE}]
    with (
        SearchServer("searxng", results=lambda q: copied) as search,
        LoopbackServer("openai", answer=one_search) as model,
    ):
        result = CliRunner().invoke(
            main,
            [
                "--db",
                str(db_path),
                "run",
                "--dataset",
                "mini",
                "--where",
                "ext:m2",
                "--model",
                "openai-compatible:agent",
                "--base-url",
                model.url,
                "--search",
                "searxng",
                "--search-url",
                search.url,
            ],
        )
        assert result.exit_code == 0, result.output
    run = fetched.runs.list()[0]
    assert fetched.claims.count(f"run:{run.id} flagged:search-leak@run") == 1
