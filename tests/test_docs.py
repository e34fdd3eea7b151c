"""The docs a user reads are checked like code: the generated pages equal what the code
makes, the site builds strictly (a broken link or anchor fails), every page is in the
navigation, and the commands of the README's tour and of each page's first example run on
the demo database and print the first line the page shows."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from workbench.cli import reference

WORKBENCH = str(Path(sys.executable).with_name("workbench"))
DOCS = REPO / "docs"
GENERATED = set(reference.PAGES)


def test_the_generated_pages_are_what_the_code_makes_now():
    stale = [page for page, text in reference.generated().items() if (DOCS / page).read_text(encoding="utf-8") != text]
    assert stale == [], "run `make docs` (python -m workbench.cli.reference docs)"


def test_the_site_builds_offline_and_strictly(tmp_path):
    mkdocs = Path(sys.executable).with_name("mkdocs")
    if not mkdocs.exists():
        pytest.skip("mkdocs is in the docs extra (make setup installs it)")
    done = subprocess.run(
        [str(mkdocs), "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "site" / "reference" / "cli" / "index.html").exists()


def test_every_page_is_in_the_navigation_and_the_readme_links_exist():
    nav = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    pages = sorted(str(path.relative_to(DOCS)) for path in DOCS.rglob("*.md"))
    assert [page for page in pages if f" {page}" not in nav] == []
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(((?:docs/)?[\w/.-]+\.md)\)", readme)
    assert links and [link for link in links if not (REPO / link).exists()] == []


def first_block(text: str) -> tuple[str, list[str]]:
    """The first fenced block: (its info string, its lines)."""
    match = re.search(r"^```(\w*)\n(.*?)^```", text, re.M | re.S)
    return (match.group(1), match.group(2).splitlines()) if match else ("", [])


def examples(text: str) -> list[tuple[str, str]]:
    """(command, the first line of output shown) for each `$ workbench` line of a console block."""
    kind, lines = first_block(text)
    found = []
    for position, line in enumerate(lines):
        if line.startswith("$ workbench "):
            shown = lines[position + 1] if position + 1 < len(lines) and not lines[position + 1].startswith("$") else ""
            found.append((line[2:], shown))
    return found


def pages_with_examples() -> list[tuple[str, str]]:
    named = [("README.md", (REPO / "README.md").read_text(encoding="utf-8"))]
    named += [
        (str(path.relative_to(REPO)), path.read_text(encoding="utf-8"))
        for path in sorted(DOCS.rglob("*.md"))
        if str(path.relative_to(DOCS)) not in GENERATED
    ]
    return named


@pytest.mark.parametrize("name", [name for name, _ in pages_with_examples()])
def test_a_first_example_with_commands_is_one_that_runs(name):
    """Commands in a page's first block are examples to run, shown with their output."""
    text = dict(pages_with_examples())[name]
    kind, lines = first_block(text)
    if any(re.match(r"\s*workbench ", line) for line in lines):
        assert kind == "console" and examples(text), f"{name}: the first block's commands must be `$ workbench ...`"


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("docs") / "demo.db"
    subprocess.run([WORKBENCH, "--db", str(db), "demo", "--no-tui"], check=True, capture_output=True)
    return db


def words(line: str) -> list[str]:
    return line.split()


@pytest.mark.slow
@pytest.mark.parametrize("name", [name for name, text in pages_with_examples() if examples(text)])
def test_the_examples_run_and_print_what_the_page_shows(name, demo_db, tmp_path):
    db = tmp_path / "demo.db"
    shutil.copy(demo_db, db)  # each page's examples start from the demo as `make demo` makes it
    for command, shown in examples(dict(pages_with_examples())[name]):
        args = [str(db) if arg == "demo.db" else arg for arg in shlex.split(command)[1:]]
        done = subprocess.run([WORKBENCH, *args], cwd=REPO, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{name}: `{command}` failed: {done.stderr[-600:]}"
        first = next((line for line in done.stdout.splitlines() if line.strip()), "")
        assert words(first)[: len(words(shown))] == words(shown), f"{name}: `{command}` printed {first!r}"
