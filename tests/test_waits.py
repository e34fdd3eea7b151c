"""Item 2 of issue 20: what a user waits for says so at once. A misspelled name and a missing
key are answered before any heavy import (the SDKs, the run engine, nltk take seconds on a
loaded machine); slow work shows a status line or a progress bar before it starts."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import REPO

SLOW_TO_IMPORT = ("openai", "anthropic", "httpx", "llama_cpp", "nltk", "scipy", "torch", "workbench.runs.batch",
                  "workbench.runs.engine")

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
    done = subprocess.run([sys.executable, "-c", _WITH_MODULES, *args], capture_output=True, text=True,
                          cwd=REPO, env=env, timeout=120)
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


@pytest.mark.parametrize("command", [
    ["run", "--dataset", "no-such-set"],
    ["contamination", "run", "--model", "gguf:default", "--dataset", "no-such-set"],
    ["contamination", "summary", "--dataset", "no-such-set"],
])
def test_a_misspelled_dataset_is_answered_before_a_model_loads(demo_store, db_path, command):
    status, output, modules = cli_with_modules("--db", str(db_path), *command)
    assert status == 1 and "no dataset 'no-such-set'; datasets: demo, demo-averitec, demo-realfact" in output
    assert [m for m in slow_ones(modules) if not m.startswith("workbench.")] == []


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_missing_key_is_said_before_the_providers_sdk_is_imported(demo_store, db_path, provider):
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
    status, output, modules = cli_with_modules("--db", str(db_path), "run", "--dataset", "demo", "--model",
                                               f"{provider}:some-model", "--limit", "1", env=env)
    assert status == 1 and f"no API key for {provider}" in output
    assert provider not in modules and "httpx" not in modules
