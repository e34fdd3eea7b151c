"""Throughput of the run engine, each figure a ratio against a baseline in this process.

Run: PYTHONPATH=. python bench/bench_runner.py [--part abc]  (e.g. --part b: only (b))

(a) Engine overhead with the local GGUF (SmolLM2): items/s of execute_run against a bare
    llama-cpp-python loop over the same rendered prompts (same max_tokens, same seed).
    Target >= 0.95.
(b) An API backend against a loopback Chat Completions server with a fixed 200 ms
    latency at concurrency 32: items/s against the ideal (32 / 0.2 s = 160/s), and
    against a bare AsyncOpenAI loop with the same concurrency. Target >= 0.9 of ideal.
(c) A re-run of 1,000 cached items: seconds (target < 2 s), and the ratio to the same
    1,000 items answered by a zero-latency server.
(d) A judge run (explanation quality) against the same kind of loopback server, 200 ms,
    concurrency 32: judgments/s against the ideal and a bare AsyncOpenAI loop. Target >= 0.9.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import openai  # noqa: E402

from store import Store  # noqa: E402
from tests.loopback_servers import LoopbackServer  # noqa: E402
from tests.run_fixtures import many_claims, write_mini  # noqa: E402
from workbench.backends import CompletionRequest  # noqa: E402
from workbench.backends.llama import LlamaBackend, completion_arguments, default_gguf_path  # noqa: E402
from workbench.importers import import_file  # noqa: E402
from workbench.prompting import render  # noqa: E402
from workbench.runs.engine import RunRequest, execute_run, prepare_run  # noqa: E402

KEY = "sk-bench-not-a-real-key"


def fresh_store(folder: Path, count: int) -> tuple[Store, Path]:
    db_path = folder / f"bench-{count}-{time.monotonic_ns()}.db"
    store = Store.open(db_path)
    import_file(store, write_mini(folder, many_claims(count), name="bench"), "jsonl")
    return store, db_path


def timed_run(
    store: Store, db_path: Path, request: RunRequest, model_seconds: list | None = None, cpu: list | None = None
) -> tuple[float, int]:
    prepared = prepare_run(store, request)
    started, cpu_started = time.perf_counter(), time.process_time()
    progress = asyncio.run(execute_run(db_path, prepared))
    seconds = time.perf_counter() - started
    if model_seconds is not None:
        model_seconds.append(progress.latency_s)  # time spent inside the model calls
    if cpu is not None:
        cpu.append((time.process_time() - cpu_started) / max(progress.done, 1))
    return seconds, progress.done


def bench_local_model(folder: Path, items: int = 12, max_tokens: int = 16) -> None:
    store, db_path = fresh_store(folder, items)
    request = RunRequest(dataset="bench", params={"max_tokens": max_tokens, "seed": 3}, use_cache=False)
    prepared = prepare_run(store, request)
    # The very model instance the engine uses (loaded once per process).
    backend_model, _lock = LlamaBackend(default_gguf_path(), prepared.params).load()
    requests = [
        CompletionRequest(r.messages, max_tokens, 0.0, 3, r.json_schema)
        for r in (
            render(store.claims.get(i), prepared.template, prepared.setting, prepared.json_answer)
            for i in store.claims.ids("dataset:bench")
        )
    ]

    def bare_loop() -> None:
        for r in requests:
            backend_model.create_chat_completion(**completion_arguments(r))

    backend_model.create_chat_completion(**completion_arguments(requests[0]))  # warm-up
    for round_ in (1, 2):
        # In a worker thread like the engine's: here llama.cpp runs markedly slower when
        # called from the main thread, which would flatter the engine.
        started = time.perf_counter()
        worker = threading.Thread(target=bare_loop)
        worker.start()
        worker.join()
        bare = items / (time.perf_counter() - started)
        inside = []
        seconds, done = timed_run(store, db_path, RunRequest(**{**request.__dict__, "name": f"local-{round_}"}), inside)
        engine = done / seconds
        # The machine is shared, so model speed drifts between the two loops; the engine's
        # own cost (wall time outside the model calls) is the steadier figure.
        outside_ms = (seconds - inside[0]) / done * 1000
        print(
            f"(a) local GGUF round {round_}: bare loop {bare:.2f} items/s, engine {engine:.2f} items/s,"
            f" ratio {engine / bare:.3f} (target >= 0.95); engine time outside the model"
            f" {outside_ms:.1f} ms per item = {1 - inside[0] / seconds:.1%} of the run"
        )


async def bare_sdk(url: str, requests: int, concurrency: int, cpu: list | None = None) -> float:
    # The SDK with the same (aiohttp) transport the engine uses, calling it the plain way.
    client = openai.AsyncOpenAI(
        api_key=KEY, base_url=url, max_retries=0, timeout=30, http_client=openai.DefaultAioHttpClient()
    )
    gate = asyncio.Semaphore(concurrency)

    async def one(n: int) -> None:
        async with gate:
            await client.chat.completions.create(
                model="bench", max_tokens=64, messages=[{"role": "user", "content": f"claim {n}"}]
            )

    started, cpu_started = time.perf_counter(), time.process_time()
    await asyncio.gather(*(one(n) for n in range(requests)))
    seconds = time.perf_counter() - started
    if cpu is not None:
        cpu.append((time.process_time() - cpu_started) / requests)
    await client.close()
    return requests / seconds


def judge_answer(body: dict) -> str:
    return '{"score": 7, "justification": "Right verdict; part of the evidence."}'


def serve(latency: float, connection, answer=None) -> None:
    """A loopback server in its own process, as a real server would be (no shared GIL)."""
    with LoopbackServer("openai", latency=latency, **({"answer": answer} if answer else {})) as server:
        connection.send(server.url)
        connection.recv()  # until the benchmark says stop


def bench_api(folder: Path, items: int = 1600, concurrency: int = 32, latency: float = 0.2) -> None:
    # 50 waves of 32: long enough that throughput, not the first connections, is measured.
    store, db_path = fresh_store(folder, items)
    ideal = concurrency / latency
    ours, theirs = multiprocessing.Pipe()
    server = multiprocessing.Process(target=serve, args=(latency, theirs), daemon=True)
    server.start()
    url = ours.recv()
    bare_cpu: list[float] = []
    engine_cpu: list[float] = []
    try:
        bare = asyncio.run(bare_sdk(url, items, concurrency, bare_cpu))
        request = RunRequest(
            model="openai-compatible:bench", base_url=url, dataset="bench", concurrency=concurrency, use_cache=False
        )
        seconds, done = timed_run(store, db_path, request, cpu=engine_cpu)
    finally:
        ours.send("stop")
        server.join(10)
    engine = done / seconds
    # The client's CPU per item is the steadier figure on a shared machine: the wall-clock
    # ratios move with whatever else runs on the cores.
    print(
        f"(b) API, {latency * 1000:.0f} ms latency, concurrency {concurrency}, {items} items: engine"
        f" {engine:.1f} items/s; ideal {ideal:.0f}/s -> ratio {engine / ideal:.3f} (target >= 0.9);"
        f" bare AsyncOpenAI loop {bare:.1f}/s -> ratio {engine / bare:.3f}; client CPU per item: engine"
        f" {engine_cpu[0] * 1000:.2f} ms, bare loop {bare_cpu[0] * 1000:.2f} ms"
    )


def bench_judge(folder: Path, items: int = 1600, concurrency: int = 32, latency: float = 0.2) -> None:
    from store import Prediction, Run
    from workbench.judging.runs import JudgeRequest, prepare_judge_run

    store, db_path = fresh_store(folder, items)
    ids = store.claims.ids("dataset:bench")
    target = store.runs.create(Run(name="answers", model="m", dataset_id=1, status="finished"), ids)
    with store.transaction():
        for claim_id in ids:
            store.runs.record(
                Prediction(
                    run_id=target.id,
                    claim_id=claim_id,
                    status="ok",
                    verdict="Supported",
                    explanation="The bridge register lists it with that length.",
                )
            )
    ideal = concurrency / latency
    ours, theirs = multiprocessing.Pipe()
    server = multiprocessing.Process(target=serve, args=(latency, theirs, judge_answer), daemon=True)
    server.start()
    url = ours.recv()
    try:
        bare = asyncio.run(bare_sdk(url, items, concurrency))
        prepared = prepare_judge_run(
            store, JudgeRequest("answers", "openai-compatible:judge", url, concurrency=concurrency, use_cache=False)
        )
        started = time.perf_counter()
        progress = asyncio.run(execute_run(db_path, prepared))
        seconds = time.perf_counter() - started
    finally:
        ours.send("stop")
        server.join(10)
    engine = progress.done / seconds
    print(
        f"(d) judge run, {latency * 1000:.0f} ms latency, concurrency {concurrency}, {items} judgments: engine"
        f" {engine:.1f}/s; ideal {ideal:.0f}/s -> ratio {engine / ideal:.3f} (target >= 0.9);"
        f" bare AsyncOpenAI loop {bare:.1f}/s -> ratio {engine / bare:.3f}"
    )


def bench_cache(folder: Path, items: int = 1000) -> None:
    store, db_path = fresh_store(folder, items)
    with LoopbackServer("openai") as server:
        request = RunRequest(model="openai-compatible:bench", base_url=server.url, dataset="bench", concurrency=32)
        uncached, _ = timed_run(store, db_path, request)
        hits = len(server.requests)
        cached, done = timed_run(store, db_path, request)
        assert len(server.requests) == hits and done == items, "the re-run was not answered from the cache"
    print(
        f"(c) re-run of {items} cached items: {cached:.2f} s (target < 2 s); the first run against a"
        f" zero-latency server took {uncached:.2f} s -> ratio {cached / uncached:.2f}"
    )


def main() -> None:
    os.environ.setdefault("WORKBENCH_CONFIG", "/nonexistent/workbench-bench.toml")
    # `--part b` (or a, c, or several: `--part bc`) runs only those parts.
    parts = sys.argv[sys.argv.index("--part") + 1] if "--part" in sys.argv else "abcd"
    with tempfile.TemporaryDirectory() as folder:
        if "c" in parts:
            bench_cache(Path(folder))
        if "b" in parts:
            bench_api(Path(folder))
        if "d" in parts:
            bench_judge(Path(folder))
        if "a" in parts:
            bench_local_model(Path(folder))


if __name__ == "__main__":
    main()
