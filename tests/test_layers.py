"""The layers hold. The import contracts live in pyproject.toml ([tool.importlinter]) and
`lint-imports` checks them; the tests here run it and check what it cannot express:
SQL text outside the store, the CLI's lazy imports, and what starting the CLI loads."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("openai", "anthropic", "httpx", "scipy", "sklearn", "numpy", "torch", "sentence_transformers",
         "llama_cpp", "nltk", "textual")


def python_files(folder: str) -> list[Path]:
    return sorted((REPO / folder).rglob("*.py"))


def module_level_imports(path: Path) -> set[str]:
    """Modules a file imports outside any function (what importing it loads)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_the_import_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint), "--no-cache"], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout


def test_no_sql_is_written_outside_the_store():
    pattern = re.compile(r"\.execute(many)?\(|\bimport sqlite3\b|\bsqlite_utils\b")
    offenders = [
        f"{path.relative_to(REPO)}:{number}"
        for path in python_files("workbench")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if pattern.search(line)
    ]
    assert offenders == []


def test_the_cli_reaches_the_tui_only_inside_a_command():
    offenders = [
        str(path.relative_to(REPO)) for path in python_files("workbench/cli")
        if any(name.startswith("workbench.tui") or name.startswith("textual")
               for name in module_level_imports(path))
    ]
    assert offenders == []


def test_starting_the_cli_loads_nothing_heavy():
    code = ("import json, sys; import workbench.cli; "
            "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(json.loads(result.stdout))
    assert loaded & set(HEAVY) == set()


def test_the_help_of_every_command_loads_nothing_heavy():
    """`workbench --help` imports every command module: none may import a heavy package."""
    code = ("import json, sys\nfrom click.testing import CliRunner\nfrom workbench.cli import main\n"
            "result = CliRunner().invoke(main, ['--help'])\nassert result.exit_code == 0, result.output\n"
            "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(json.loads(result.stdout.splitlines()[-1]))
    assert loaded & set(HEAVY) == set()


def test_the_checkers_see_what_they_look_for(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import textual.app\nfrom workbench.tui import x\n\ndef f():\n    import numpy\n")
    assert module_level_imports(sample) == {"textual.app", "workbench.tui"}
