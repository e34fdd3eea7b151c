"""Image evidence in search runs (issue 25, items 2 and 3): Serper and SearXNG's images
category behind the backend interface, the search_images / view_image / search_by_image
tools (and the text protocol's IMAGES: / VIEW: / REVERSE: lines), retrieved images fetched
once, stored by sha256 and shown to vision models, the leakage guards on image results,
and the caches; against loopback model, search and image servers."""

from __future__ import annotations

import hashlib
import json
import re
from datetime import UTC

import pytest
from click.testing import CliRunner

from tests.loopback_images import PHOTO, ImageServer
from tests.loopback_search import SearchServer
from tests.loopback_servers import LoopbackServer, ToolUse
from tests.loopback_vision import image_hashes, image_urls
from tests.support.processes import opened_store
from workbench.cli import main
from workbench.importers import ImportRequest, run_import

FINAL = '{"verdict": "false", "reason": "The photo is older than the election."}'
SERPER_KEY = "serper-secret-4242"


def cli(db, *args):
    return CliRunner().invoke(main, ["--db", str(db), *map(str, args)], terminal_width=160)


def tool_turns(body) -> int:
    return sum(1 for m in body["messages"] if m.get("role") == "tool")


def tool_replies(body) -> list[str]:
    return [m["content"] for m in body["messages"] if m.get("role") == "tool"]


@pytest.fixture
def photos(store, tmp_path, monkeypatch):
    """A dataset of two image claims (one given by URL, one by file) with dates and articles."""
    from tests.support.images import picture

    monkeypatch.setenv("WORKBENCH_SEARCH_FETCH_PRIVATE", "true")  # the image server is on 127.0.0.1
    picture(tmp_path / "data" / "ballots.png")
    records = [
        {
            "id": "p1",
            "claim": "A photo shows ballot boxes dumped in the River Ost.",
            "label": "FALSE",
            "task": "RD",
            "domain": "politics",
            "date": "2024-01-08",
            "image": "https://photos.example.org/ballots.jpg",
            "article_url": "https://checks.example.net/2024/ballot-boxes-river",
        },
        {
            "id": "p2",
            "claim": "A picture shows the Ost bridge under water.",
            "label": "FALSE",
            "task": "RD",
            "domain": "weather",
            "date": "2024-03-01",
            "image": "ballots.png",
        },
        {
            "id": "p3",
            "claim": "The Ost flooded twice in 2023.",
            "label": "TRUE",
            "task": "EV",
            "domain": "weather",
            "date": "2024-02-01",
        },
    ]
    path = tmp_path / "data" / "photos.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    run_import(store, ImportRequest(path, format="realfactbench", dataset="photos"))
    return store


def image_rows(server: ImageServer):
    def rows(query):
        return [
            {
                "url": "https://news.example.org/2019/flood-drill",
                "title": "Flood drill [bold]crates[/] \x1b[31m",
                "image_url": server.url("/photo.png"),
                "source": "Example News",
                "published": "2019-04-02",
            },
            {
                "url": "https://www.snopes.com/fact-check/ballot-boxes/",
                "title": "Fact check",
                "source": "Snopes",
                "image_url": server.url("/on/snopes.png"),
            },
            {
                "url": "https://blog.example.org/pics",
                "title": "Hosted by a fact-checker",
                "source": "Blog",
                "image_url": "https://factcheck.afp.com/images/ballots.png",
            },
            {
                "url": "https://checks.example.net/2024/ballot-boxes-river/",
                "title": "The claim's own check",
                "image_url": server.url("/on/own.png"),
            },
            {
                "url": "https://later.example.org/story",
                "title": "Later story",
                "image_url": server.url("/chart.jpg"),
                "published": "2024-06-01",
            },
        ]

    return rows


def look_at_first(body):
    turn = tool_turns(body)
    if turn == 0:
        return ToolUse([("search_images", {"query": "ballot boxes river"})], "Let me look for the photo.")
    if turn == 1:
        return ToolUse([("view_image", {"image": 1})])
    return FINAL


def run_images(db, model, search, *extra):
    return cli(
        db,
        "run",
        "--dataset",
        "photos",
        "--where",
        "ext:p1",
        "--model",
        "openai-compatible:eye",
        "--base-url",
        model.url,
        "--search",
        "searxng",
        "--search-url",
        search.url,
        "--image-search",
        *extra,
    )


