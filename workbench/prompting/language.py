"""The hint that a template exists in the claims' own language (jsfactcheck-ja for Japanese
claims).

A dataset does not record its language, so it is detected from (a sample of) the claims'
texts with py3langid (workbench.nlp.languages). A template in language LL is named after
the English one with `-LL` (jsfactcheck-ja); `--prompt auto` keeps choosing the English
template, so that runs stay comparable, and the hint says which one to pass instead.
"""

from __future__ import annotations

from pathlib import Path

from workbench.nlp.languages import language_name, main_language
from workbench.prompting.files import available_templates
from workbench.prompting.templates import Template

SAMPLE_CLAIMS = 50
"""Claims read to tell a dataset's language (detection takes ~1 ms a claim)."""


def language_hint(template: Template, claim_texts: list[str], prompts_dir: Path | None = None) -> str | None:
    """What to pass instead of `template` when the claims are in a language that has its own
    template (None when they are in English, or already in the template's language)."""
    code = main_language(claim_texts[:SAMPLE_CLAIMS])
    if code is None or code == "en" or template.name.endswith(f"-{code}"):
        return None
    available = available_templates(prompts_dir)
    name = next((n for n in (f"{template.name}-{code}", f"{template.label_space}-{code}") if n in available), None)
    if name is None:
        return None
    language = language_name(code)
    return (
        f"these claims are in {language} (detected from their text with py3langid: a dataset does not record"
        f" its language); --prompt {name} asks in {language}"
    )


__all__ = ["SAMPLE_CLAIMS", "language_hint"]
