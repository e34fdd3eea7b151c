"""Search runs (issue 14): a model searches and reads before it answers, every step stored,
searches cached, leakage guards applied and recorded; checked against scripted loopback
models (tool calls) and loopback SearXNG / Tavily servers."""

from __future__ import annotations

import json
import re
import signal

import pytest
from click.testing import CliRunner

from store import Store
from tests.loopback_search import SearchServer
from tests.loopback_servers import LoopbackServer, ToolUse
from tests.run_fixtures import load_mini
from tests.support.processes import opened_store, workbench_process
from workbench.cli import main

FINAL = '{"verdict": "Refuted", "explanation": "The register says otherwise."}'


def cli(db, *args):
    return CliRunner().invoke(main, ["--db", str(db), *map(str, args)], terminal_width=120)


@pytest.fixture
def mini_db(store, db_path, tmp_path):
    load_mini(store, tmp_path)
    return db_path


def asked(body) -> int:
    """How many tool results the request carries so far (the model's turn number - 1)."""
    return sum(1 for m in body["messages"] if m.get("role") == "tool")


def search_then_read(body):
    turn = asked(body)
    if turn == 0:
        return ToolUse([("search", {"query": "Lantern Bridge pedestrians"})], "Let me check.")
    if turn == 1:
        return ToolUse([("read", {"result": 1})])
    return FINAL


def test_a_search_run_searches_reads_answers_and_keeps_every_step(mini_db):
    with LoopbackServer("openai", answer=search_then_read) as server:
        result = cli(
            mini_db,
            "run",
            "--dataset",
            "mini",
            "--model",
            "openai-compatible:agent",
            "--base-url",
            server.url,
            "--search",
            "fts",
            "--concurrency",
            "1",
        )
        assert result.exit_code == 0, result.output
        first = server.answer_arrivals()[0].body
        second = server.answer_arrivals()[1].body
    assert [t["function"]["name"] for t in first["tools"]] == ["search", "read"]
    tool_turn = second["messages"][-1]
    assert tool_turn["role"] == "tool" and 'Search results for "Lantern Bridge pedestrians"' in tool_turn["content"]
    assert "[1]" in tool_turn["content"] and "bridges.example.org/lantern" in tool_turn["content"]
    with opened_store(mini_db) as store:
        run = store.runs.list()[0]
        assert run.name.endswith("-search-fts") and run.params["search"] == "fts"
        steps = store.search.trajectory(run.id, store.claims.resolve("mini:m1"))
        prediction = store.runs.prediction(run.id, store.claims.resolve("mini:m1"))
    assert [s.kind for s in steps] == ["search", "read", "answer"]
    assert steps[0].query == "Lantern Bridge pedestrians" and steps[0].text == "Let me check."
    assert steps[0].results[0].url == "https://bridges.example.org/lantern"
    assert "Lantern Bridge over the river Ashby" in steps[1].results[0].snippet
    assert prediction.verdict == "Refuted" and prediction.parsed["search"] == {"searches": 1, "steps": 3, "leak": False}
    shown = cli(mini_db, "trajectory", run.name, "mini:m1")
    assert "search Lantern Bridge pedestrians" in shown.output and "answer" in shown.output
    stats = json.loads(cli(mini_db, "search-stats", run.name, "--json").output)
    assert stats["searches_per_claim"] == 1.0 and stats["domains"]["bridges.example.org"] >= 1


def test_a_rerun_is_answered_from_the_caches(mini_db):
    with LoopbackServer("openai", answer=search_then_read) as server:
        args = [
            "run",
            "--dataset",
            "mini",
            "--model",
            "openai-compatible:agent",
            "--base-url",
            server.url,
            "--search",
            "fts",
        ]
        assert cli(mini_db, *args).exit_code == 0
        served = len(server.answer_arrivals())
        again = cli(mini_db, *args, "--name", "again")
        assert again.exit_code == 0 and "4 from cache" in again.output
        assert len(server.answer_arrivals()) == served


