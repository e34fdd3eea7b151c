"""AVerImaTeC judge throughput: the three judge runs of an imported AVerImaTeC answer run
(questions, image-text evidence with its images sent as data URLs, justification) answered
together against a loopback judge with a fixed 200 ms latency, as a ratio to the ideal rate
(concurrency / latency), at the backend's default concurrency and at 32.

Run: PYTHONPATH=. python bench/bench_averimatec.py [--claims N]
Target: >= 0.95 of the ideal, as for Ev2R. A bare AsyncOpenAI loop making the same number of
calls in the same process is the baseline that tells the engine's cost from a busy machine's.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_runner import bare_sdk  # noqa: E402
from store import Store  # noqa: E402
from tests.loopback_servers import LoopbackServer  # noqa: E402
from tests.support.averimatec import draw, gold_record, prediction_record  # noqa: E402
from workbench.contamination.averimatec_runs import AverimatecRequest, prepare_averimatec_runs  # noqa: E402
from workbench.importers.averimatec import import_averimatec  # noqa: E402
from workbench.runs.engine import execute_runs  # noqa: E402

LATENCY = 0.2


def counts_answer(body: dict) -> str:
    return '{"reference_facts": 2, "reference_supported": 1, "predicted_facts": 2, "predicted_supported": 1}'


def serve(latency: float, connection) -> None:
    """The judge in its own process, as a real server would be (no shared GIL)."""
    with LoopbackServer("openai", latency=latency, answer=counts_answer) as server:
        connection.send(server.url)
        connection.recv()


def averimatec_store(folder: Path, claims: int) -> tuple[Store, Path]:
    """AVerImaTeC gold claims and a system's answers (every one with evidence), imported."""
    data = folder / f"avm-{claims}-{time.monotonic_ns()}"
    data.mkdir()
    gold = [gold_record(n, data) for n in range(claims)]
    answers = [
        {**prediction_record(n, data), "evidence": [{"text": "[IMG_1]", "images": [draw(data, f"e{n}.png", n)]}]}
        for n in range(claims)
    ]
    (data / "gold.json").write_text(json.dumps(gold))
    (data / "answers.json").write_text(json.dumps(answers))
    db_path = data / "bench.db"
    store = Store.open(db_path)
    import_averimatec(store, data / "gold.json", "avm")
    import_averimatec(store, data / "answers.json", "avm", "system")
    return store, db_path


def bench(folder: Path, claims: int, concurrency: int | None, url: str) -> None:
    store, db_path = averimatec_store(folder, claims)
    request = AverimatecRequest("system", "openai-compatible:judge", url, concurrency=concurrency, use_cache=False)
    request.vision = "yes"
    prepared = prepare_averimatec_runs(store, request)
    width = max(p.concurrency for p in prepared)
    bare = asyncio.run(bare_sdk(url, 3 * claims, width))  # the same calls without the workbench
    started = time.perf_counter()
    progress = asyncio.run(execute_runs(db_path, prepared))
    seconds = time.perf_counter() - started
    judged = sum(p.done for p in progress)
    ideal = width / LATENCY
    rate = judged / seconds
    said = "default" if concurrency is None else "asked"
    print(
        f"averimatec: {claims} claims x 3 parts = {judged} judgments, {LATENCY * 1000:.0f} ms latency, concurrency"
        f" {width} ({said}): {rate:.1f}/s; ideal {ideal:.0f}/s -> ratio {rate / ideal:.3f} (target >= 0.95);"
        f" bare AsyncOpenAI loop {bare:.1f}/s -> ratio {rate / bare:.3f}"
    )
    store.close()


def main() -> None:
    os.environ.setdefault("WORKBENCH_CONFIG", "/nonexistent/workbench-bench.toml")
    claims = int(sys.argv[sys.argv.index("--claims") + 1]) if "--claims" in sys.argv else 200
    ours, theirs = multiprocessing.Pipe()
    server = multiprocessing.Process(target=serve, args=(LATENCY, theirs), daemon=True)
    server.start()
    url = ours.recv()
    try:
        with tempfile.TemporaryDirectory() as folder:
            bench(Path(folder), claims, None, url)
            bench(Path(folder), claims * 4, 32, url)
    finally:
        ours.send("stop")
        server.join(10)


if __name__ == "__main__":
    main()
