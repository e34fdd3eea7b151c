"""The commands that read and print, and a demo database to run them on (start-up and output tests share them)."""

from __future__ import annotations

import pytest

READ_COMMANDS = {
    "claims": ["claims", "--where", "label:Refuted", "--limit", "5"],
    "show": ["show", "1"],
    "runs": ["runs"],
    "datasets": ["datasets"],
    "predictions": ["predictions", "demo-checker", "--wrong"],
    "profiles": ["profiles"],
    "prompts": ["prompts"],
    "filter-help": ["filter-help"],
    "trajectory": ["trajectory", "demo-checker", "1"],
    "search-stats": ["search-stats", "demo-checker"],
}


@pytest.fixture(scope="module")
def demo_with_a_search(tmp_path_factory):
    """The demo database, its run given a stored search trajectory for claim 1."""
    from store import Step, Store, StoredResult
    from workbench.cli.demo import load_claimreview_demo, load_demo, load_demo_team

    path = tmp_path_factory.mktemp("reads") / "demo.db"
    store = Store.open(path)
    load_demo(store), load_demo_team(store), load_claimreview_demo(store)
    run = store.runs.get("demo-checker")
    store.search.record_step(
        run.id,
        1,
        Step(
            1,
            "search",
            text="looking",
            tool="search",
            query="lighthouse",
            results=[StoredResult(1, "https://example.org/a", "A", "a page")],
        ),
    )
    store.search.record_step(run.id, 1, Step(2, "answer", text="Refuted"))
    store.close()
    return path


def modules_at_exit(db, command: list[str]) -> list[dict]:
    """What a command's process (run on `db`, printing to a pipe) had imported when it exited:
    sys.modules' names and, for each module of the store, the names it holds."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import atexit, sys\n"
        "def report():\n"
        "    modules = sorted(sys.modules)\n"  # before json, imported here to print them
        "    import json\n"
        "    store = {n: sorted(vars(m)) for n, m in list(sys.modules.items()) if n.split('.')[0] == 'store'}\n"
        "    print(json.dumps([modules, store]))\n"
        "atexit.register(report)\n"
        "from workbench.cli import main\n"
        f"sys.argv = ['workbench', '--db', {str(db)!r}, *{list(command)!r}]\n"
        "main()\n"
    )
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])
