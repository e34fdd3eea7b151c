"""Where the workbench reaches into a library's private parts, the library is pinned to the
versions we test: a release that moves them fails a pin, not a user's run. Found with `ast`
(tests/support/private_uses.py says what it sees); the allow-list records each use with its pin."""

from __future__ import annotations

import tomllib
from importlib import metadata

from packaging.requirements import Requirement

from tests.conftest import REPO
from tests.support.private_uses import private_uses, private_uses_in

# Package (import name) -> the requirement pyproject.toml must carry, and the private
# names used under it. Rich has no entry: no private Rich import may remain.
ALLOWED: dict[str, tuple[str, set[str]]] = {
    "textual": (
        "textual>=8.2,<8.3",
        {
            "textual.widgets._footer",  # FooterKey, for the footer fitted to the width
            "textual.widgets._toggle_button",  # ToggleButton's look, for the choosers
            "textual.widgets.RadioSet._selected",
            "textual.widgets.RadioSet._nodes",  # the flag dialog
        },
    ),
    "llama_cpp": (
        "llama-cpp-python>=0.3.36,<0.3.37",
        {
            # Prefix states and the abort callback (llama_abort.py reads model._ctx too,
            # through a parameter typed Any, which the scan cannot see).
            "llama_cpp.Llama._ctx",
            "llama_cpp.Llama._requires_eval",
        },
    ),
    "nltk": (
        "nltk>=3.9.1,<3.9.3",
        {
            "nltk.corpus.wordnet._data_file_map"  # a forked METEOR worker reopens WordNet's files
        },
    ),
    "openai": (
        "openai[aiohttp]>=1.40,<4",
        {
            "openai._base_client"  # the SDK's OS detection; guarded: without it the SDK detects itself
        },
    ),
}


def requirements() -> dict[str, Requirement]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    texts = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        texts += extra
    return {Requirement(text).name.lower(): Requirement(text) for text in texts}


def test_every_private_use_of_a_library_is_allowed_with_its_pin():
    unlisted = [
        f"{use.path}:{use.line} {use.what}"
        for use in private_uses(REPO)
        if use.what not in ALLOWED.get(use.package, ("", set()))[1]
    ]
    assert unlisted == [], "pin the library to the versions tested and add the use to ALLOWED"


def test_each_allowed_use_still_exists():
    used = {use.what for use in private_uses(REPO)}
    stale = [what for _, names in ALLOWED.values() for what in names if what not in used]
    assert stale == [], "remove these from ALLOWED (and loosen the pin if nothing else needs it)"


def test_the_pins_are_in_pyproject_bounded_and_met_by_what_is_installed():
    have = requirements()
    for pin, _ in ALLOWED.values():
        wanted = Requirement(pin)
        found = have.get(wanted.name.lower())
        assert found is not None and found.specifier == wanted.specifier, (pin, found)
        assert any(spec.operator in ("<", "<=", "==", "~=") for spec in wanted.specifier), pin
        assert wanted.specifier.contains(metadata.version(wanted.name), prereleases=True), pin


def test_the_scan_sees_private_imports_and_attributes():
    source = """
from rich._wrap import divide_line
import textual._xterm_parser
from llama_cpp import _internals
import llama_cpp
from nltk.corpus import wordnet
from llama_cpp import Llama
import json

def f():
    llama_cpp._lib.call()
    wordnet._morphy("dogs", "n")
    json._default_decoder  # the standard library is not a dependency
    wordnet.__class__      # dunders are not private

class Mine(Llama):
    def __init__(self):
        self._mine = 1
    def g(self):
        return self._mine, self._ctx
"""
    found = sorted(use.what for use in private_uses_in(source))
    assert found == [
        "llama_cpp.Llama._ctx",
        "llama_cpp._internals",
        "llama_cpp._lib",
        "nltk.corpus.wordnet._morphy",
        "rich._wrap",
        "textual._xterm_parser",
    ]


def test_rich_has_no_allowance_so_its_private_import_would_fail():
    uses = private_uses_in("from rich._wrap import divide_line\n")
    assert [use.package for use in uses] == ["rich"] and "rich" not in ALLOWED
