"""Ev2R judge throughput (issue 35, item 8): both Ev2R judge runs of a verdict run (questions
only, question-answer pairs) answered together against a loopback judge with a fixed 200 ms
latency, as a ratio to the ideal rate (concurrency / latency), at the backend's default
concurrency and at 32 (the figure the EQ judge run reports in BENCHMARKS.md).

Run: PYTHONPATH=. python bench/bench_ev2r.py [--claims N]
Target: >= 0.95 of the ideal. A bare AsyncOpenAI loop making the same number of calls in the
same process is the baseline that tells the engine's cost from a busy machine's.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.judge_throughput import report_rate, run_rounds  # noqa: E402
from store import Prediction, Run, Store  # noqa: E402
from workbench.contamination.ev2r_runs import Ev2rRequest, prepare_ev2r_runs  # noqa: E402
from workbench.importers import import_file  # noqa: E402

REPLY = '{"reference_facts": 4, "reference_supported": 3, "predicted_facts": 3, "predicted_supported": 2}'
"""Every judgment's counts."""


def averitec_store(folder: Path, claims: int) -> tuple[Store, Path]:
    """An AVeriTeC-shaped dataset and a verdict run whose answers carry three pairs each."""
    records = [
        {
            "claim": f"Bridge number {n} is {100 + n} metres long.",
            "label": "Refuted",
            "questions": [
                {
                    "question": f"How long is bridge {n}?",
                    "answers": [{"answer": f"{90 + n} m", "answer_type": "Abstractive"}],
                },
                {"question": "Who built it?", "answers": [{"answer": "The county", "answer_type": "Extractive"}]},
            ],
        }
        for n in range(claims)
    ]
    source = folder / f"ev2r-{claims}.json"
    source.write_text(json.dumps(records))
    db_path = folder / f"ev2r-{claims}-{time.monotonic_ns()}.db"
    store = Store.open(db_path)
    import_file(store, source, "averitec")
    ids = store.claims.ids("")
    run = store.runs.create(Run(name="system", model="imported:system", dataset_id=1, status="finished"), ids)
    evidence = [{"question": f"Question {k}?", "answer": f"Answer {k}.", "url": ""} for k in range(3)]
    with store.transaction():
        for claim_id in ids:
            store.runs.record(
                Prediction(
                    run_id=run.id, claim_id=claim_id, status="ok", verdict="Refuted", parsed={"evidence": evidence}
                )
            )
    return store, db_path


def bench(folder: Path, claims: int, concurrency: int | None, url: str) -> None:
    store, db_path = averitec_store(folder, claims)
    prepared = prepare_ev2r_runs(
        store, Ev2rRequest("system", "openai-compatible:judge", url, concurrency=concurrency, use_cache=False)
    )
    report_rate("ev2r", 2, db_path, prepared, claims, concurrency, url)
    store.close()


def main() -> None:
    run_rounds(bench, REPLY)


if __name__ == "__main__":
    main()