def test_a_vision_model_searches_images_looks_at_one_and_answers(photos, db_path):
    with (
        ImageServer() as pictures,
        SearchServer("searxng", images=image_rows(pictures)) as search,
        LoopbackServer("openai", answer=look_at_first) as model,
    ):
        result = run_images(db_path, model, search, "--param", "vision=true", "--name", "eye")
        assert result.exit_code == 0, result.output
        assert "image search on (searxng); it takes images" in " ".join(result.output.split())
        first, second, third = [a.body for a in model.answer_arrivals()]
        again = run_images(db_path, model, search, "--param", "vision=true", "--name", "again")
        assert again.exit_code == 0 and "1 from cache" in again.output
        assert len(model.answer_arrivals()) == 3 and len(search.queries) == 1
        assert pictures.hits["/photo.png"] == 1  # fetched once, for both runs
    assert [t["function"]["name"] for t in first["tools"]] == ["search", "read", "search_images", "view_image"]
    listed = tool_replies(second)[0]
    assert listed.startswith('Image results for "ballot boxes river":')
    assert "[image 1] Flood drill" in listed and "picture: " + pictures.url("/photo.png") in listed
    assert "Snopes" not in listed and "afp" not in listed and "own check" not in listed and "Later" not in listed
    assert "is shown in the next message: PNG 40×30" in tool_replies(third)[-1]
    shown = third["messages"][-1]
    assert shown["role"] == "user" and image_hashes(third) == [hashlib.sha256(PHOTO).hexdigest()]
    with opened_store(db_path) as store:
        run = store.runs.get("eye")
        claim = store.claims.resolve("photos:p1")
        steps = store.search.trajectory(run.id, claim)
        prediction = store.runs.prediction(run.id, claim)
        fetched = store.search.fetched_image(pictures.url("/photo.png"))
    assert [(s.kind, s.tool) for s in steps] == [("search", "search_images"), ("read", "view_image"), ("answer", None)]
    assert [r.dropped for r in steps[0].results] == [
        None,
        "a fact-checking site",
        "a fact-checking site",
        "the claim's own fact-check",
        "published after the claim",
    ]
    assert steps[0].results[0].image_url == pictures.url("/photo.png") and steps[0].results[0].source == "Example News"
    viewed = steps[1].results[0]
    assert (
        viewed.sha256 == hashlib.sha256(PHOTO).hexdigest() and viewed.url == "https://news.example.org/2019/flood-drill"
    )
    assert (
        fetched.sha256 == viewed.sha256 and fetched.mime == "image/png" and (fetched.width, fetched.height) == (40, 30)
    )
    assert prediction.verdict == "false" and prediction.parsed["search"]["images_viewed"] == 1
    assert run.params["vision"] is True and run.params["image_search"] is True


