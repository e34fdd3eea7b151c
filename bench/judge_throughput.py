"""What bench_ev2r.py and bench_averimatec.py share: a loopback judge in its own process that
answers every request with the same counts after a fixed latency, the rate of the judge runs a
scoring command prepared beside the ideal and a bare AsyncOpenAI loop, and the two rounds (the
backend's default concurrency, then 32)."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_runner import bare_sdk  # noqa: E402
from tests.loopback_servers import LoopbackServer  # noqa: E402
from workbench.runs.engine import execute_runs  # noqa: E402

LATENCY = 0.2


def serve(latency: float, reply: str, connection) -> None:
    """The judge in its own process, as a real server would be (no shared GIL)."""
    with LoopbackServer("openai", latency=latency, answer=lambda body: reply) as server:
        connection.send(server.url)
        connection.recv()


def report_rate(task: str, parts: int, db_path: Path, prepared: list, claims: int, concurrency, url: str) -> None:
    """Answer the prepared judge runs and print their rate against the ideal and a bare loop."""
    width = max(p.concurrency for p in prepared)
    bare = asyncio.run(bare_sdk(url, parts * claims, width))  # the same calls without the workbench
    started = time.perf_counter()
    progress = asyncio.run(execute_runs(db_path, prepared))
    seconds = time.perf_counter() - started
    judged = sum(p.done for p in progress)
    ideal = width / LATENCY
    rate = judged / seconds
    said = "default" if concurrency is None else "asked"
    print(
        f"{task}: {claims} claims x {parts} parts = {judged} judgments, {LATENCY * 1000:.0f} ms latency, concurrency"
        f" {width} ({said}): {rate:.1f}/s; ideal {ideal:.0f}/s -> ratio {rate / ideal:.3f} (target >= 0.95);"
        f" bare AsyncOpenAI loop {bare:.1f}/s -> ratio {rate / bare:.3f}",
        flush=True,
    )


def run_rounds(bench: Callable[[Path, int, int | None, str], None], reply: str) -> None:
    """`bench(folder, claims, concurrency, url)` at the default concurrency, then 4x the claims at 32."""
    os.environ.setdefault("WORKBENCH_CONFIG", "/nonexistent/workbench-bench.toml")
    claims = int(sys.argv[sys.argv.index("--claims") + 1]) if "--claims" in sys.argv else 200
    ours, theirs = multiprocessing.Pipe()
    server = multiprocessing.Process(target=serve, args=(LATENCY, reply, theirs), daemon=True)
    server.start()
    url = ours.recv()
    try:
        with tempfile.TemporaryDirectory() as folder:
            bench(Path(folder), claims, None, url)
            bench(Path(folder), claims * 4, 32, url)
    finally:
        ours.send("stop")
        server.join(10)
