"""A reader that closes the pipe (`workbench claims | head -1`) ends every command quietly
with 141, as a shell ends any program SIGPIPE stops: one mechanism in the CLI's entry point
(and the console every command prints through), not a handler per command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from store import Store
from tests.support.contamination import make_scores
from workbench.cli import COMMANDS
from workbench.contamination.flagging import pick_group, write_flags

WORKBENCH = str(Path(sys.executable).with_name("workbench"))
DEMO_JS = Path(__file__).resolve().parents[1] / "workbench" / "demo_data" / "jsfactcheck.jsonl"

# Every command that prints, with arguments that make it print on the demo database.
PRINTING = {
    "claims": ["claims"],
    "show": ["show", "demo:js-001"],
    "show --json": ["show", "--json", "demo:js-001"],
    "runs": ["runs"],
    "runs --json": ["runs", "--json"],
    "show-run": ["show-run", "outside"],
    "datasets": ["datasets"],
    "predictions": ["predictions", "outside"],
    "profiles": ["profiles"],
    "prompts": ["prompts"],
    "prompt": ["prompt", "demo:js-001"],
    "filter-help": ["filter-help"],
    "import --dry-run": ["import", "--dry-run", str(DEMO_JS), "--dataset", "again"],
    "export": ["export", "--what", "claims"],
    "metrics": ["metrics", "outside"],
    "compare": ["compare", "outside", "outside-2"],
    "report": ["report", "outside"],
    "search-stats": ["search-stats", "outside"],
    "contamination show": ["contamination", "show", "demo:js-001"],
    "contamination summary": ["contamination", "summary"],
    "contamination sweep": ["contamination", "sweep", "--model", "gguf:A", "--metric", "meteor"],
    "triage categories": ["triage", "categories"],
    "triage agreement": ["triage", "agreement", "demo-checker"],
    "triage queue": ["triage", "queue", "demo-checker", "--all"],
    "curate": ["curate", "demo-claimreview"],
    "articles status": ["articles", "status", "--dataset", "demo-claimreview"],
    "cutoffs": ["cutoffs"],
    "ratings": ["ratings"],
    "models": ["models"],
    "--help": ["--help"],
}
# Commands that print nothing worth piping before they need a model, a server or a terminal.
NOT_PIPED = {
    "averimatec",
    "batch",
    "demo",
    "ev2r",
    "export-submission",
    "import",
    "import-averimatec",
    "import-knowledge",
    "import-predictions",
    "import-submission",
    "judge",
    "judge-agreement",
    "judge-consistency",
    "nlp-data",
    "reformulations",
    "run",
    "score-evidence",
    "serve",
    "trajectory",
    "tui",
    # They write a file and say so in one line; their formats' extras live in .venv-interchange.
    "export-croissant",
    "export-run",
    "import-run",
}


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("pipe")
    db = folder / "demo.db"
    subprocess.run([WORKBENCH, "--db", str(db), "demo", "--no-tui"], check=True, capture_output=True)
    answers = folder / "answers.jsonl"
    answers.write_text(
        "".join(json.dumps({"id": f"js-{n:03d}", "verdict": "Supported"}) + "\n" for n in range(1, 25)),
        encoding="utf-8",
    )
    for name in ("outside", "outside-2"):
        subprocess.run(
            [WORKBENCH, "--db", str(db), "import-predictions", str(answers), "--dataset", "demo", "--run", name],
            check=True,
            capture_output=True,
        )
    store = Store.open(db)  # contamination scores computed for real from constructed evidence
    make_scores(store, "gguf:A")
    write_flags(store, pick_group(store, "gguf:A", "meteor"), 0.25)
    store.close()
    for claim, label in (("demo:js-001", "--contaminated"), ("demo:js-003", "--clean")):
        subprocess.run(
            [WORKBENCH, "--db", str(db), "contamination", "mark", claim, label], check=True, capture_output=True
        )
    return db


def closed_pipe(db: Path, args: list[str]) -> tuple[int, str]:
    """Run a command whose reader has already gone: its first write meets a closed pipe."""
    process = subprocess.Popen([WORKBENCH, "--db", str(db), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()
    error = process.stderr.read().decode()
    return process.wait(timeout=60), error


@pytest.mark.parametrize("name", sorted(PRINTING))
def test_a_closed_pipe_ends_the_command_quietly_with_141(demo_db, name):
    status, error = closed_pipe(demo_db, PRINTING[name])
    assert (status, error) == (141, "")


def test_the_command_prints_when_the_pipe_stays_open(demo_db):
    done = subprocess.run([WORKBENCH, "--db", str(demo_db), *PRINTING["metrics"]], capture_output=True, text=True)
    assert done.returncode == 0 and "macro" in done.stdout.lower()


def test_every_command_is_either_piped_here_or_said_not_to_print():
    covered = {args[0] for args in PRINTING.values()} | NOT_PIPED
    assert sorted(set(COMMANDS) - covered) == []


def test_commands_print_through_the_console_that_knows_closed_pipes():
    from tests.conftest import REPO

    offenders = [
        str(path.relative_to(REPO))
        for path in (REPO / "workbench" / "cli").glob("*.py")
        if "Console(" in path.read_text(encoding="utf-8")
    ]
    assert offenders == []  # use workbench.render.console.output_console()
