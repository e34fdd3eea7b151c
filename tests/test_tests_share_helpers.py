"""Tests share helpers through tests/support/ and conftest.py, never by importing another
test module (which runs that module's import-time code and ties the two files together)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import REPO


def imports_of_test_modules(path: Path) -> list[str]:
    """`module` for each import of a test module (tests.test_x, test_x) in one file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom):
            names = [node.module or ""] if node.level == 0 else []
            names += [f"{node.module}.{alias.name}" for alias in node.names if node.module == "tests"]
        found += [
            name
            for name in names
            if name.split(".")[-1].startswith("test_") or any(part.startswith("test_") for part in name.split(".")[:-1])
        ]
    return found


def test_no_test_module_imports_another():
    offenders = [
        f"{path.relative_to(REPO)}: {module}"
        for path in sorted((REPO / "tests").rglob("*.py"))
        for module in imports_of_test_modules(path)
    ]
    assert offenders == [], "move what they share into tests/support/ (or a conftest.py fixture)"


def test_the_check_sees_each_way_of_importing_a_test_module(tmp_path):
    sample = tmp_path / "test_sample.py"
    sample.write_text(
        "from tests.test_judge import cli\nimport tests.test_scoring\nfrom tests import test_layers\n"
        "from tests.support.tui import make_app\nfrom tests.conftest import REPO\n"
        "def f():\n    from test_images import picture\n",
        encoding="utf-8",
    )
    assert sorted(imports_of_test_modules(sample)) == [
        "test_images",
        "tests.test_judge",
        "tests.test_layers",
        "tests.test_scoring",
    ]
