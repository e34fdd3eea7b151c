"""The layers hold. The import contracts live in pyproject.toml ([tool.importlinter]) and
`lint-imports` checks them; the tests here run it and check what it cannot express: that
every package and top-level module is in the layers (so a new one cannot slip past), SQL
text outside the store, the CLI's lazy imports, what starting the CLI loads, and what the
commands that read and print load."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.support.reading import READ_COMMANDS

REPO = Path(__file__).resolve().parents[1]
HEAVY = (
    "openai",
    "anthropic",
    "httpx",
    "scipy",
    "sklearn",
    "numpy",
    "torch",
    "sentence_transformers",
    "llama_cpp",
    "nltk",
    "textual",
)


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


def import_contracts() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]


def layers() -> list[list[str]]:
    """The layers contract's layers, top first, each as its modules."""
    (contract,) = (c for c in import_contracts()["contracts"] if c["type"] == "layers")
    return [[name.strip() for name in re.split(r"[|:]", layer)] for layer in contract["layers"]]


NOT_PACKAGES = {"workbench/demo_data": "the demo's files, and scripts that write them, run by hand, never imported"}


def workbench_parts() -> set[str]:
    """Every package and top-level module under workbench/, as import-linter names them."""
    found = set()
    for path in (REPO / "workbench").iterdir():
        if path.is_dir() and (path / "__init__.py").exists():
            found.add(f"workbench.{path.name}")
        elif path.suffix == ".py" and path.name != "__init__.py":
            found.add(f"workbench.{path.stem}")
    return found


def test_every_package_and_module_is_in_a_layer():
    named = [name for layer in layers() for name in layer]
    assert sorted(workbench_parts() - set(named)) == []  # add it to the layers in pyproject.toml
    assert sorted(set(named) - workbench_parts() - {"store"}) == []  # a name left from a move
    assert len(named) == len(set(named))
    assert "exclude_type_checking_imports" not in import_contracts()  # annotations count as imports


def test_every_folder_of_python_files_is_a_package():
    """A folder without __init__.py is invisible to the import contracts (and to a wheel)."""
    folders = {path.parent for path in python_files("workbench")} | {path.parent for path in python_files("store")}
    missing = sorted(
        str(folder.relative_to(REPO))
        for folder in folders
        if not (folder / "__init__.py").exists()
        and not any(str(folder.relative_to(REPO)).startswith(data) for data in NOT_PACKAGES)
    )
    assert missing == []


def test_the_presentation_contract_names_every_layer_below_the_renderers():
    found = layers()
    render = next(n for n, layer in enumerate(found) if "workbench.render" in layer)
    below = {name for layer in found[render + 1 :] for name in layer} - {"store"}
    (contract,) = (c for c in import_contracts()["contracts"] if c["name"].startswith("Domain packages"))
    assert sorted(contract["source_modules"]) == sorted(below)


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
        str(path.relative_to(REPO))
        for path in python_files("workbench/cli")
        if any(name.startswith("workbench.tui") or name.startswith("textual") for name in module_level_imports(path))
    ]
    assert offenders == []


def test_starting_the_cli_loads_nothing_heavy():
    code = "import json, sys; import workbench.cli; print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(json.loads(result.stdout))
    assert loaded & set(HEAVY) == set()