def dated(query):
    return [
        {
            "url": "https://www.snopes.com/fact-check/lantern-bridge/",
            "title": "Fact check: bridge",
            "snippet": "A fact-checker's verdict.",
            "published": "2023-01-01",
        },
        {
            "url": "https://news.example.org/later",
            "title": "Later news",
            "snippet": "After the claim.",
            "published": "2024-06-01T10:00:00Z",
        },
        {
            "url": "https://news.example.org/before",
            "title": "[bold]Earlier[/] \x1b[31mnews",
            "snippet": "Before it.",
            "published": "2023-05-01",
        },
        {"url": "http://example.org/checks/lantern?ref=x", "title": "The claim's own check", "snippet": "Ours."},
    ]


def one_search(body):
    return ToolUse([("search", {"query": "lantern"})]) if asked(body) == 0 else FINAL


def test_guards_drop_late_fact_checker_and_own_article_results_and_say_why(store, db_path, tmp_path):
    from tests.run_fixtures import MINI_CLAIMS, write_mini
    from workbench.importers import import_file

    claims = [{**MINI_CLAIMS[0], "article_url": "https://example.org/checks/lantern/"}]
    import_file(store, write_mini(tmp_path, claims), "jsonl")
    with SearchServer("searxng", results=dated) as search, LoopbackServer("openai", answer=one_search) as model:
        result = cli(
            db_path,
            "run",
            "--dataset",
            "mini",
            "--model",
            "openai-compatible:agent",
            "--base-url",
            model.url,
            "--search",
            "searxng",
            "--search-url",
            search.url,
        )
        assert result.exit_code == 0, result.output
        shown = model.answer_arrivals()[1].body["messages"][-1]["content"]
    assert "news.example.org/before" in shown
    assert "snopes" not in shown and "later" not in shown.lower() and "own check" not in shown
    run = store.runs.list()[0]
    results = store.search.trajectory(run.id, store.claims.resolve("mini:m1"))[0].results
    assert [r.dropped for r in results] == [
        "a fact-checking site",
        "published after the claim",
        None,
        "the claim's own fact-check",
    ]
    text = cli(db_path, "trajectory", run.name, "mini:m1").output
    assert "[bold]Earlier[/] \\x1b[31mnews" in text  # hostile text, shown as typed
    stats = json.loads(cli(db_path, "search-stats", run.name, "--json").output)
    assert stats["dropped"] == {
        "a fact-checking site": 1,
        "published after the claim": 1,
        "the claim's own fact-check": 1,
    }


def test_a_result_that_is_the_claims_own_fact_check_flags_a_leak(store, db_path, tmp_path):
    pytest.importorskip("nltk")
    from workbench.nlp.nlp_data import check_nlp_data

    try:
        check_nlp_data()
    except Exception:
        pytest.skip("WordNet is not installed (make setup runs workbench nlp-data)")
    from tests.run_fixtures import MINI_CLAIMS, write_mini
    from workbench.importers import import_file

    article = (
        "The Lantern Bridge over the river Ashby opened in 1911 and carries only pedestrians; the claim that"
        " it carries cars is false, the county register shows."
    )
    import_file(store, write_mini(tmp_path, [{**MINI_CLAIMS[1], "article_text": article}]), "jsonl")
    copied = [{"url": "https://mirror.example.net/story", "title": "Copied", "snippet": article}]
    with (
        SearchServer("searxng", results=lambda q: copied) as search,
        LoopbackServer("openai", answer=one_search) as model,
    ):
        assert (
            cli(
                db_path,
                "run",
                "--dataset",
                "mini",
                "--model",
                "openai-compatible:agent",
                "--base-url",
                model.url,
                "--search",
                "searxng",
                "--search-url",
                search.url,
            ).exit_code
            == 0
        )
    run = store.runs.list()[0]
    assert store.claims.count(f"run:{run.id} flagged:search-leak@run") == 1
    assert store.runs.prediction(run.id, store.claims.resolve("mini:m2")).parsed["search"]["leak"] is True


