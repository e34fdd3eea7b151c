"""The docs a user reads are checked like code: the generated pages equal what the code
makes, the site builds strictly (a broken link or anchor fails), every page is in the
navigation, and every console example of the README and of docs/ shows the whole output its
commands print on a fresh demo database (workbench/cli/examples.py writes them: `make examples`)."""

from __future__ import annotations

import difflib
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from workbench.cli import examples as docs_examples
from workbench.cli import reference

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
    return docs_examples.make_demo(tmp_path_factory.mktemp("docs"))


def first_difference(shown: str, made: str) -> str:
    """The first lines where the page and a run now differ, as a diff."""
    diff = difflib.unified_diff(shown.splitlines(), made.splitlines(), "page", "run now", n=1, lineterm="")
    return "\n".join(list(diff)[:40])


@pytest.mark.slow
@pytest.mark.parametrize("name", [name for name, text in pages_with_examples() if docs_examples.has_examples(text)])
def test_each_example_shows_the_whole_output_a_fresh_demo_prints(name, demo_db, tmp_path):
    page = REPO / name
    made = docs_examples.page_regenerated(page, demo_db)
    shown = page.read_text(encoding="utf-8")
    same = docs_examples.comparable(shown) == docs_examples.comparable(made)
    assert same, f"{name}: run `make examples`\n{first_difference(shown, made)}"


def test_an_example_cut_short_is_written_whole_and_found_stale(tmp_path):
    """filter-help needs no database: its block, cut after the first line as the pages once
    were, comes back with every line the command prints, and the check tells them apart."""
    cut = "Intro.\n\n```console\n$ workbench --db demo.db filter-help\nTerms are combined with AND\n```\nAfter.\n"
    runner = docs_examples.Runner(None, tmp_path)
    made = docs_examples.rewritten(cut, runner)
    assert made.startswith("Intro.\n\n```console\n$ workbench --db demo.db filter-help\nTerms are combined")
    assert "  run:NAME " in made and made.endswith('literally when it is also a keyword: "wrong".\n```\nAfter.\n')
    assert docs_examples.comparable(made) != docs_examples.comparable(cut)
    assert docs_examples.rewritten(made, runner) == made  # a second run changes nothing


def test_a_recorded_block_is_left_as_written_and_a_failing_example_is_named(tmp_path):
    runner = docs_examples.Runner(None, tmp_path)
    recorded = "<!-- recorded: needs an API key -->\n```console\n$ workbench --db demo.db runs\nby hand\n```\n"
    assert docs_examples.rewritten(recorded, runner) == recorded
    with pytest.raises(docs_examples.ExampleFailed, match="`workbench --db demo.db show no-such:claim` exited 1"):
        docs_examples.rewritten("```console\n$ workbench --db demo.db show no-such:claim\n```\n", runner)


def test_what_varies_between_runs_is_replaced_and_nothing_else(tmp_path):
    output = (
        f"answering ━━━━━━━━━━━ 3/3 failed 0 cached 0 26.4 claims/min · ETA 0s\n"
        f"took 1.50 s per claim, 12ms; prompt 326 tok/s; claim date 2024-03-18; 24 items: 22 scored\n"
        f"wrote {tmp_path}/demo.db, {tmp_path}/out.json and {REPO}/prompts/x.toml   \n\n"
    )
    assert docs_examples.normalised(output, tmp_path) == [
        f"answering {'━' * 20} 3/3 failed 0 cached 0 N claims/min · ETA Ns",
        "took N s per claim, Nms; prompt N tok/s; claim date 2024-03-18; 24 items: 22 scored",
        "wrote /tmp/wbx-examples/demo.db, /tmp/wbx-examples/out.json and ./prompts/x.toml",
    ]


def test_a_checkout_path_cut_to_fit_a_column_compares_alike_wherever_the_checkout_lives():
    # CI clones to a longer folder than a developer's: Rich's column then gives the folders way
    shown = "averitec\n./prompts/averitec.toml   Not Enough\nrun /tmp/wbx-examples/demo.db ./…/x.toml"
    in_ci = "averitec\n./…/averitec.toml   Not Enough\nrun /tmp/wbx-examples/demo.db /check/work/…/x.toml"
    assert docs_examples.comparable(shown) == docs_examples.comparable(in_ci)
    assert docs_examples.comparable("./prompts/a.toml") != docs_examples.comparable("./prompts/b.toml")
    assert docs_examples.comparable("/tmp/a/demo.db") != docs_examples.comparable("/tmp/b/demo.db")
