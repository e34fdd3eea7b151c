"""The layers hold: store below everything, textual only in workbench/tui, metrics pure."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def imported_full_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def imported_modules(path: Path) -> set[str]:
    return {name.split(".")[0] for name in imported_full_names(path)}


def python_files(folder: str) -> list[Path]:
    return sorted((REPO / folder).rglob("*.py"))


def test_store_imports_neither_workbench_nor_textual():
    offenders = {
        str(path.relative_to(REPO)): sorted(imported_modules(path) & {"workbench", "textual"})
        for path in python_files("store")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_only_the_tui_imports_textual():
    offenders = [
        str(path.relative_to(REPO))
        for path in python_files("workbench")
        if "textual" in imported_modules(path) or "textual_plotext" in imported_modules(path)
        if not path.relative_to(REPO).as_posix().startswith("workbench/tui/")
    ]
    assert offenders == []


def test_metrics_are_pure():
    forbidden = {"store", "textual", "sqlite3", "sqlite_utils", "httpx", "workbench"}
    offenders = {
        str(path.relative_to(REPO)): sorted(
            name for name in imported_full_names(path)
            if name.split(".")[0] in forbidden and not name.startswith("workbench.metrics")
        )
        for path in python_files("workbench/metrics")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_checker_sees_imports(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import textual.app\nfrom workbench.x import y\n")
    assert imported_modules(sample) == {"textual", "workbench"}