def test_tavily_sends_its_key_and_read_uses_the_raw_content(mini_db, monkeypatch):
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-secret-123")
    pages = [{"url": "https://a.example.org/x", "title": "A", "snippet": "short", "text": "The whole page text."}]
    with (
        SearchServer("tavily", results=lambda q: pages) as search,
        LoopbackServer("openai", answer=search_then_read) as model,
    ):
        result = cli(
            mini_db,
            "run",
            "--where",
            "ext:m1",
            "--model",
            "openai-compatible:agent",
            "--base-url",
            model.url,
            "--search",
            "tavily",
            "--search-url",
            search.url,
        )
        assert result.exit_code == 0, result.output
        assert search.headers[0]["authorization"] == "Bearer tvly-secret-123"
        read_reply = model.answer_arrivals()[2].body["messages"][-1]["content"]
    assert "The whole page text." in read_reply
    assert b"tvly-secret-123" not in mini_db.read_bytes()


@pytest.mark.parametrize(
    "faults, expect",
    [
        (["500", "429"], "Search results for"),  # tried again, then answered
        (["500", "500", "500"], "The search failed: searxng answered HTTP 500"),
        (["malformed"], "The search failed: searxng answered with something that is not JSON"),
        (["slow", "slow", "slow"], "did not answer within"),
        (["403"], "HTTP 403 (this instance does not answer JSON: add json to search.formats"),
    ],
)
def test_a_failing_search_backend_is_told_to_the_model(mini_db, monkeypatch, faults, expect):
    import workbench.search.backends as backends

    monkeypatch.setattr(backends, "TIMEOUT_S", 0.3)
    rows = [{"url": "https://b.example.org/", "title": "B", "snippet": "b"}]
    with (
        SearchServer("searxng", results=lambda q: rows, slow_seconds=1.0) as search,
        LoopbackServer("openai", answer=one_search) as model,
    ):
        search.faults.extend(faults)
        assert (
            cli(
                mini_db,
                "run",
                "--where",
                "ext:m1",
                "--model",
                "openai-compatible:agent",
                "--base-url",
                model.url,
                "--search",
                "searxng",
                "--search-url",
                search.url,
            ).exit_code
            == 0
        )
        reply = model.answer_arrivals()[1].body["messages"][-1]["content"]
    assert expect in reply


def test_no_results_are_said(mini_db):
    with SearchServer("searxng") as search, LoopbackServer("openai", answer=one_search) as model:
        assert (
            cli(
                mini_db,
                "run",
                "--where",
                "ext:m1",
                "--model",
                "openai-compatible:agent",
                "--base-url",
                model.url,
                "--search",
                "searxng",
                "--search-url",
                search.url,
            ).exit_code
            == 0
        )
        assert 'No results for "lantern"' in model.answer_arrivals()[1].body["messages"][-1]["content"]


def misbehaving(body):
    turn = asked(body)
    script = [
        ToolUse([("browse", {"url": "x"})]),
        ToolUse([("search", '{"query": ')]),
        ToolUse([("search", {"query": "same"})]),
        ToolUse([("search", {"query": "same"})]),
    ]
    return script[turn] if turn < len(script) else ToolUse([("search", {"query": f"again {turn}"})])


def test_a_model_that_misbehaves_ends_as_a_parse_failure_with_its_trajectory(mini_db):
    with LoopbackServer("openai", answer=misbehaving) as model:
        result = cli(
            mini_db,
            "run",
            "--where",
            "ext:m1",
            "--model",
            "openai-compatible:agent",
            "--base-url",
            model.url,
            "--search",
            "fts",
            "--max-steps",
            "5",
        )
        assert result.exit_code == 0, result.output
        last = model.answer_arrivals()[-1].body
        replies = [m["content"] for m in last["messages"] if m.get("role") == "tool"]
    assert "there is no tool 'browse'" in replies[0] and "are not JSON" in replies[1]
    with opened_store(mini_db) as store:
        run = store.runs.list()[0]
        claim = store.claims.resolve("mini:m1")
        steps = store.search.trajectory(run.id, claim)
        prediction = store.runs.prediction(run.id, claim)
    assert [s.kind for s in steps] == ["invalid", "invalid", "search", "search", "search", "limit"]
    assert steps[3].note == "repeats search 1"
    assert prediction.status == "parse_failure" and prediction.explanation == "no answer within 5 steps"


def anthropic_agent(body):
    if not any(
        isinstance(m.get("content"), list) and any(b.get("type") == "tool_result" for b in m["content"])
        for m in body["messages"]
    ):
        return ToolUse([("search", {"query": "ashby floods"})])
    return FINAL


