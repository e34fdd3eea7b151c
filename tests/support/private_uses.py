"""Find where our code reaches into a third-party package's private parts, with `ast`.

What counts (a private name starts with one underscore, not two):
- importing a private module or name: `import textual._x`, `from rich._wrap import f`,
  `from llama_cpp import _internal`;
- a private attribute of a name bound to a third-party module or object by an import:
  `wordnet._morphy` after `from nltk.corpus import wordnet`;
- in a subclass of an imported third-party class, `self._x` for an `_x` the subclass
  neither defines as a method nor sets in its own `__init__`, and that the library's class
  (or a class of the same package it inherits from) names in its source: the parent's
  internals, not a mixin's attribute set by another of our classes.
Uses through an object whose type the code cannot see (a parameter typed Any) escape this.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import sys
from dataclasses import dataclass
from pathlib import Path

OURS = {"workbench", "store", "tests"}


@dataclass(frozen=True)
class PrivateUse:
    path: str
    line: int
    package: str
    """Top-level import name, e.g. "llama_cpp"."""
    what: str
    """Dotted name of what is used, e.g. "nltk.corpus.wordnet._data_file_map"."""
    inherited: bool = False
    """`self._x` in a subclass of the library's class `what` minus its last part."""


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _third_party(module: str) -> bool:
    top = module.split(".")[0]
    return bool(top) and top not in sys.stdlib_module_names and top not in OURS and top != "__future__"


class _Finder(ast.NodeVisitor):
    def __init__(self, path: str):
        self.path = path
        self.found: list[PrivateUse] = []
        self.bound: dict[str, str] = {}
        """Local name -> the third-party dotted name it was imported as."""
        self.subclass_stack: list[tuple[str, set[str]]] = []
        """(third-party base's dotted name, names the subclass defines) per enclosing class."""

    def _add(self, node: ast.AST, what: str, inherited: bool = False) -> None:
        self.found.append(PrivateUse(self.path, node.lineno, what.split(".")[0], what, inherited))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if not _third_party(alias.name):
                continue
            if any(_private(part) for part in alias.name.split(".")):
                self._add(node, alias.name)
            if alias.asname:
                self.bound[alias.asname] = alias.name
            else:
                top = alias.name.split(".")[0]
                self.bound[top] = top

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level or not _third_party(module):
            return
        if any(_private(part) for part in module.split(".")):
            self._add(node, module)
        for alias in node.names:
            if _private(alias.name):
                self._add(node, f"{module}.{alias.name}")
            self.bound[alias.asname or alias.name] = f"{module}.{alias.name}"

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if _private(node.attr) and isinstance(node.value, ast.Name):
            name = node.value.id
            if name in self.bound:
                self._add(node, f"{self.bound[name]}.{node.attr}")
            elif name == "self" and self.subclass_stack:
                base, own = self.subclass_stack[-1]
                if base and node.attr not in own:
                    self._add(node, f"{base}.{node.attr}", inherited=True)
        self.generic_visit(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        bases = [self.bound[b.id] for b in node.bases if isinstance(b, ast.Name) and b.id in self.bound]
        self.subclass_stack.append((bases[0] if bases else "", _own_names(node)))
        self.generic_visit(node)
        self.subclass_stack.pop()


def _own_names(cls: ast.ClassDef) -> set[str]:
    """Methods and class attributes of `cls`, and what its own __init__ sets on self."""
    own: set[str] = set()
    for item in cls.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            own.add(item.name)
            if item.name == "__init__":
                own |= {
                    t.attr
                    for n in ast.walk(item)
                    if isinstance(n, (ast.Assign, ast.AnnAssign))
                    for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
                }
        elif isinstance(item, ast.Assign):
            own |= {t.id for t in item.targets if isinstance(t, ast.Name)}
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            own.add(item.target.id)
    return own


def private_uses_in(source: str, path: str = "<source>") -> list[PrivateUse]:
    """Every private use of a third-party package in one module's source."""
    finder = _Finder(path)
    finder.visit(ast.parse(source, filename=path))
    return [use for use in finder.found if not use.inherited or _library_names(use.what)]


def _library_names(what: str) -> bool:
    """Whether the library class in `what` ("pkg.mod.Class._attr") or a base of it from
    the same package mentions `_attr` in its source (True when it cannot be looked at)."""
    module, cls_name, attr = what.rsplit(".", 2)
    try:
        cls = getattr(importlib.import_module(module), cls_name)
    except (ImportError, AttributeError):
        return True
    package = module.split(".")[0]
    for klass in cls.__mro__:
        if klass.__module__.split(".")[0] != package:
            continue
        try:
            if attr in inspect.getsource(klass):
                return True
        except (OSError, TypeError):
            return True
    return False


def private_uses(root: Path, folders: tuple[str, ...] = ("workbench", "store")) -> list[PrivateUse]:
    """Every private use of a third-party package in the .py files below `folders` of `root`."""
    found: list[PrivateUse] = []
    for folder in folders:
        for path in sorted((root / folder).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            found += private_uses_in(path.read_text(encoding="utf-8"), rel)
    return found
