"""Image search in agent runs (issue 25), each figure beside a baseline measured in the same run.

(a) Agent-loop overhead with image search: a vision model searches images, looks at the
    first one and answers (three model turns, one image search, one image fetched, stored
    and sent as an image part per claim), against loopback servers in their own processes:
    model latency 200 ms, search latency 50 ms, image fetch 30 ms, concurrency 16. Claims/s
    against the ideal (16 claims per 3 x 200 + 50 + 30 ms) and against a bare asyncio loop
    making the same calls (AsyncOpenAI + httpx) at the same concurrency.   [target >= 0.9]

    .venv/bin/python bench/bench_image_search.py [--claims 320]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import multiprocessing
import os
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import openai  # noqa: E402

from store import Store  # noqa: E402
from tests.loopback_images import ImageServer  # noqa: E402
from tests.loopback_search import SearchServer  # noqa: E402
from tests.loopback_servers import LoopbackServer, ToolUse  # noqa: E402
from tests.run_fixtures import many_claims, write_mini  # noqa: E402
from workbench.importers import import_file  # noqa: E402
from workbench.runs.engine import RunRequest, execute_run, prepare_run  # noqa: E402

FINAL = '{"verdict": "Refuted", "explanation": "The picture is of another bridge."}'
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": name,
            "parameters": {"type": "object", "properties": {key: {"type": kind}}},
        },
    }
    for name, key, kind in (("search_images", "query", "string"), ("view_image", "image", "integer"))
]


def agent_answer(body: dict):
    turn = sum(1 for m in body["messages"] if m.get("role") == "tool")
    if turn == 0:
        number = re.search(r"Bridge number (\d+)", json.dumps(body["messages"])).group(1)
        return ToolUse([("search_images", {"query": f"bridge photo {number}"})])
    return ToolUse([("view_image", {"image": 1})]) if turn == 1 else FINAL


def serve_model(latency: float, connection) -> None:
    with LoopbackServer("openai", latency=latency, answer=agent_answer) as server:
        connection.send(server.url)
        connection.recv()


def serve_images(latency: float, connection) -> None:
    with ImageServer(latency=latency) as server:
        connection.send(server.url("/"))
        connection.recv()


def serve_search(args, connection) -> None:
    latency, images_url = args

    def rows(query: str) -> list[dict]:  # one picture per claim: nothing is fetched twice
        return [
            {
                "url": f"https://example.org/{query.split()[-1]}",
                "title": f"Bridge {query.split()[-1]}",
                "image_url": f"{images_url}on/{query.split()[-1]}.png",
                "source": "Example",
            }
        ]

    with SearchServer("searxng", images=rows, latency=latency) as server:
        connection.send(server.url)
        connection.recv()


def started(target, argument):
    ours, theirs = multiprocessing.Pipe()
    process = multiprocessing.Process(target=target, args=(argument, theirs), daemon=True)
    process.start()
    return process, ours, ours.recv()


async def bare_loop(model_url: str, search_url: str, claims: int, concurrency: int) -> float:
    """The same calls without the workbench: turn, image search, turn, image fetch, turn."""
    client = openai.AsyncOpenAI(
        api_key="sk-bench", base_url=model_url, max_retries=0, timeout=30, http_client=openai.DefaultAioHttpClient()
    )
    http = httpx.AsyncClient(timeout=30)
    gate = asyncio.Semaphore(concurrency)

    async def one(n: int) -> None:
        async with gate:
            messages = [{"role": "user", "content": f"Bridge number {n} over the Ashby is {n % 97} metres long."}]
            first = await client.chat.completions.create(model="bench", messages=messages, tools=TOOLS, max_tokens=64)
            call = first.choices[0].message.tool_calls[0]
            query = json.loads(call.function.arguments)["query"]
            found = (
                await http.get(search_url + "/search", params={"q": query, "format": "json", "categories": "images"})
            ).json()
            messages += [
                {"role": "assistant", "content": None, "tool_calls": [call.model_dump()]},
                {"role": "tool", "tool_call_id": call.id, "content": json.dumps(found)[:500]},
            ]
            second = await client.chat.completions.create(model="bench", messages=messages, tools=TOOLS, max_tokens=64)
            call = second.choices[0].message.tool_calls[0]
            picture = (await http.get(found["results"][0]["img_src"])).content
            url = "data:image/png;base64," + base64.b64encode(picture).decode()
            messages += [
                {"role": "assistant", "content": None, "tool_calls": [call.model_dump()]},
                {"role": "tool", "tool_call_id": call.id, "content": "shown below"},
                {"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]},
            ]
            await client.chat.completions.create(model="bench", messages=messages, tools=TOOLS, max_tokens=64)

    begun = time.perf_counter()
    await asyncio.gather(*(one(n) for n in range(claims)))
    seconds = time.perf_counter() - begun
    await client.close()
    await http.aclose()
    return claims / seconds


def engine_run(model_url: str, search_url: str, claims: int, concurrency: int) -> tuple[float, int]:
    """Claims/s of the workbench's search run, and the images it stored."""
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "s.db"
        store = Store.open(db)
        import_file(store, write_mini(Path(folder), many_claims(claims), name="bench"), "jsonl")
        prepared = prepare_run(
            store,
            RunRequest(
                model="openai-compatible:bench",
                base_url=model_url,
                dataset="bench",
                concurrency=concurrency,
                use_cache=False,
                params={
                    "search": "searxng",
                    "search_url": search_url,
                    "max_tokens": 64,
                    "image_search": True,
                    "vision": True,
                },
            ),
        )
        begun = time.perf_counter()
        progress = asyncio.run(execute_run(db, prepared))
        speed = progress.done / (time.perf_counter() - begun)
        stored = store.db.execute("SELECT count(*) FROM image_fetches WHERE sha256 IS NOT NULL").fetchone()[0]
        store.close()
    return speed, stored


def bench_loop(
    claims: int,
    concurrency: int = 16,
    model_latency: float = 0.2,
    search_latency: float = 0.05,
    fetch_latency: float = 0.03,
) -> None:
    model, model_pipe, model_url = started(serve_model, model_latency)
    images, images_pipe, images_url = started(serve_images, fetch_latency)
    search, search_pipe, search_url = started(serve_search, (search_latency, images_url))
    try:
        bare = asyncio.run(bare_loop(model_url, search_url, claims, concurrency))
        engine, stored = engine_run(model_url, search_url, claims, concurrency)
    finally:
        for pipe, process in ((model_pipe, model), (search_pipe, search), (images_pipe, images)):
            pipe.send("stop")
            process.join(10)
    ideal = concurrency / (3 * model_latency + search_latency + fetch_latency)
    print(
        f"(a) image-search run, {claims} claims, concurrency {concurrency}, model {model_latency * 1000:.0f} ms,"
        f" search {search_latency * 1000:.0f} ms, image fetch {fetch_latency * 1000:.0f} ms ({stored} images"
        f" fetched and stored): engine {engine:.1f} claims/s; ideal {ideal:.1f}/s -> {engine / ideal:.3f} of it"
        f" (target >= 0.9); bare loop {bare:.1f}/s -> ratio {engine / bare:.3f}"
    )


def main() -> None:
    os.environ.setdefault("WORKBENCH_CONFIG", "/nonexistent/workbench-bench.toml")
    os.environ["WORKBENCH_SEARCH_FETCH_PRIVATE"] = "true"  # the image server is on 127.0.0.1
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=320)
    args = parser.parse_args()
    bench_loop(args.claims)


if __name__ == "__main__":
    main()