def test_anthropic_tool_use_and_results_on_the_wire(mini_db, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-search")
    with LoopbackServer("anthropic", answer=anthropic_agent) as model:
        assert (
            cli(
                mini_db,
                "run",
                "--where",
                "ext:m3",
                "--model",
                "anthropic:claude-agent",
                "--base-url",
                model.url,
                "--search",
                "fts",
            ).exit_code
            == 0
        )
        first, second = [a.body for a in model.answer_arrivals()]
    assert first["tools"][0]["name"] == "search" and "input_schema" in first["tools"][0]
    assistant, results = second["messages"][-2], second["messages"][-1]
    assert assistant["content"][-1]["type"] == "tool_use" and assistant["content"][-1]["input"] == {
        "query": "ashby floods"
    }
    assert results["role"] == "user" and results["content"][0]["type"] == "tool_result"
    assert results["content"][0]["tool_use_id"] == assistant["content"][-1]["id"]


def text_protocol(body):
    last = body["messages"][-1]["content"]
    if "SEARCH:" in json.dumps(body["messages"][-2:]) and 'Search results for "lantern bridge register"' in last:
        return FINAL
    if 'Search results for "' in last:
        return "SEARCH: lantern bridge register"
    return FINAL


def test_the_text_protocol_opens_with_the_claim_and_follows_search_lines(mini_db):
    with LoopbackServer("openai", answer=text_protocol) as model:
        assert (
            cli(
                mini_db,
                "run",
                "--where",
                "ext:m1",
                "--model",
                "openai-compatible:plain",
                "--base-url",
                model.url,
                "--search",
                "fts",
                "--param",
                "tools=text",
            ).exit_code
            == 0
        )
        first = model.answer_arrivals()[0].body
    assert "tools" not in first and "SEARCH: your query" in first["messages"][-2]["content"]
    with opened_store(mini_db) as store:
        run = store.runs.list()[0]
        steps = store.search.trajectory(run.id, store.claims.resolve("mini:m1"))
    assert [(s.kind, s.query) for s in steps] == [
        ("search", "The Lantern Bridge opened in 1911."),
        ("search", "lantern bridge register"),
        ("answer", None),
    ]


def slow_agent(body):
    turn = asked(body)
    return ToolUse([("search", {"query": f"q{turn}"})]) if turn < 2 else FINAL


def test_a_killed_search_run_keeps_its_steps_and_resumes(store, db_path, tmp_path):
    from tests.run_fixtures import many_claims, write_mini
    from workbench.importers import import_file

    import_file(store, write_mini(tmp_path, many_claims(12), name="many"), "jsonl")
    with LoopbackServer("openai", latency=0.1, answer=slow_agent) as model:
        process = workbench_process(
            db_path,
            "run",
            "--dataset",
            "many",
            "--model",
            "openai-compatible:agent",
            "--base-url",
            model.url,
            "--search",
            "fts",
            "--concurrency",
            "2",
            "--name",
            "s",
        )
        try:
            assert model.wait_served(10)
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait()
        with opened_store(db_path) as opened:
            run = opened.runs.get("s")
            before = {c: opened.search.trajectory(run.id, c) for c in opened.claims.ids("dataset:many")}
        assert any(before.values()) and len(opened_predictions(db_path)) < 12
        again = cli(db_path, "run", "--resume", "s")
        assert again.exit_code == 0, again.output
    with opened_store(db_path) as opened:
        after = {c: opened.search.trajectory(run.id, c) for c in opened.claims.ids("dataset:many")}
    assert len(opened_predictions(db_path)) == 12
    for claim, steps in before.items():
        assert after[claim][: len(steps)] == steps  # finished steps stay as they were
        assert [s.kind for s in after[claim]] == ["search", "search", "answer"]


def opened_predictions(db_path):
    store = Store.open(db_path)
    try:
        return store.runs.predictions(store.runs.get("s").id)
    finally:
        store.close()


def test_knowledge_store_documents_are_searched_by_their_own_claim(mini_db, tmp_path):
    folder = tmp_path / "ks"
    folder.mkdir()  # AVeriTeC's shape: CLAIM_ID.json, a page per line, its text as sentences
    (folder / "17.json").write_text(
        json.dumps(
            {
                "url": "https://archive.example.org/ashby-rain",
                "url2text": ["Ashby rainfall records", "spring floods every year"],
            }
        )
    )
    (folder / "more.jsonl").write_text(
        json.dumps(
            {"claim_id": "m3", "url": "https://river.example.org/ashby", "text": "Ashby spring floods were measured."}
        )
        + "\n"
    )
    assert "2 documents added" in cli(mini_db, "import-knowledge", folder, "--dataset", "mini").output
    with LoopbackServer("openai", answer=anthropic_agent_openai) as model:
        assert (
            cli(
                mini_db,
                "run",
                "--where",
                "ext:m3",
                "--model",
                "openai-compatible:agent",
                "--base-url",
                model.url,
                "--search",
                "fts",
            ).exit_code
            == 0
        )
        reply = model.answer_arrivals()[1].body["messages"][-1]["content"]
    assert "river.example.org/ashby" in reply
    assert "archive.example.org" not in reply  # claim 17's page is for claim 17 only
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"url": "x"}\n')
    failed = cli(mini_db, "import-knowledge", bad, "--dataset", "mini")
    assert failed.exit_code == 1 and re.search(r"bad.jsonl:1.*needs its text", failed.output)