def test_the_help_of_every_command_loads_nothing_heavy():
    """`workbench --help` imports every command module: none may import a heavy package."""
    code = (
        "import json, sys\nfrom click.testing import CliRunner\nfrom workbench.cli import main\n"
        "result = CliRunner().invoke(main, ['--help'])\nassert result.exit_code == 0, result.output\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(json.loads(result.stdout.splitlines()[-1]))
    assert loaded & set(HEAVY) == set()
    assert "rich" not in loaded  # the commands that print import it when they print


def test_the_checkers_see_what_they_look_for(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import textual.app\nfrom workbench.tui import x\n\ndef f():\n    import numpy\n")
    assert module_level_imports(sample) == {"textual.app", "workbench.tui"}


NOT_FOR_READING = (
    "numpy",
    "scipy",
    "pydantic_settings",
    "openai",
    "anthropic",
    "torch",
    "llama_cpp",
    "textual",
    "sqlite_utils",
    "pydantic",
)
"""What the commands that read and print must not import: the numeric and model packages,
the TUI, and what validating or migrating needs (importing sqlite-utils or pydantic takes
longer than these commands take to run: the store reads with sqlite3 into plain dataclasses).
With a config file, pydantic is what checks it (every command does): VALIDATING_CONFIG."""
VALIDATING_CONFIG = ("pydantic", "pydantic_core", "annotated_types", "typing_extensions", "typing_inspection")
"""What checking a config file with pydantic imports; without a file none of it is loaded."""
RICH_NOT_FOR_READING = (
    "rich.markdown",
    "rich.syntax",
    "pygments",
    "rich.progress",
    "rich.live",
    "rich.traceback",
    "markdown_it",
    "rich._emoji_codes",
)
"""What printing tables, panels and text does without (Rich's console, table, panel and text
are what the reading commands print with; a str given to Rich as a title would be read as
markup and load the table of emoji codes)."""


def run_printing(command: list[str], env: dict, terminal: bool) -> tuple[int, str]:
    """(exit status, output) of a command printing to a pipe or to a terminal (a pty, where
    Rich draws styles and colours)."""
    if not terminal:
        result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
        return result.returncode, result.stdout + result.stderr[-2000:]
    import pty

    reader, writer = pty.openpty()
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=writer, stderr=writer, env=env)
    os.close(writer)
    output = b""
    while True:
        try:
            chunk = os.read(reader, 65536)
        except OSError:  # every writer has closed the terminal
            break
        if not chunk:
            break
        output += chunk
    os.close(reader)
    return process.wait(timeout=120), output.decode(errors="replace")


@pytest.mark.parametrize("terminal", [False, True], ids=["to a pipe", "to a terminal"])
@pytest.mark.parametrize("with_config", [False, True], ids=["no config file", "a config file"])
@pytest.mark.parametrize("name", sorted(READ_COMMANDS))
def test_the_commands_that_read_load_nothing_heavy(name, with_config, terminal, demo_with_a_search, tmp_path):
    """Each command in a fresh process, as a user runs it, with no config file or with one that
    sets the usual things (checked by pydantic), printing to a pipe or to a terminal: the
    modules loaded when it exits."""
    config = tmp_path / "config.toml"
    if with_config:
        config.write_text(
            'annotator = "ana"\ntheme = "nord"\n[keys]\nopenai = "sk-test"\n[keymap]\n"claims.flag" = "ctrl+f"\n'
        )
    listing = tmp_path / "modules.json"
    code = (
        "import atexit, json, sys\n"
        f"atexit.register(lambda: open({str(listing)!r}, 'w').write(json.dumps(sorted(sys.modules))))\n"
        "from workbench.cli import main\n"
        f"sys.argv = ['workbench', '--db', {str(demo_with_a_search)!r}, *{READ_COMMANDS[name]!r}]\n"
        "main()\n"
    )
    env = {name: value for name, value in os.environ.items() if not name.upper().startswith("WORKBENCH_")}
    env["WORKBENCH_CONFIG"] = str(config)
    status, output = run_printing([sys.executable, "-c", code], env, terminal)
    assert status == 0, output[-4000:]
    assert output.strip()  # it printed what it reads
    modules = set(json.loads(listing.read_text()))
    loaded = {module.split(".")[0] for module in modules}
    allowed = set(VALIDATING_CONFIG) if with_config else set()
    assert loaded & set(NOT_FOR_READING) - allowed == set(), name
    if not with_config:
        assert loaded & set(VALIDATING_CONFIG) - {"typing_extensions"} == set(), name
    assert {m for m in modules if m.startswith(RICH_NOT_FOR_READING)} == set(), name


def test_the_tuis_first_frame_loads_nothing_heavy(demo_with_a_search):
    """Rows and the count on screen, in a fresh process: no numeric packages, no SDKs, no
    sqlite-utils or pydantic-settings (what the metrics view needs is imported two seconds
    later, as a warm-up, and is left out here)."""
    code = f"""
import asyncio, json, re, sys
from tests.support.tui import screen_text
from workbench.tui.app import WorkbenchApp

WorkbenchApp._load_metrics_view = lambda self: None  # the warm-up after the first frame

async def first_frame():
    app = WorkbenchApp({str(demo_with_a_search)!r}, poll_seconds=0)
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(3000):
            await pilot.pause()
            text = screen_text(app)
            if re.search(r"[0-9,]+ of [0-9,]+ claims", text) and re.search(r"^ +1 ", text, re.M):
                return sorted(sys.modules)
    raise AssertionError("no rows and count on screen:\\n" + screen_text(app))

print(json.dumps(asyncio.run(first_frame())))
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=300)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    loaded = {module.split(".")[0] for module in json.loads(result.stdout.splitlines()[-1])}
    assert "textual" in loaded  # it did draw
    assert (
        loaded
        & {
            "numpy",
            "scipy",
            "pandas",
            "sqlite_utils",
            "pydantic_settings",
            "openai",
            "anthropic",
            "torch",
            "llama_cpp",
            "httpx",
        }
        == set()
    )
