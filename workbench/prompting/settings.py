"""Input settings: which context and which evidence a model is shown with a claim.

Settings are `CONTEXT[+EVIDENCE][+image]`: context is claim, claim+time or claim+time+qr;
evidence is none (the default), reference, full, pages or qa. `claim+time+pages` shows the
claim, the time to judge it at, and every candidate page as a 600-character window. The
code decides what each setting shows (messages.py, evidence.py); the template
(templates.py) decides the words.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.errors import WorkbenchError
from workbench.prompting.templates import Template

CONTEXTS = {"claim": set(), "claim+time": {"time"}, "claim+time+qr": {"time", "question", "response"}}
EVIDENCE = ("none", "reference", "full", "pages", "qa")
IMAGE_SUFFIX = "+image"
EVIDENCE_NEEDS = {
    "reference": "a quoted passage or evidence snippet",
    "full": "a cited page or evidence text",
    "pages": "candidate pages or evidence texts",
    "qa": "question-answer evidence",
}


class PromptError(WorkbenchError, ValueError):
    """A setting, template or claim that cannot make a prompt; the message says why."""


@dataclass(frozen=True)
class Setting:
    context: str
    evidence: str = "none"
    image: bool = False
    """`+image`: a claim's images go with it (to a model that takes images)."""

    @property
    def name(self) -> str:
        """The canonical name (`+none` left out)."""
        name = self.context if self.evidence == "none" else f"{self.context}+{self.evidence}"
        return name + IMAGE_SUFFIX if self.image else name


def parse_setting(text: str) -> Setting:
    """A Setting from `claim+time+reference` (and `...+image`) and the like."""
    text = (text or "claim").strip().lower()
    typed, image = (text.removesuffix(IMAGE_SUFFIX), True) if text.endswith(IMAGE_SUFFIX) else (text, False)
    context, _, last = typed.rpartition("+")
    setting = Setting(context, last, image) if last in EVIDENCE and context else Setting(typed, image=image)
    if setting.context not in CONTEXTS:
        raise PromptError(
            f"unknown setting {text!r}: write CONTEXT[+EVIDENCE][+image] with CONTEXT one of"
            f" {', '.join(CONTEXTS)} and EVIDENCE one of {', '.join(EVIDENCE)}"
            " (e.g. claim+time+reference, claim+image)"
        )
    return setting


def all_settings() -> list[str]:
    """Every setting the code defines: the twelve of JSFactCheckBench plus the qa ones."""
    return [Setting(c, e).name for c in CONTEXTS for e in EVIDENCE]


def template_settings(template: Template) -> list[str]:
    """The settings a template has wording for."""
    return [Setting(c, e).name for c in CONTEXTS if c in template.contexts for e in EVIDENCE if e in template.evidence]


def check_setting(template: Template, setting: Setting) -> None:
    """PromptError unless the template words this setting's context and evidence."""
    missing = [f"[context] {setting.context}"] if setting.context not in template.contexts else []
    missing += [f"[evidence] {setting.evidence}"] if setting.evidence not in template.evidence else []
    if missing:
        raise PromptError(
            f"template {template.name!r} has no {' or '.join(missing)};"
            f" its settings: {', '.join(template_settings(template))}"
        )


def answer_mode(template: Template, json_answer: bool | None) -> str:
    """`json` or `text`: the template's default unless the run asks otherwise."""
    mode = "json" if (template.json if json_answer is None else json_answer) else "text"
    if mode not in template.answer:
        raise PromptError(f"template {template.name!r} has no [answer] {mode} wording")
    return mode