def anthropic_agent_openai(body):
    return ToolUse([("search", {"query": "ashby spring floods"})]) if asked(body) == 0 else FINAL


def test_exports_carry_the_trajectory(mini_db, tmp_path):
    with LoopbackServer("openai", answer=search_then_read) as server:
        assert (
            cli(
                mini_db,
                "run",
                "--where",
                "ext:m1",
                "--model",
                "openai-compatible:agent",
                "--base-url",
                server.url,
                "--search",
                "fts",
                "--name",
                "s",
            ).exit_code
            == 0
        )
    out = tmp_path / "p.jsonl"
    assert cli(mini_db, "export", "--what", "predictions", "--run", "s", "-o", out).exit_code == 0
    record = json.loads(out.read_text().splitlines()[0])
    assert [step["kind"] for step in record["trajectory"]] == ["search", "read", "answer"]
    assert record["trajectory"][0]["results"][0]["url"] == "https://bridges.example.org/lantern"


async def test_the_trajectory_tab_shows_each_step(mini_db):
    from tests.support.tui import make_app, open_claim, screen_text, settle

    with LoopbackServer("openai", answer=search_then_read) as server:
        assert (
            cli(
                mini_db,
                "run",
                "--where",
                "ext:m1",
                "--model",
                "openai-compatible:agent",
                "--base-url",
                server.url,
                "--search",
                "fts",
                "--name",
                "s",
            ).exit_code
            == 0
        )
    with opened_store(mini_db) as store:
        claim = store.claims.resolve("mini:m1")
    app = make_app(mini_db)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await open_claim(pilot, app, claim)
        await pilot.press("8")
        await settle(pilot, app)
        text = screen_text(app)
    assert "run s" in text and "search Lantern Bridge pedestrians" in text and "answer" in text
    assert "bridges.example.org/lantern" in text


def write_trajectory(store, run_id, claim_id, queries):
    from store import Step

    for n, query in enumerate(queries, 1):
        store.search.record_step(run_id, claim_id, Step(n, "search", query=query))
    store.search.record_step(run_id, claim_id, Step(len(queries) + 1, "answer", "done"))


LABELLED = {
    # claim: (queries, labels a judge gives) -- hand-checked counts below
    0: (["a", "a b", "a b c"], ["specialization", "specialization"]),
    1: (["x", "y"], ["exploration"]),
    2: (["q"], []),
    3: (["m", "m", "n"], ["repetition", "exploration"]),
}


def labelling_judge(body):
    text = body["messages"][-1]["content"]
    for queries, labels in LABELLED.values():
        pairs = "\n".join(f"{n}. FROM: {a}\n   TO:   {b}" for n, (a, b) in enumerate(zip(queries, queries[1:]), 1))
        if len(queries) > 1 and pairs in text:
            return json.dumps({"labels": labels})
    return "no idea"


