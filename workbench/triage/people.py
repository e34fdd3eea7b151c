"""Annotators' names: whatever a person calls themselves (shown literally everywhere),
except nothing at all, or a comma (lists of names are split at commas)."""

from __future__ import annotations

from workbench.triage import TriageError

MAX_NAME = 80


def check_annotator(name: str | None, where: str = "the annotator's name") -> str:
    """The name without surrounding blanks; TriageError if it cannot name a person."""
    text = (name or "").strip()
    if not text:
        raise TriageError(
            f"{where} is empty: set --annotator NAME, `annotator` in the config file, or $WORKBENCH_ANNOTATOR"
        )
    if "," in text:
        raise TriageError(f"{where} {text!r} has a comma; lists of annotators are split at commas")
    if len(text) > MAX_NAME:
        raise TriageError(f"{where} is {len(text)} characters long; at most {MAX_NAME}")
    return text


def parse_annotators(text: str) -> list[str]:
    """'ana, ben,cy' -> ['ana', 'ben', 'cy'] (each checked, each once)."""
    names = [part.strip() for part in (text or "").split(",")]
    if not any(names):
        raise TriageError("--annotators needs at least one name (e.g. --annotators ana,ben)")
    found = []
    for name in names:
        checked = check_annotator(name, "a name in --annotators")
        if checked in found:
            raise TriageError(f"--annotators names {checked!r} twice")
        found.append(checked)
    return found
