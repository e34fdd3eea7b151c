"""The screening step: an LLM run on the engine (against a real loopback server speaking the
Chat Completions wire format) labels each claim's wording; what it rejects is flagged with
its reason, unreadable answers are kept and counted, a second time costs nothing, and the
batch API path applies once collected."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from store import Store
from tests.claimreview_files import claim_review, write_json
from tests.loopback_servers import LoopbackServer
from workbench.cli import main
from workbench.curation.screening import parse_screening
from workbench.importers import ImportRequest, run_import

KEY = "sk-screen-secret-7777"
CLAIMS = {
    "ok": "The harbour bridge cost 90 million crowns.",
    "reveals": "A doctored photo shows the mayor at the marina.",
    "meta": "A viral post claims that schools will close on Fridays.",
    "cut": "The council voted to",
    "garbled": "The ferry will be free for pensioners.",
}


def answer(body: dict) -> str:
    prompt = body["messages"][-1]["content"]
    claim = next(line for line in prompt.splitlines() if line.startswith("Claim: ")) + "\n"
    if CLAIMS["garbled"] in claim:
        return "I think it is fine, really."
    for label, words in (("reveals-verdict", "doctored"), ("meta", "viral post"), ("incomplete", "voted to\n")):
        if words in claim:
            return json.dumps({"label": label, "reason": f"[bold]because of '{words.strip()}'"})
    return '```json\n{"label": "OK", "reason": "A checkable statement."}\n```'


@pytest.fixture
def screen_db(store, db_path, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    reviews = [claim_review(text, "False", f"https://a.example/{name}") for name, text in CLAIMS.items()]
    run_import(store, ImportRequest(write_json(tmp_path / "cr.json", reviews)))
    return db_path


def cli(db_path, *args):
    return CliRunner().invoke(main, ["--db", str(db_path), *map(str, args)], terminal_width=120)


def flags(db_path) -> dict[str, str]:
    store = Store.open(db_path)
    found = {
        store.claims.get(i).external_id.rsplit("/", 1)[-1]: f.note
        for i in store.claims.ids("flagged:curated-out:screen")
        for f in store.annotations.flags_for(i)
    }
    store.close()
    return found


def test_a_screening_run_flags_what_it_rejects_with_the_reason(screen_db):
    with LoopbackServer("openai", answer=answer) as server:
        result = cli(screen_db, "curate", "cr", "--screen", "openai:gpt-test", "--base-url", server.url)
        assert result.exit_code == 0, result.output
        found = flags(screen_db)
        assert set(found) == {"reveals", "meta", "cut"}
        assert (
            found["meta"]
            == "meta: [bold]because of 'viral post' (screened by openai:gpt-test, run gpt-test-screens-cr)"
        )
        assert "kept: 1 whose answer could not be read" in result.output
        funnel = json.loads(cli(screen_db, "curate", "cr", "--json").output)
        assert funnel["steps"][-1]["note"] == "reveals-verdict 1, incomplete 1, meta 1, 1 unreadable (kept)"
        prompt = server.answer_arrivals()[0].body["messages"][-1]["content"]
        assert "False" not in prompt  # the model judges the wording: it never sees the verdict
        asked = len(server.answer_arrivals())
        assert asked == 4 + 3  # the garbled answer was asked three times in all

        again = cli(screen_db, "curate", "cr", "--screen", "openai:gpt-test", "--base-url", server.url)
        assert again.exit_code == 0, again.output
        assert len(server.answer_arrivals()) == asked  # the finished run is reused, nothing is asked
        assert flags(screen_db) == found
    assert KEY.encode() not in screen_db.read_bytes()


def test_screening_looks_only_at_what_the_earlier_steps_left(screen_db):
    with LoopbackServer("openai", answer=answer) as server:
        assert cli(screen_db, "curate", "cr", "--dedup", "--before", "2024-01-01").exit_code == 0
        result = cli(screen_db, "curate", "cr", "--screen", "openai:gpt-test", "--base-url", server.url)
        assert result.exit_code == 1 and "no claims of cr are left to screen" in result.output
        assert not server.answer_arrivals()


def test_a_screening_through_the_batch_api(screen_db):
    with LoopbackServer("openai", answer=answer) as server:
        submitted = cli(screen_db, "curate", "cr", "--screen", "openai:gpt-test", "--base-url", server.url, "--batch")
        assert submitted.exit_code == 0, submitted.output
        assert "submitted batch" in submitted.output and not server.answer_arrivals()
        assert flags(screen_db) == {}
        run = "gpt-test-screens-cr"
        collected = cli(screen_db, "batch", "collect", run)
        assert "answers recorded now" in collected.output, collected.output
        applied = cli(screen_db, "curate", "cr", "--screen", "openai:gpt-test", "--base-url", server.url)
        assert set(flags(screen_db)) == {"reveals", "meta", "cut"}, applied.output


def test_answers_are_read_strictly():
    assert parse_screening('{"label": "Reveals verdict", "reason": "says fake"}').parsed == {
        "label": "reveals-verdict",
        "reason": "says fake",
    }
    assert parse_screening('{"category": "meta"}').parsed == {"label": "meta", "reason": None}
    assert parse_screening('{"label": "maybe"}').status == "parse_failure"
    assert parse_screening("ok").status == "parse_failure"


def test_json_output_stays_json_while_screening(screen_db):
    with LoopbackServer("openai", answer=answer) as server:
        result = cli(screen_db, "curate", "cr", "--screen", "openai:gpt-test", "--base-url", server.url, "--json")
        assert result.exit_code == 0, result.output
        funnel = json.loads(result.output)
        assert funnel["steps"][-1]["removed"] == 3 and funnel["kept"] == 2


def test_claims_added_after_a_screening_are_counted_as_not_screened(screen_db, tmp_path):
    with LoopbackServer("openai", answer=answer) as server:
        assert cli(screen_db, "curate", "cr", "--screen", "openai:gpt-test", "--base-url", server.url).exit_code == 0
        store = Store.open(screen_db)
        reviews = [claim_review(text, "False", f"https://a.example/{name}") for name, text in CLAIMS.items()]
        reviews.append(claim_review("The ferry timetable changes in May.", "False", "https://a.example/new"))
        run_import(store, ImportRequest(write_json(tmp_path / "cr.json", reviews)))
        store.close()
        funnel = json.loads(cli(screen_db, "curate", "cr", "--json").output)
        assert funnel["steps"][-1]["note"].endswith("1 not screened yet")
        again = cli(screen_db, "curate", "cr", "--screen", "openai:gpt-test", "--base-url", server.url)
        assert again.exit_code == 0, again.output
        funnel = json.loads(cli(screen_db, "curate", "cr", "--json").output)
        assert "not screened" not in funnel["steps"][-1]["note"]
        assert funnel["steps"][-1]["in"] == 6
