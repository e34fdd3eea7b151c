"""Is this checkout's environment complete? What `make setup` asks before installing anything,
so a second `make demo` (or one after installing by hand, as docs/install.md shows) starts at once.

    python -m workbench.environment      # exit 0 when complete, else 1 and what is missing

Complete means: the workbench imports from this checkout, every requirement of the project
and of the extras the Makefile installs is met (names and versions, from pyproject.toml),
and the NLTK data METEOR needs is in place. Standard library only, and a fraction of a second.
"""

from __future__ import annotations

import sys
import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXTRAS = ("local", "embed", "dev", "docs")
NLTK_FIX = "`workbench nlp-data` installs it with nltk's downloader; without NLTK's hub, `make nlp-data-offline`"


def missing(root: Path = ROOT, extras: tuple[str, ...] = EXTRAS) -> list[str]:
    """What is missing or out of date, one line each (empty: nothing to install)."""
    from packaging.requirements import Requirement

    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = list(project.get("dependencies", []))
    for extra in extras:
        wanted += project.get("optional-dependencies", {}).get(extra, [])
    problems = [_unmet(Requirement(text)) for text in wanted]
    problems.append(_not_this_checkout(root, project["name"]))
    problems.append(nltk_data_problem())
    return [problem for problem in problems if problem]


def _unmet(requirement) -> str | None:
    if requirement.marker is not None and not requirement.marker.evaluate():
        return None
    try:
        installed = metadata.version(requirement.name)
    except metadata.PackageNotFoundError:
        return f"{requirement.name} is not installed"
    if requirement.specifier and not requirement.specifier.contains(installed, prereleases=True):
        return f"{requirement.name} {installed} does not meet {requirement.specifier}"
    return None


def _not_this_checkout(root: Path, name: str) -> str | None:
    try:
        metadata.version(name)
    except metadata.PackageNotFoundError:
        return f"{name} (this checkout) is not installed"
    import importlib.util

    spec = importlib.util.find_spec("workbench")
    origin = Path(spec.origin).resolve() if spec and spec.origin else None
    if origin is None or root not in origin.parents:
        return f"the workbench imports from {origin}, not from this checkout ({root})"
    return None


def nltk_data_problem(target: Path | None = None) -> str | None:
    """Which NLTK data METEOR needs is absent from `target` (default <venv>/nltk_data)."""
    target = target if target is not None else Path(sys.prefix) / "nltk_data"
    wordnet = target / "corpora" / "wordnet"
    if not ((wordnet / "lexnames").is_file() or (target / "corpora" / "wordnet.zip").is_file()):
        return f"WordNet is not in {target} ({NLTK_FIX})"
    if not (target / "tokenizers" / "punkt_tab" / "english").is_dir():
        return f"punkt_tab is not in {target} ({NLTK_FIX})"
    return None


def main() -> int:
    problems = missing()
    for problem in problems:
        print(f"  missing: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
