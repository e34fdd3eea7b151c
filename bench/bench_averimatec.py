"""AVerImaTeC judge throughput: the three judge runs of an imported AVerImaTeC answer run
(questions, image-text evidence with its images sent as data URLs, justification) answered
together against a loopback judge with a fixed 200 ms latency, as a ratio to the ideal rate
(concurrency / latency), at the backend's default concurrency and at 32.

Run: PYTHONPATH=. python bench/bench_averimatec.py [--claims N]
Target: >= 0.95 of the ideal, as for Ev2R. A bare AsyncOpenAI loop making the same number of
calls in the same process is the baseline that tells the engine's cost from a busy machine's.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.judge_throughput import report_rate, run_rounds  # noqa: E402
from store import Store  # noqa: E402
from tests.support.averimatec import draw, gold_record, prediction_record  # noqa: E402
from workbench.contamination.averimatec_runs import AverimatecRequest, prepare_averimatec_runs  # noqa: E402
from workbench.importers.averimatec import import_averimatec  # noqa: E402

REPLY = '{"reference_facts": 2, "reference_supported": 1, "predicted_facts": 2, "predicted_supported": 1}'
"""Every judgment's counts."""


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
    report_rate("averimatec", 3, db_path, prepared, claims, concurrency, url)
    store.close()


def main() -> None:
    run_rounds(bench, REPLY)


if __name__ == "__main__":
    main()