def searched_and_flagged(mini_db):
    """A finished search run "agent" with the LABELLED queries; the first two claims flagged."""
    from store import Run

    with opened_store(mini_db) as store:
        ids = store.claims.ids("dataset:mini")
        run = store.runs.create(
            Run(name="agent", model="m", dataset_id=1, params={"search": "fts"}, status="finished"), ids
        )
        for n, (queries, _) in LABELLED.items():
            write_trajectory(store, run.id, ids[n], queries)
        store.annotations.flag([ids[0], ids[1]], "contaminated")
    return run


def test_query_reformulations_labelled_by_a_judge_and_compared_by_subset(mini_db):
    searched_and_flagged(mini_db)
    with LoopbackServer("openai", answer=labelling_judge) as judge:
        result = cli(
            mini_db,
            "reformulations",
            "agent",
            "--judge",
            "openai-compatible:j",
            "--base-url",
            judge.url,
            "--by",
            "flag:contaminated",
            "--json",
            "--resamples",
            "200",
        )
        assert result.exit_code == 0, result.output
    found = json.loads(result.output[result.output.index("{") :])
    # Four claims searched: specialization 2+0+0+0, exploration 0+1+0+1, repetition 0+0+0+1.
    assert found["claims"] == 4 and found["unreadable"] == 0
    assert found["overall"] == {"specialization": 0.5, "generalization": 0.0, "exploration": 0.5, "repetition": 0.25}
    assert found["subsets"]["yes"]["specialization"] == 1.0 and found["subsets"]["no"]["repetition"] == 0.5
    assert found["subsets"]["yes"]["claims"] == 2 and found["subsets"]["no"]["claims"] == 2
    first, second = list(found["subsets"])
    test = found["tests"]["exploration"]
    assert test["delta"] == pytest.approx(
        found["subsets"][second]["exploration"] - found["subsets"][first]["exploration"]
    )
    # The report and `metrics` carry the same table beside the run's scores.
    report = cli(mini_db, "report", "agent", "--by", "flag:contaminated", "--resamples", "200", "--format", "md")
    assert report.exit_code == 0, report.output
    assert "Query reformulations per claim, agent (labelled by" in report.output
    assert re.search(r"\| specialization \| 0\.50 \| (1\.00 \| 0\.00|0\.00 \| 1\.00) \| [+-]1\.00 \[", report.output)
    metrics = json.loads(cli(mini_db, "metrics", "agent", "--json", "--resamples", "0").output)
    assert metrics["runs"][0]["search"]["reformulations"]["overall"]["repetition"] == 0.25
    # A cutoff split takes the date given to metrics, as the scores do.
    by_date = cli(mini_db, "metrics", "agent", "--by", "cutoff", "--cutoff", "2024-01-01", "--json", "--resamples", "0")
    assert by_date.exit_code == 0, by_date.output
    assert json.loads(by_date.output)["runs"][0]["search"]["reformulations"]["claims"] == 4


async def test_the_metrics_view_shows_searches_and_reformulations_by_flag(mini_db):
    from tests.support.tui import make_app, screen_text, until
    from workbench.tui.screens.metrics.screen import MetricsScreen

    run = searched_and_flagged(mini_db)
    with LoopbackServer("openai", answer=labelling_judge) as judge:
        assert (
            cli(mini_db, "reformulations", "agent", "--judge", "openai-compatible:j", "--base-url", judge.url).exit_code
            == 0
        )
    app = make_app(mini_db)
    async with app.run_test(size=(120, 60)) as pilot:
        app.push_screen(MetricsScreen(mini_db, [run.id], resamples=100))
        await until(pilot, lambda: app.screen.update is not None and "reformulations" in screen_text(app))
        text = screen_text(app) + drawn(app.screen.query_one("#search-panel").content)
    assert re.search(r"searches/claim\s+2\.25", text)  # 3 + 2 + 1 + 3 searches over 4 claims
    assert "flagged contaminated or not" in text and "yes (2)" in text and "no (2)" in text
    assert re.search(r"specialization\s+0\.50\s+(1\.00\s+0\.00|0\.00\s+1\.00)", text)


