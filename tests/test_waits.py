"""Item 2 of issue 20: what a user waits for says so at once. A misspelled name and a missing
key are answered before any heavy import (the SDKs, the run engine, nltk take seconds on a
loaded machine); slow work shows a status line or a progress bar before it starts."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

SLOW_TO_IMPORT = (
    "openai",
    "anthropic",
    "httpx",
    "llama_cpp",
    "nltk",
    "scipy",
    "torch",
    "workbench.runs.batch",
    "workbench.runs.engine",
)

_WITH_MODULES = """\
import json, sys
from workbench.cli import main
try:
    main(sys.argv[1:], prog_name="workbench")
except SystemExit as stop:
    code = stop.code
print("MODULES " + json.dumps(sorted(sys.modules)), file=sys.stderr)
sys.exit(code)
"""


def cli_with_modules(*args: str, env: dict | None = None) -> tuple[int, str, set[str]]:
    """Run the CLI in a fresh process: (exit status, its output, the modules it had loaded)."""
    done = subprocess.run(
        [sys.executable, "-c", _WITH_MODULES, *args], capture_output=True, text=True, cwd=REPO, env=env, timeout=120
    )
    lines = done.stderr.splitlines()
    modules = next(json.loads(line[8:]) for line in lines if line.startswith("MODULES "))
    output = done.stdout + "\n".join(line for line in lines if not line.startswith("MODULES "))
    return done.returncode, output, set(modules)


def slow_ones(modules: set[str]) -> list[str]:
    return sorted(name for name in SLOW_TO_IMPORT if name in modules)


@pytest.mark.parametrize("command", ["collect", "cancel", "forget"])
def test_a_misspelled_run_in_batch_commands_is_answered_before_any_heavy_import(demo_store, db_path, command):
    status, output, modules = cli_with_modules("--db", str(db_path), "batch", command, "no-such-run")
    assert status == 1 and "no run 'no-such-run'" in output
    assert slow_ones(modules) == []


@pytest.mark.parametrize(
    "command",
    [
        ["run", "--dataset", "no-such-set"],
        ["contamination", "run", "--model", "gguf:default", "--dataset", "no-such-set"],
        ["contamination", "summary", "--dataset", "no-such-set"],
    ],
)
def test_a_misspelled_dataset_is_answered_before_a_model_loads(demo_store, db_path, command):
    status, output, modules = cli_with_modules("--db", str(db_path), *command)
    assert status == 1 and "no dataset 'no-such-set'; datasets: demo, demo-averitec, demo-ja, demo-realfact" in output
    assert [m for m in slow_ones(modules) if not m.startswith("workbench.")] == []


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_missing_key_is_said_before_the_providers_sdk_is_imported(demo_store, db_path, provider):
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
    status, output, modules = cli_with_modules(
        "--db", str(db_path), "run", "--dataset", "demo", "--model", f"{provider}:some-model", "--limit", "1", env=env
    )
    assert status == 1 and f"no API key for {provider}" in output
    assert provider not in modules and "httpx" not in modules


TOPICS = ["bridge", "vaccine", "harbour", "election", "marathon", "battery", "river", "library"]


def averitec_files(folder, count: int = 160):
    """A gold file and a prediction file in AVeriTeC's shape (made up, varied words)."""
    gold, predictions = [], []
    for n in range(count):
        topic, other = TOPICS[n % len(TOPICS)], TOPICS[(n * 3 + 1) % len(TOPICS)]
        questions = [
            {
                "question": f"When was the {topic} number {n} opened to the public?",
                "answers": [
                    {
                        "answer": f"The {topic} opened in {1900 + n} after {n % 7} years of work.",
                        "answer_type": "Extractive",
                    }
                ],
            },
            {
                "question": f"Who paid for the {other} near the {topic}?",
                "answers": [{"answer": f"The city council paid {n * 1000} pounds.", "answer_type": "Abstractive"}],
            },
        ]
        gold.append({"claim": f"The {topic} {n} opened in {1900 + n}.", "label": "Refuted", "questions": questions})
        predictions.append(
            {
                "claim_id": n,
                "claim": gold[-1]["claim"],
                "pred_label": "Refuted" if n % 2 else "Supported",
                "evidence": [
                    {"question": f"When did the {topic} {n} open?", "answer": f"It opened to walkers in {1901 + n}."}
                ],
            }
        )
    (folder / "gold.json").write_text(json.dumps(gold))
    (folder / "predictions.json").write_text(json.dumps(predictions))
    return folder / "gold.json", folder / "predictions.json"


def test_score_evidence_shows_its_progress_before_the_scorer_loads_and_per_claim(tmp_path):
    from tests.pty_terminal import marker, run_in_terminal

    gold, predictions = averitec_files(tmp_path)
    status, seen = run_in_terminal(
        ["score-evidence", "--gold", str(gold), "--predictions", str(predictions)], watch=("numpy", "nltk")
    )
    assert status == 0, seen[-2000:]
    before_numpy = seen[: seen.index(marker("numpy"))]
    assert b"loading the scorer" in before_numpy  # on screen before the scorer's first heavy import
    assert b"loading WordNet" in seen[: seen.index(marker("nltk"))]  # said before nltk starts loading it
    counts = {int(done) for done in re.findall(rb"scoring claims[^\r\n]*?(\d+)/160", seen)}
    assert len(counts) >= 4 and max(counts) == 160  # it moves claim by claim, up to all of them
    assert b"AVeriTeC scores" in seen


def test_nlp_data_says_it_is_checking_before_nltk_loads():
    from tests.pty_terminal import marker, run_in_terminal

    status, seen = run_in_terminal(["nlp-data"], watch=("nltk",))
    assert status == 0, seen[-2000:]
    assert b"checking WordNet 3.0 and punkt_tab" in seen[: seen.index(marker("nltk"))]
    assert b"nothing to do" in seen


def test_without_a_terminal_the_scores_come_alone(tmp_path):
    """Piped or redirected, no bar is drawn: stdout holds the JSON and nothing else."""
    gold, predictions = averitec_files(tmp_path, count=12)
    done = subprocess.run(
        [
            str(Path(sys.executable).with_name("workbench")),
            "score-evidence",
            "--gold",
            str(gold),
            "--predictions",
            str(predictions),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["n_claims"] == 12 and done.stderr == ""


def test_run_says_it_is_checking_the_setup_before_llama_cpp_loads(demo_store, db_path):
    from tests.pty_terminal import marker, run_in_terminal

    demo_store.close()
    status, seen = run_in_terminal(
        ["--db", str(db_path), "run", "--dataset", "demo", "--limit", "1", "--param", "max_tokens=8"],
        watch=("llama_cpp",),
    )
    assert b"checking the setup (gguf:default)" in seen[: seen.index(marker("llama_cpp"))], seen[-2000:]
    assert status in (0, 1) and b"finished:" in seen
