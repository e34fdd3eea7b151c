"""The run engine's task runs (article and extraction steps) against a real Chat
Completions server on 127.0.0.1: unreadable JSON is asked again with a nudge and a new
seed, every try is cached, and a claim that never yields JSON is a recorded failure."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from store import Store
from tests.loopback_servers import LoopbackServer
from workbench.cli import main
from workbench.contamination.pipeline import ContaminationRequest, plan_pipeline, run_pipeline

NUDGE = "could not be read as JSON"


def claim_in(body: dict) -> str:
    text = body["messages"][-1]["content"]
    return re.search(r"Claim: (.*)", text).group(1).strip()


def helpful(body: dict) -> str:
    """Articles repeat the claim; extraction of a generated article needs the nudge."""
    text = body["messages"][-1]["content"]
    if "Write a fact-checking article" in text:
        return f"GENERATED. {claim_in(body)} That is what the records show."
    if "GENERATED." in text and NUDGE not in text:
        return "Sure! Here is the evidence you asked for."
    return f'{{"evidence": ["{claim_in(body)}", "The records were published in 2023."]}}'


def stubborn(body: dict) -> str:
    text = body["messages"][-1]["content"]
    if "Write a fact-checking article" in text:
        return "An article."
    return "I would rather not answer in JSON."


def request(server, **changes) -> ContaminationRequest:
    values = dict(
        model="openai-compatible:target",
        base_url=server.url,
        extractor="openai-compatible:reader",
        extractor_base_url=server.url,
        claim_ids=[1, 2],
        concurrency=2,
        extractor_params={"json_format": "schema"},
        max_evidence=4,
    )
    return ContaminationRequest(**{**values, **changes})


def run(db_path, plan_request):
    store = Store.open(db_path)
    try:
        plan = plan_pipeline(store, plan_request)
    finally:
        store.close()
    return run_pipeline(db_path, plan)


def test_unreadable_json_is_asked_again_with_a_nudge_and_a_new_seed(demo_store, db_path):
    with LoopbackServer("openai", answer=helpful) as server:
        outcome = run(db_path, request(server))
        assert outcome.status == "finished", outcome.message
        retries = [a.body for a in server.requests if NUDGE in a.body["messages"][-1]["content"]]
        assert len(retries) == 2  # one per generated article
        firsts = [
            a.body
            for a in server.requests
            if "GENERATED." in a.body["messages"][-1]["content"] and NUDGE not in a.body["messages"][-1]["content"]
        ]
        assert {b["seed"] for b in firsts} == {0} and {b["seed"] for b in retries} == {1}
        schema = retries[0]["response_format"]["json_schema"]["schema"]
        assert schema["properties"]["evidence"]["maxItems"] == 4
        sent = len(server.requests)
        again = run(db_path, request(server, metric="embedding"))
        assert again.status == "finished" and len(server.requests) == sent  # every try came from the cache
    generated = demo_store.runs.get(outcome.runs["generated evidence"])
    for p in demo_store.runs.predictions(generated.id):
        assert p.status == "ok" and p.attempts == 2 and len(p.parsed["evidence"]) == 2
    rows = demo_store.contamination.score_rows("openai-compatible:target", "meteor")
    # The model reproduced both oracle sentences (the claim and the records line).
    assert len(rows) == 2 and all(r.score > 0.95 and len(r.pairs) == 2 for r in rows)
    assert demo_store.annotations.flagged_claim_ids("contaminated", "openai-compatible:target", "meteor") == {1, 2}


def test_answers_that_never_parse_are_recorded_failures(demo_store, db_path):
    with LoopbackServer("openai", answer=stubborn) as server:
        outcome = run(db_path, request(server))
        assert outcome.status == "finished"
        # The oracle articles of 2 claims, 3 tries each; no oracle evidence, so no articles are written.
        assert len(server.requests) == 2 * 3
        assert outcome.runs.keys() == {"oracle evidence"}
    oracle = demo_store.runs.get(outcome.runs["oracle evidence"])
    for p in demo_store.runs.predictions(oracle.id):
        assert p.status == "parse_failure" and p.attempts == 3 and p.parsed is None
        assert p.raw_output == "I would rather not answer in JSON."
    rows = demo_store.contamination.score_rows("openai-compatible:target", "meteor")
    assert [(r.scorable, r.score, r.article_run_id) for r in rows] == [(False, None, None)] * 2  # never 0


def test_task_runs_are_not_resumed_as_verdict_runs(demo_store, db_path):
    with LoopbackServer("openai", answer=helpful) as server:
        outcome = run(db_path, request(server))
    result = CliRunner().invoke(main, ["--db", str(db_path), "run", "--resume", outcome.runs["articles"]])
    assert result.exit_code == 1 and "is a step of the contamination pipeline (kind article)" in result.output
    answers = CliRunner().invoke(main, ["--db", str(db_path), "runs", "--kind", "answer", "--json"])
    assert answers.exit_code == 0 and answers.output.strip() == "[]"  # the pipeline's steps are no answer runs
    listed = json.loads(CliRunner().invoke(main, ["--db", str(db_path), "runs", "--json"]).output)
    assert sorted(row["kind"] for row in listed) == ["article", "extract", "extract"]  # but listed, with their kind


@pytest.mark.parametrize("answer", [helpful])
def test_an_api_error_leaves_the_step_resumable(demo_store, db_path, answer):
    from tests.loopback_servers import Fault

    with LoopbackServer("openai", answer=answer) as server:
        server.faults.extend([Fault.status_code(400)])  # not retried: that claim ends in an error
        first = run(db_path, request(server))
        assert first.status == "finished"
        errors = [
            p
            for name in first.runs.values()
            for p in demo_store.runs.predictions(demo_store.runs.get(name).id)
            if p.status == "error"
        ]
        assert len(errors) == 1 and "HTTP 400" in errors[0].error
        second = run(db_path, request(server))
    assert second.status == "finished"
    for name in second.runs.values():
        assert all(p.status != "error" for p in demo_store.runs.predictions(demo_store.runs.get(name).id))


def test_contamination_prompts_are_their_own_kind_and_can_be_overridden(tmp_path, monkeypatch):
    from workbench.contamination.pipeline_tasks import load_task_template
    from workbench.prompting import TemplateError, available_templates

    listed = json.loads(CliRunner().invoke(main, ["prompts", "--json"]).output)
    assert {r["name"] for r in listed} == {
        "averitec",
        "jsfactcheck",
        "jsfactcheck-claim-first",
        "jsfactcheck-ja",
        "realfactbench",
    }
    assert set(available_templates(kind="extract")) == {"contamination_extract"}
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "contamination_article.toml").write_text('kind = "article"\nuser = "Fact-check: {claim}"\n')
    monkeypatch.setenv("WORKBENCH_PROMPTS_DIR", str(folder))
    assert load_task_template("contamination_article", "article").user == "Fact-check: {claim}"
    (folder / "contamination_article.toml").write_text('kind = "article"\nuser = "{claim} {mood}"\n')
    with pytest.raises(TemplateError, match=r"user uses unknown placeholder\(s\) \{mood\}"):
        load_task_template("contamination_article", "article")
    (folder / "contamination_article.toml").write_text('kind = "article\n')
    with pytest.raises(TemplateError, match="not valid TOML"):
        load_task_template("contamination_article", "article")