def drawn(renderable) -> str:
    import io

    from rich.console import Console

    console = Console(width=120, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def test_reformulation_labels_are_read_strictly():
    from workbench.judging.reformulation import parse_labels

    assert parse_labels('{"labels": ["Specialization", "g", "exploration"]}').parsed == {
        "labels": ["specialization", "generalization", "exploration"]
    }
    assert parse_labels('{"labels": ["sideways"]}').status == "parse_failure"
    assert parse_labels("specialization then exploration").status == "parse_failure"


def test_common_words_are_left_out_of_a_slow_full_text_query(mini_db, monkeypatch):
    from store import search

    assert search.rarest_within(["the", "lantern", "bridge"], {"the": 900, "lantern": 2, "bridge": 40}, 50) == [
        "lantern",
        "bridge",
    ]
    assert search.rarest_within(["bridge", "river"], {"bridge": 400, "river": 900}, 50) == ["bridge"]
    store = Store.open(mini_db)
    dataset = store.db.execute("SELECT id FROM datasets WHERE name = 'mini'").fetchone()[0]
    store.search.add_documents(
        dataset,
        [(None, f"https://bridges.example.org/{n}", None, f"Bridge {n} crosses the river.", None) for n in range(30)]
        + [(None, "https://lanterns.example.org/", None, "The Lantern Bridge is lit.", None)],
    )
    monkeypatch.setattr(search, "POSTINGS_BUDGET", 5)
    assert store.search.fts_expression("documents_fts", ["lantern", "bridge"]) == '"lantern"'
    # Words are counted as the index holds them: accents dropped, `_` between words.
    store.search.add_documents(
        dataset,
        [(None, f"https://es.example.org/{n}", None, "Política local.", None) for n in range(30)]
        + [(None, "https://es.example.org/x", None, "Según el pleno, covid_19.", None)],
    )
    assert store.search.fts_expression("documents_fts", search.query_words("SEGÚN Política")) == '"segun"'
    assert search.query_words("covid_19") == ["covid", "19"]
    found = store.search.full_text("Lantern Bridge", 3, "mini", "m1")
    assert found[0]["url"] == "https://lanterns.example.org/"


def keeps_searching(body):
    if body.get("tool_choice") == "none":
        return FINAL
    return ToolUse([("search", {"query": f"ashby floods {asked(body)}"})])


def test_a_claim_past_its_token_budget_is_asked_for_its_answer(mini_db):
    with LoopbackServer("openai", answer=keeps_searching) as model:  # 11 + 7 tokens a turn
        result = cli(
            mini_db,
            "run",
            "--where",
            "ext:m1",
            "--model",
            "openai-compatible:agent",
            "--base-url",
            model.url,
            "--search",
            "fts",
            "--max-claim-tokens",
            "40",
        )
        assert result.exit_code == 0, result.output
        last = model.answer_arrivals()[-1].body
    assert last["tool_choice"] == "none" and last["tools"]  # declared, not callable
    with opened_store(mini_db) as store:
        run = store.runs.list()[0]
        claim = store.claims.resolve("mini:m1")
        steps = store.search.trajectory(run.id, claim)
        prediction = store.runs.prediction(run.id, claim)
    assert [s.kind for s in steps] == ["search", "search", "search", "limit", "answer"]
    assert steps[3].note == "54 tokens used (limit 40); asked for the answer"
    assert prediction.verdict == "Refuted" and (prediction.tokens_in, prediction.tokens_out) == (44, 28)


def test_a_budget_spent_on_the_last_step_still_gets_its_answer(mini_db):
    with LoopbackServer("openai", answer=keeps_searching) as model:
        assert (
            cli(
                mini_db,
                "run",
                "--where",
                "ext:m1",
                "--model",
                "openai-compatible:agent",
                "--base-url",
                model.url,
                "--search",
                "fts",
                "--max-claim-tokens",
                "40",
                "--max-steps",
                "3",
            ).exit_code
            == 0
        )
    with opened_store(mini_db) as store:
        run = store.runs.list()[0]
        claim = store.claims.resolve("mini:m1")
        kinds = [s.kind for s in store.search.trajectory(run.id, claim)]
        prediction = store.runs.prediction(run.id, claim)
    assert kinds == ["search", "search", "search", "limit", "answer"] and prediction.verdict == "Refuted"
