"""Search runs (issue 14), each figure beside a baseline measured in the same run.

(a) Agent-loop overhead: a search run (search, then answer: two model turns and one search
    per claim) against loopback servers in their own processes, model latency 200 ms,
    search latency 50 ms, concurrency 16; claims/s against a bare asyncio loop making the
    same calls (AsyncOpenAI + httpx) at the same concurrency.            [target >= 0.9]
(b) The offline backend (fts) on the 1,000,000-claim database's evidence: p95 of one
    search (200 queries; the commonest words left out past 10,000 matching pages), beside
    the bare FTS5 statement with every word of the query.               [target p95 < 20 ms]

    .venv/bin/python bench/bench_search.py [--claims 320] [--part a|b]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import openai  # noqa: E402

from store import Store  # noqa: E402
from store.search import fts_query, query_words  # noqa: E402
from tests.loopback_search import SearchServer  # noqa: E402
from tests.loopback_servers import LoopbackServer, ToolUse  # noqa: E402
from tests.run_fixtures import many_claims, write_mini  # noqa: E402
from workbench.importers import import_file  # noqa: E402
from workbench.runs.engine import RunRequest, execute_run, prepare_run  # noqa: E402

FINAL = '{"verdict": "Refuted", "explanation": "The register says otherwise."}'


def agent_answer(body: dict):
    if any(m.get("role") == "tool" for m in body["messages"]):
        return FINAL
    return ToolUse([("search", {"query": body["messages"][-1]["content"][:40]})])


def rows(query: str) -> list[dict]:
    return [
        {"url": f"https://example.org/{n}", "title": f"Page {n}", "snippet": "A page about bridges."} for n in range(5)
    ]


def serve_model(latency: float, connection) -> None:
    with LoopbackServer("openai", latency=latency, answer=agent_answer) as server:
        connection.send(server.url)
        connection.recv()


def serve_search(latency: float, connection) -> None:
    with SearchServer("searxng", results=rows, latency=latency) as server:
        connection.send(server.url)
        connection.recv()


def started(target, latency):
    ours, theirs = multiprocessing.Pipe()
    process = multiprocessing.Process(target=target, args=(latency, theirs), daemon=True)
    process.start()
    return process, ours, ours.recv()


async def bare_loop(model_url: str, search_url: str, claims: int, concurrency: int) -> float:
    """The same calls without the workbench: turn one, a search, turn two, per claim."""
    client = openai.AsyncOpenAI(
        api_key="sk-bench", base_url=model_url, max_retries=0, timeout=30, http_client=openai.DefaultAioHttpClient()
    )
    search = httpx.AsyncClient(timeout=30)
    gate = asyncio.Semaphore(concurrency)
    tools = [
        {
            "type": "function",
            "function": {
                "name": "search",
                "description": "search",
                "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
            },
        }
    ]

    async def one(n: int) -> None:
        async with gate:
            messages = [{"role": "user", "content": f"claim {n}"}]
            first = await client.chat.completions.create(model="bench", messages=messages, tools=tools, max_tokens=64)
            call = first.choices[0].message.tool_calls[0]
            found = (await search.get(search_url + "/search", params={"q": "x", "format": "json"})).json()
            messages += [
                {"role": "assistant", "content": None, "tool_calls": [call.model_dump()]},
                {"role": "tool", "tool_call_id": call.id, "content": json.dumps(found)[:500]},
            ]
            await client.chat.completions.create(model="bench", messages=messages, max_tokens=64)

    begun = time.perf_counter()
    await asyncio.gather(*(one(n) for n in range(claims)))
    seconds = time.perf_counter() - begun
    await client.close()
    await search.aclose()
    return claims / seconds


def bench_loop(claims: int, concurrency: int = 16, model_latency: float = 0.2, search_latency: float = 0.05) -> None:
    model, model_pipe, model_url = started(serve_model, model_latency)
    search, search_pipe, search_url = started(serve_search, search_latency)
    try:
        bare = asyncio.run(bare_loop(model_url, search_url, claims, concurrency))
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
                    params={"search": "searxng", "search_url": search_url, "max_tokens": 64},
                ),
            )
            begun = time.perf_counter()
            progress = asyncio.run(execute_run(db, prepared))
            engine = progress.done / (time.perf_counter() - begun)
            store.close()
    finally:
        for pipe, process in ((model_pipe, model), (search_pipe, search)):
            pipe.send("stop")
            process.join(10)
    ideal = concurrency / (2 * model_latency + search_latency)
    print(
        f"(a) search run, {claims} claims, concurrency {concurrency}, model {model_latency * 1000:.0f} ms,"
        f" search {search_latency * 1000:.0f} ms: engine {engine:.1f} claims/s; bare loop {bare:.1f}/s -> ratio"
        f" {engine / bare:.3f} (target >= 0.9); ideal {ideal:.1f}/s -> {engine / ideal:.3f} of it"
    )


def bench_fts(queries: int = 200) -> None:
    from bench.make_big_db import ensure

    db = ensure(1_000_000)
    store = Store.open(db)
    rng = random.Random(3)
    texts = [store.claims.get(rng.randint(1, 1_000_000)).text for _ in range(queries)]
    ours, bare = [], []
    conn = sqlite3.connect(db)
    for text in texts:
        begun = time.perf_counter()
        store.search.full_text(text, 5)
        ours.append(time.perf_counter() - begun)
        begun = time.perf_counter()
        conn.execute(
            "SELECT rowid FROM evidence_fts WHERE evidence_fts MATCH ? ORDER BY bm25(evidence_fts) LIMIT 20",
            [fts_query(query_words(text))],
        ).fetchall()
        bare.append(time.perf_counter() - begun)

    def p95(values):
        return statistics.quantiles(values, n=20)[-1] * 1000

    print(
        f"(b) fts search on the 1M database's evidence, {queries} queries: p95 {p95(ours):.1f} ms, median"
        f" {statistics.median(ours) * 1000:.1f} ms (target p95 < 20 ms); the bare FTS5 statement with every word: p95"
        f" {p95(bare):.1f} ms"
    )


def main() -> None:
    os.environ.setdefault("WORKBENCH_CONFIG", "/nonexistent/workbench-bench.toml")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=320)
    parser.add_argument("--part", choices=["a", "b", "all"], default="all")
    args = parser.parse_args()
    if args.part in ("a", "all"):
        bench_loop(args.claims)
    if args.part in ("b", "all"):
        bench_fts()


if __name__ == "__main__":
    main()
