"""`make setup` looks at what is installed, not at a stamp file: an environment made by hand
counts as complete, and a missing or outdated requirement makes it install again."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.conftest import REPO
from workbench import environment


def test_this_environment_is_complete_so_setup_installs_nothing():
    done = subprocess.run([sys.executable, "-m", "workbench.environment"], cwd=REPO, capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "")
    make = subprocess.run(["make", "--no-print-directory", "setup"], cwd=REPO, capture_output=True, text=True)
    assert (make.returncode, make.stdout.strip()) == (0, "")  # nothing to do: not a word


def test_a_requirement_missing_or_too_old_is_named(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "factcheck-workbench"\ndependencies = ["click>=999", "no-such-package-here"]\n'
        '[project.optional-dependencies]\ndev = ["pytest>=1"]\n',
        encoding="utf-8",
    )
    found = environment.missing(tmp_path, extras=("dev",))
    assert any(line.startswith("click ") and "does not meet >=999" in line for line in found)
    assert "no-such-package-here is not installed" in found
    assert any("not from this checkout" in line for line in found)  # tmp_path is not where it imports from


def test_the_extras_checked_are_the_extras_the_makefile_installs():
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    installed = re.search(r'-e "\.\[([a-z,]+)\]"', makefile).group(1).split(",")
    assert tuple(installed) == environment.EXTRAS


def test_missing_nltk_data_is_named_with_both_ways_to_install_it(tmp_path):
    said = environment.nltk_data_problem(tmp_path)
    assert said.startswith(f"WordNet is not in {tmp_path}")
    assert "workbench nlp-data" in said and "make nlp-data-offline" in said
    (tmp_path / "corpora" / "wordnet").mkdir(parents=True)
    (tmp_path / "corpora" / "wordnet" / "lexnames").write_text("00\tadj.all\t3\n", encoding="ascii")
    assert environment.nltk_data_problem(tmp_path).startswith(f"punkt_tab is not in {tmp_path}")
    (tmp_path / "tokenizers" / "punkt_tab" / "english").mkdir(parents=True)
    assert environment.nltk_data_problem(tmp_path) is None