def test_anthropic_gets_the_picture_in_the_turn_of_the_tool_results(photos, db_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-images")

    def agent(body):
        results = [
            b
            for m in body["messages"]
            if isinstance(m.get("content"), list)
            for b in m["content"]
            if b.get("type") == "tool_result"
        ]
        if not results:
            return ToolUse([("search_images", {"query": "ballot boxes"})])
        return ToolUse([("view_image", {"image": 1})]) if len(results) == 1 else FINAL

    with (
        ImageServer() as pictures,
        SearchServer("searxng", images=image_rows(pictures)) as search,
        LoopbackServer("anthropic", answer=agent) as model,
    ):
        result = cli(
            db_path,
            "run",
            "--dataset",
            "photos",
            "--where",
            "ext:p1",
            "--model",
            "anthropic:claude-eye",
            "--base-url",
            model.url,
            "--search",
            "searxng",
            "--search-url",
            search.url,
            "--image-search",
            "--param",
            "vision=true",
        )
        assert result.exit_code == 0, result.output
        last = model.answer_arrivals()[-1].body
    turn = last["messages"][-1]
    assert turn["role"] == "user" and [b["type"] for b in turn["content"]] == ["tool_result", "text", "image"]
    assert turn["content"][2]["source"]["media_type"] == "image/png"


def test_a_text_only_model_gets_titles_and_sources_only(photos, db_path):
    def agent(body):
        turn = tool_turns(body)
        if turn == 0:
            return ToolUse([("search_images", {"query": "ballot boxes river"})])
        return ToolUse([("view_image", {"image": 1})]) if turn == 1 else FINAL

    with (
        ImageServer() as pictures,
        SearchServer("searxng", images=image_rows(pictures)) as search,
        LoopbackServer("openai", answer=agent) as model,
    ):
        result = run_images(db_path, model, search, "--param", "vision=false")
        assert result.exit_code == 0, result.output
        first, second, third = [a.body for a in model.answer_arrivals()]
        assert pictures.hits == {}
    assert [t["function"]["name"] for t in first["tools"]] == ["search", "read", "search_images"]
    assert "You cannot see images" in json.dumps(first["messages"])
    listed = tool_replies(second)[0]
    assert "[image 1] Flood drill" in listed and "Example News · https://news.example.org/2019/flood-drill" in listed
    assert "picture:" not in listed and "127.0.0.1" not in listed
    assert "there is no tool 'view_image'" in tool_replies(third)[-1] and not image_urls(third)


def test_a_text_only_api_model_is_found_out_by_the_probe(photos, db_path):
    from tests.loopback_servers import Fault

    with (
        ImageServer() as pictures,
        SearchServer("searxng", images=image_rows(pictures)) as search,
        LoopbackServer("openai", answer=look_at_first) as model,
    ):
        model.faults.append(Fault.status_code(400))  # the 2x2 picture is refused
        result = run_images(db_path, model, search)
        assert result.exit_code == 0, result.output
        assert "it does not take images" in " ".join(result.output.split())
        first = model.answer_arrivals()[0].body
    assert "view_image" not in json.dumps(first["tools"])


def wrong_number(body):
    turn = tool_turns(body)
    if turn == 0:
        return ToolUse([("search_images", {"query": "ballot boxes river"})])
    return ToolUse([("view_image", {"image": 9})]) if turn == 1 else FINAL


def test_a_model_asking_for_an_image_that_does_not_exist_is_told(photos, db_path):
    with (
        ImageServer() as pictures,
        SearchServer("searxng", images=image_rows(pictures)) as search,
        LoopbackServer("openai", answer=wrong_number) as model,
    ):
        assert run_images(db_path, model, search, "--param", "vision=true", "--name", "n").exit_code == 0
        reply = tool_replies(model.answer_arrivals()[2].body)[-1]
    assert reply == "There is no image 9; the images are numbered 1 to 1."
    with opened_store(db_path) as store:
        steps = store.search.trajectory(store.runs.get("n").id, store.claims.resolve("photos:p1"))
    assert (steps[1].kind, steps[1].note) == ("invalid", "no image 9")


def broken_rows(server, path):
    def rows(query):
        return [{"url": "https://news.example.org/x", "title": "A picture", "image_url": server.url(path)}]

    return rows


@pytest.mark.parametrize(
    "path, reason",
    [
        ("/page.html", "the address gives an HTML page, not an image"),
        ("/big.png", "50.0 MB, over the 20.0 MB limit"),
        ("/endless.png", "over the 20.0 MB limit (stopped reading)"),
        ("/loop-a", "a redirect loop"),
        ("/drawing.svg", "an SVG drawing"),
        ("/truncated.png", "the bytes are damaged or cut short"),
        ("/to-ftp", "a redirect to a non-web address (ftp:"),
    ],
)
def test_an_image_that_cannot_be_shown_is_refused_with_its_reason(photos, db_path, path, reason):
    with (
        ImageServer() as pictures,
        SearchServer("searxng", images=broken_rows(pictures, path)) as search,
        LoopbackServer("openai", answer=look_at_first) as model,
    ):
        result = run_images(db_path, model, search, "--param", "vision=true", "--name", "b")
        assert result.exit_code == 0, result.output
        reply = tool_replies(model.answer_arrivals()[2].body)[-1]
        assert not image_urls(model.answer_arrivals()[2].body)
    assert reply.startswith("Image 1 cannot be shown: ") and reason in reply
    with opened_store(db_path) as store:
        run = store.runs.get("b")
        steps = store.search.trajectory(run.id, store.claims.resolve("photos:p1"))
        fetched = store.search.fetched_image(pictures.url(path))
        prediction = store.runs.prediction(run.id, store.claims.resolve("photos:p1"))
        stored_images = store.db.execute("SELECT count(*) FROM images").fetchone()[0]
    assert steps[1].note.startswith("not shown: ") and reason in steps[1].note and steps[1].results[0].sha256 is None
    assert fetched.sha256 is None and reason in fetched.error
    assert prediction.verdict == "false"  # the claim goes on
    assert stored_images == 1  # only the claim's own picture


def test_private_addresses_are_not_fetched_unless_allowed(photos, db_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_SEARCH_FETCH_PRIVATE", "false")
    with (
        ImageServer() as pictures,
        SearchServer("searxng", images=image_rows(pictures)) as search,
        LoopbackServer("openai", answer=look_at_first) as model,
    ):
        assert run_images(db_path, model, search, "--param", "vision=true").exit_code == 0
        reply = tool_replies(model.answer_arrivals()[2].body)[-1]
        assert pictures.hits == {}
    assert "127.0.0.1 is a private or local address" in reply


def text_protocol(body):
    last = body["messages"][-1]["content"]
    text = last if isinstance(last, str) else " ".join(p.get("text", "") for p in last if p.get("type") == "text")
    if 'Image results for "ballots in the river"' in text:
        return "VIEW: 1"
    if "is shown below" in text:
        return FINAL
    if "Search results for" in text or "No results for" in text:
        return "IMAGES: ballots in the river"
    return FINAL


def test_the_text_protocol_searches_images_and_shows_the_picture(photos, db_path):
    with (
        ImageServer() as pictures,
        SearchServer("searxng", images=image_rows(pictures)) as search,
        LoopbackServer("openai", answer=text_protocol) as model,
    ):
        result = run_images(db_path, model, search, "--param", "tools=text", "--param", "vision=true", "--name", "t")
        assert result.exit_code == 0, result.output
        arrivals = [a.body for a in model.answer_arrivals()]
    assert "IMAGES: your query" in json.dumps(arrivals[0]["messages"]) and "VIEW: N" in json.dumps(
        arrivals[0]["messages"]
    )
    shown = arrivals[-1]["messages"][-1]
    assert shown["role"] == "user" and isinstance(shown["content"], list)
    assert image_hashes(arrivals[-1]) == [hashlib.sha256(PHOTO).hexdigest()]
    with opened_store(db_path) as store:
        steps = store.search.trajectory(store.runs.get("t").id, store.claims.resolve("photos:p1"))
    assert [(s.kind, s.tool) for s in steps] == [
        ("search", "search"),
        ("search", "search_images"),
        ("read", "view_image"),
        ("answer", None),
    ]


def serper_rows(query):
    return [
        {
            "url": "https://news.example.org/old",
            "title": "Old story",
            "snippet": "Before it.",
            "published": "Jan 5, 2024",
        },
        {
            "url": "https://news.example.org/new",
            "title": "New story",
            "snippet": "After it.",
            "published": "Feb 2, 2024",
        },
        {
            "url": "https://news.example.org/fresh",
            "title": "Fresh story",
            "snippet": "Just now.",
            "published": "3 days ago",
        },
        {"url": "https://www.politifact.com/factchecks/x", "title": "Rated false", "snippet": "A check."},
    ]


def serper_agent(body):
    turn = tool_turns(body)
    if turn == 0:
        return ToolUse([("search", {"query": "ballot boxes Ost"})])
    return ToolUse([("search_by_image", {})]) if turn == 1 else FINAL


def lens_rows(url):
    return [
        {
            "url": "https://archive.example.org/2019/drill",
            "title": "Drill photo",
            "source": "Archive",
            "image_url": "https://archive.example.org/drill.jpg",
        },
        {"url": "https://checks.example.net/2024/ballot-boxes-river", "title": "Our check", "source": "Checks"},
    ]


def test_serper_searches_the_web_and_by_the_claims_image_with_its_key(photos, db_path, monkeypatch):
    monkeypatch.setenv("SERPER_API_KEY", SERPER_KEY)
    with (
        SearchServer("serper", results=serper_rows, lens=lens_rows, key=SERPER_KEY) as search,
        LoopbackServer("openai", answer=serper_agent) as model,
    ):
        result = cli(
            db_path,
            "run",
            "--dataset",
            "photos",
            "--where",
            "ext:p1",
            "--model",
            "openai-compatible:eye",
            "--base-url",
            model.url,
            "--search",
            "serper",
            "--search-url",
            search.url,
            "--image-search",
            "--param",
            "vision=false",
            "--name",
            "g",
        )
        assert result.exit_code == 0, result.output
        arrivals = [a.body for a in model.answer_arrivals()]
        assert search.paths == ["/search", "/lens"] and search.queries[1] == "https://photos.example.org/ballots.jpg"
        assert all(h["x-api-key"] == SERPER_KEY for h in search.headers)
    assert "search_by_image" in json.dumps(arrivals[0]["tools"])
    web = tool_replies(arrivals[1])[0]
    assert "Old story (2024-01-05)" in web and "New story" not in web and "Fresh story" not in web
    lens = tool_replies(arrivals[2])[-1]
    assert lens.startswith("Pages showing the claim's image 1:") and "Drill photo" in lens and "Our check" not in lens
    with opened_store(db_path) as store:
        steps = store.search.trajectory(store.runs.get("g").id, store.claims.resolve("photos:p1"))
    assert [r.dropped for r in steps[0].results] == [
        None,
        "published after the claim",
        "published after the claim",
        "a fact-checking site",
    ]
    assert [r.published for r in steps[0].results[:2]] == ["2024-01-05", "2024-02-02"]
    assert (steps[1].tool, steps[1].note) == (
        "search_by_image",
        "the claim's image 1: https://photos.example.org/ballots.jpg",
    )
    assert [r.dropped for r in steps[1].results] == [None, "the claim's own fact-check"]
    assert SERPER_KEY.encode() not in db_path.read_bytes()


def test_a_claim_image_from_a_file_cannot_be_searched_by_image(photos, db_path, monkeypatch):
    monkeypatch.setenv("SERPER_API_KEY", SERPER_KEY)
    with (
        SearchServer("serper", results=serper_rows, lens=lens_rows, key=SERPER_KEY) as search,
        LoopbackServer("openai", answer=serper_agent) as model,
    ):
        assert (
            cli(
                db_path,
                "run",
                "--dataset",
                "photos",
                "--where",
                "ext:p2",
                "--model",
                "openai-compatible:eye",
                "--base-url",
                model.url,
                "--search",
                "serper",
                "--search-url",
                search.url,
                "--image-search",
                "--param",
                "vision=false",
            ).exit_code
            == 0
        )
        reply = tool_replies(model.answer_arrivals()[2].body)[-1]
        assert search.paths == ["/search"]
    assert "came from a file, not from the web, so it cannot be searched by image" in reply


@pytest.mark.parametrize(
    "faults, expect",
    [
        (["401"], "serper refused the search: HTTP 401 (the API key was refused); it said: Unauthorized."),
        (["403"], "HTTP 403 (the API key was refused or lacks access to this endpoint)"),
        (["echo"], "it said: bad key [redacted]"),
        (["429", "429", "429"], "serper answered HTTP 429"),
        (["500", "500", "500"], "serper answered HTTP 500"),
        (["500", "429"], "Search results for"),
        (["malformed"], "serper answered with something that is not JSON"),
        (["shapeless"], "serper answered /search without an organic list"),
    ],
)
def test_serper_refusals_and_bad_answers_are_told_to_the_model_without_the_key(
    photos, db_path, monkeypatch, faults, expect
):
    monkeypatch.setenv("SERPER_API_KEY", SERPER_KEY)

    def once(body):
        return ToolUse([("search", {"query": "ballots"})]) if tool_turns(body) == 0 else FINAL

    with (
        SearchServer("serper", results=serper_rows, key=SERPER_KEY) as search,
        LoopbackServer("openai", answer=once) as model,
    ):
        search.faults.extend(faults)
        result = cli(
            db_path,
            "run",
            "--dataset",
            "photos",
            "--where",
            "ext:p1",
            "--model",
            "openai-compatible:eye",
            "--base-url",
            model.url,
            "--search",
            "serper",
            "--search-url",
            search.url,
        )
        assert result.exit_code == 0, result.output
        reply = tool_replies(model.answer_arrivals()[1].body)[0]
    assert expect in reply and SERPER_KEY not in reply
    assert SERPER_KEY.encode() not in db_path.read_bytes()


def test_a_wrong_serper_key_is_refused_and_a_missing_one_said_before_the_run(photos, db_path, monkeypatch):
    monkeypatch.delenv("SERPER_API_KEY", raising=False)
    with (
        SearchServer("serper", results=serper_rows, key=SERPER_KEY) as search,
        LoopbackServer("openai", answer=lambda body: FINAL) as model,
    ):
        missing = cli(
            db_path,
            "run",
            "--dataset",
            "photos",
            "--model",
            "openai-compatible:eye",
            "--base-url",
            model.url,
            "--search",
            "serper",
            "--search-url",
            search.url,
        )
        assert missing.exit_code == 1 and "the serper backend needs a key: set SERPER_API_KEY" in missing.output
        assert model.requests == [] and search.queries == []
        monkeypatch.setenv("SERPER_API_KEY", "not-the-key")

        def once(body):
            return ToolUse([("search", {"query": "ballots"})]) if tool_turns(body) == 0 else FINAL

        model.answer = once
        assert (
            cli(
                db_path,
                "run",
                "--dataset",
                "photos",
                "--where",
                "ext:p1",
                "--model",
                "openai-compatible:eye",
                "--base-url",
                model.url,
                "--search",
                "serper",
                "--search-url",
                search.url,
            ).exit_code
            == 0
        )
        reply = tool_replies(model.answer_arrivals()[1].body)[0]
    assert "HTTP 403 (the API key was refused" in reply and "not-the-key" not in reply


def test_image_search_needs_a_backend_that_has_it(photos, db_path):
    with LoopbackServer("openai", answer=lambda body: FINAL) as model:
        result = cli(
            db_path,
            "run",
            "--dataset",
            "photos",
            "--model",
            "openai-compatible:eye",
            "--base-url",
            model.url,
            "--search",
            "fts",
            "--image-search",
        )
        assert result.exit_code == 1 and "the fts backend has no image search" in result.output
        assert model.requests == []


def test_searxng_asks_its_images_category(photos, db_path):
    with (
        ImageServer() as pictures,
        SearchServer("searxng", images=image_rows(pictures)) as search,
        LoopbackServer("openai", answer=look_at_first) as model,
    ):
        assert run_images(db_path, model, search, "--param", "vision=true").exit_code == 0
    with opened_store(db_path) as store:
        cached = store.db.execute("SELECT backend, query FROM search_cache").fetchall()
    assert cached == [("searxng images", "ballot boxes river")]


def test_dates_are_read_as_the_guards_need_them():
    from datetime import datetime

    from workbench.dates import utc_day as published_day

    now = datetime(2025, 3, 10, tzinfo=UTC)
    assert published_day("Mar 4, 2024") == "2024-03-04" and published_day("4 March 2024") == "2024-03-04"
    assert published_day("2024-06-01T10:00:00Z") == "2024-06-01"
    # An hour before midnight is the day before (the old reader counted hours as no days).
    assert published_day("3 days ago", now) == "2025-03-07" and published_day("an hour ago", now) == "2025-03-09"
    assert published_day("2 weeks ago", now) == "2025-02-24"
    assert published_day("Feb 30, 2024") is None and published_day("sometime") is None


def test_trajectory_text_shows_hostile_image_titles_literally(photos, db_path):
    with (
        ImageServer() as pictures,
        SearchServer("searxng", images=image_rows(pictures)) as search,
        LoopbackServer("openai", answer=look_at_first) as model,
    ):
        assert run_images(db_path, model, search, "--param", "vision=true", "--name", "h").exit_code == 0
    shown = cli(db_path, "trajectory", "h", "photos:p1")
    assert shown.exit_code == 0, shown.output
    assert "Flood drill [bold]crates[/] \\x1b[31m" in shown.output and "\x1b[31m" not in shown.output
    assert re.search(r"PNG 40×30", shown.output)


def test_upgrading_keeps_older_trajectories_and_adds_the_image_columns(db_path):
    from store import Store
    from store.connection import open_database
    from store.migrations import applied_migrations, apply_migrations

    old = open_database(db_path)
    apply_migrations(old, stop_before="m017_search_images")
    old.execute(
        "INSERT INTO datasets (name, source_format, label_space, labels, imported_at)"
        " VALUES ('old', 'jsonl', 'jsfactcheck', '[\"Supported\"]', '2024-01-01')"
    )
    old.execute("INSERT INTO claims (id, dataset_id, external_id, text, content_hash) VALUES (1, 1, 'a', 'c', 'h')")
    old.execute("INSERT INTO runs (name, dataset_id, model, created_at) VALUES ('r', 1, 'm', '2024-01-01')")
    old.execute(
        "INSERT INTO search_steps (run_id, claim_id, step, kind, query, created_at)"
        " VALUES (1, 1, 1, 'search', 'bridges', '2024-01-01')"
    )
    old.execute("INSERT INTO search_results (step_id, rank, url, title) VALUES (1, 0, 'https://a.example.org', 'A')")
    old.close()
    store = Store.open(db_path)
    try:
        assert "m017_search_images" in applied_migrations(store.conn)
        (step,) = store.search.trajectory(1, 1)
        assert step.query == "bridges" and step.results[0].url == "https://a.example.org"
        assert (step.results[0].image_url, step.results[0].sha256) == (None, None)
        assert store.search.fetched_image("https://a.example.org/x.png") is None
    finally:
        store.close()


def test_search_stats_metrics_and_the_report_count_image_searches_and_image_evidence(photos, db_path):
    with (
        ImageServer() as pictures,
        SearchServer("searxng", images=image_rows(pictures)) as search,
        LoopbackServer("openai", answer=look_at_first) as model,
    ):
        result = cli(
            db_path,
            "run",
            "--dataset",
            "photos",
            "--model",
            "openai-compatible:eye",
            "--base-url",
            model.url,
            "--search",
            "searxng",
            "--search-url",
            search.url,
            "--image-search",
            "--param",
            "vision=true",
            "--name",
            "s",
        )
        assert result.exit_code == 0, result.output
    stats = json.loads(cli(db_path, "search-stats", "s", "--by", "modality", "--json").output)
    # Three claims, each: one image search of 5 results, one image looked at; the claim with an
    # article (p1) has 1 shown and 4 dropped, the others 2 shown (their own check is not the page).
    assert (stats["image_searches"], stats["image_searches_per_claim"], stats["images_viewed"]) == (3, 1.0, 3)
    assert (stats["image_results_shown"], stats["image_results_dropped"]) == (5, 10)
    assert stats["image_evidence_claims"] == 3 and stats["image_result_claims"] == 3
    subsets = stats["by"]["subsets"]
    assert subsets["with image"]["claims"] == 2 and subsets["text only"]["claims"] == 1
    assert subsets["with image"]["image_evidence_claims"] == 2
    said = cli(db_path, "search-stats", "s", "--by", "modality")
    assert said.exit_code == 0, said.exception
    shown = " ".join(said.output.split())
    assert "3 image searches (1.00 per claim)" in shown and "image evidence for 3 claims" in shown
    metrics = json.loads(cli(db_path, "metrics", "s", "--by", "modality", "--json", "--resamples", "0").output)
    search = metrics["runs"][0]["search"]
    assert search["image_searches_per_claim"] == 1.0 and search["image_evidence_claims"] == 3
    assert search["by"]["subsets"]["text only"]["image_searches_per_claim"] == 1.0
    report = cli(db_path, "report", "s", "--by", "modality", "--resamples", "0", "--format", "md")
    assert report.exit_code == 0, report.output
    assert "| Image searches per claim | Image-evidence claims |" in report.output
    assert "Searching by modality, s:" in report.output
    bad = cli(db_path, "search-stats", "s", "--by", "colour")
    assert bad.exit_code == 1 and "colour" in bad.output


def test_trajectory_saves_the_images_the_model_was_shown(photos, db_path, tmp_path):
    with (
        ImageServer() as pictures,
        SearchServer("searxng", images=image_rows(pictures)) as search,
        LoopbackServer("openai", answer=look_at_first) as model,
    ):
        assert run_images(db_path, model, search, "--param", "vision=true", "--name", "v").exit_code == 0
    out = tmp_path / "seen"
    found = json.loads(cli(db_path, "trajectory", "v", "photos:p1", "--json", "--save-images", out).output)
    sha = hashlib.sha256(PHOTO).hexdigest()
    assert found["images"] == {sha: {"mime": "image/png", "bytes": len(PHOTO), "width": 40, "height": 30}}
    assert (out / f"{sha}.png").read_bytes() == PHOTO
    assert found["steps"][1]["results"][0]["sha256"] == sha
    assert found["steps"][0]["results"][0]["image_url"] == found["steps"][1]["results"][0]["image_url"]


async def test_the_trajectory_tab_draws_the_images_beside_their_query_and_source(photos, db_path):
    from textual.widgets import Static

    from tests.support.tui import make_app, open_claim, settle
    from workbench.tui.widgets.trajectory_view import TrajectoryView

    with (
        ImageServer() as pictures,
        SearchServer("searxng", images=image_rows(pictures)) as search,
        LoopbackServer("openai", answer=look_at_first) as model,
    ):
        assert run_images(db_path, model, search, "--param", "vision=true", "--name", "v").exit_code == 0
    claim = photos.claims.resolve("photos:p1")
    app = make_app(db_path)
    async with app.run_test(size=(120, 50)) as pilot:
        await settle(pilot, app)
        await open_claim(pilot, app, claim)
        await pilot.press("8")
        await settle(pilot, app)
        view = app.screen.query_one(TrajectoryView)
        pictures_drawn = list(view.query(".trajectory-picture"))
        captions = [str(w.content) for w in view.query(".trajectory-caption").results(Static)]
        texts = " ".join(str(w.content) for w in view.query(Static))
    assert len(pictures_drawn) == 1 and type(pictures_drawn[0]).__name__.endswith("Image")
    assert "found by images: ballot boxes river" in captions[0] and "Example News" in captions[0]
    assert "Flood drill [bold]crates[/] \\x1b[31m" in captions[0]  # literally, not as markup or a colour
    assert "PNG 40×30" in captions[0] and "view image 1" in texts


def test_a_killed_image_search_run_keeps_its_steps_and_images_and_resumes(store, db_path, tmp_path, monkeypatch):
    import signal

    from tests.support.processes import workbench_process

    monkeypatch.setenv("WORKBENCH_SEARCH_FETCH_PRIVATE", "true")
    path = tmp_path / "many.jsonl"
    path.write_text(
        "\n".join(
            json.dumps(
                {
                    "id": f"k{n}",
                    "claim": f"Photo {n} shows the Ost in flood.",
                    "label": "FALSE",
                    "task": "RD",
                    "domain": "weather",
                    "date": "2024-01-01",
                }
            )
            for n in range(12)
        )
        + "\n",
        encoding="utf-8",
    )
    run_import(store, ImportRequest(path, format="realfactbench", dataset="many"))

    def agent(body):
        turn = tool_turns(body)
        if turn == 0:
            claim = re.search(r"Photo (\d+) shows", json.dumps(body["messages"])).group(1)
            return ToolUse([("search_images", {"query": f"flood photo {claim}"})])
        return ToolUse([("view_image", {"image": 1})]) if turn == 1 else FINAL

    with (
        ImageServer() as pictures,
        SearchServer(
            "searxng",
            images=lambda q: [
                {
                    "url": f"https://news.example.org/{q.split()[-1]}",
                    "title": q,
                    "image_url": pictures.url(f"/on/{q.split()[-1]}.png"),
                }
            ],
        ) as search,
        LoopbackServer("openai", latency=0.1, answer=agent) as model,
    ):
        process = workbench_process(
            db_path,
            "run",
            "--dataset",
            "many",
            "--model",
            "openai-compatible:eye",
            "--base-url",
            model.url,
            "--search",
            "searxng",
            "--search-url",
            search.url,
            "--image-search",
            "--param",
            "vision=true",
            "--concurrency",
            "2",
            "--name",
            "k",
        )
        try:
            assert model.wait_served(14)
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait()
        with opened_store(db_path) as opened:
            run = opened.runs.get("k")
            before = {c: opened.search.trajectory(run.id, c) for c in opened.claims.ids("dataset:many")}
            answered = len(opened.runs.predictions(run.id))
        assert any(before.values()) and answered < 12
        again = cli(db_path, "run", "--resume", "k")
        assert again.exit_code == 0, again.output
    with opened_store(db_path) as opened:
        after = {c: opened.search.trajectory(run.id, c) for c in opened.claims.ids("dataset:many")}
        assert len(opened.runs.predictions(run.id)) == 12
        for claim, steps in after.items():
            assert steps[: len(before[claim])] == before[claim]  # what was stored stays as it was
            assert [(s.kind, s.tool) for s in steps] == [
                ("search", "search_images"),
                ("read", "view_image"),
                ("answer", None),
            ]
            assert opened.claims.image_data(steps[1].results[0].sha256) == PHOTO


def test_a_search_run_with_the_image_setting_sends_the_claims_own_picture(photos, db_path):
    def once(body):
        return ToolUse([("search", {"query": "ballots"})]) if tool_turns(body) == 0 else FINAL

    with LoopbackServer("openai", answer=once) as model:
        result = cli(
            db_path,
            "run",
            "--dataset",
            "photos",
            "--where",
            "ext:p2",
            "--model",
            "openai-compatible:eye",
            "--base-url",
            model.url,
            "--search",
            "fts",
            "--setting",
            "claim+image",
        )
        assert result.exit_code == 0, result.output
        first, second = [a.body for a in model.answer_arrivals()[-2:]]
    expected = photos.claims.get(photos.claims.resolve("photos:p2")).images[0].sha256
    assert image_hashes(first) == [expected] and image_hashes(second) == [expected]


@pytest.mark.parametrize(
    "faults, expect",
    [
        (["500", "500", "500"], "The image search failed: searxng answered HTTP 500"),
        (["403"], "The image search failed: searxng refused the search: HTTP 403"),
        (["malformed"], "The image search failed: searxng answered with something that is not JSON"),
        (["429"], 'Image results for "ballot boxes river"'),  # tried again
    ],
)
def test_a_failing_image_search_is_told_to_the_model(photos, db_path, faults, expect):
    with (
        ImageServer() as pictures,
        SearchServer("searxng", images=image_rows(pictures)) as search,
        LoopbackServer("openai", answer=look_at_first) as model,
    ):
        search.faults.extend(faults)
        assert run_images(db_path, model, search, "--param", "vision=true").exit_code == 0
        reply = tool_replies(model.answer_arrivals()[1].body)[0]
    assert reply.startswith(expect)


def test_an_image_whose_address_leads_onto_a_fact_checker_is_not_shown(photos, db_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_SEARCH_BLOCKED_DOMAINS", '["localhost"]')
    with (
        ImageServer() as pictures,
        SearchServer("searxng", images=broken_rows(pictures, "/elsewhere.png")) as search,
        LoopbackServer("openai", answer=look_at_first) as model,
    ):
        assert run_images(db_path, model, search, "--param", "vision=true", "--name", "r").exit_code == 0
        reply = tool_replies(model.answer_arrivals()[2].body)[-1]
        assert not image_urls(model.answer_arrivals()[2].body)
    assert reply == "Image 1 cannot be shown: its address leads to a fact-checking site."
    with opened_store(db_path) as store:
        steps = store.search.trajectory(store.runs.get("r").id, store.claims.resolve("photos:p1"))
    assert steps[1].results[0].dropped == "a fact-checking site (where its address led)"
    assert steps[1].results[0].sha256 is None


def test_the_serper_key_can_come_from_the_config(photos, db_path, tmp_path, monkeypatch):
    config = tmp_path / "config.toml"
    config.write_text(f'[keys]\nserper = "{SERPER_KEY}"\n', encoding="utf-8")
    monkeypatch.setenv("WORKBENCH_CONFIG", str(config))

    def once(body):
        return ToolUse([("search", {"query": "ballots"})]) if tool_turns(body) == 0 else FINAL

    with (
        SearchServer("serper", results=serper_rows, key=SERPER_KEY) as search,
        LoopbackServer("openai", answer=once) as model,
    ):
        result = cli(
            db_path,
            "run",
            "--dataset",
            "photos",
            "--where",
            "ext:p1",
            "--model",
            "openai-compatible:eye",
            "--base-url",
            model.url,
            "--search",
            "serper",
            "--search-url",
            search.url,
        )
        assert result.exit_code == 0, result.output
        assert search.headers[0]["x-api-key"] == SERPER_KEY
        assert "Old story" in tool_replies(model.answer_arrivals()[1].body)[0]
    assert SERPER_KEY.encode() not in db_path.read_bytes() and SERPER_KEY not in result.output
