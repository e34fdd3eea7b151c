"""Verdict prompt templates: TOML files in prompts/ (built in) and in Settings.prompts_dir
(found and read by files.py).

A user adds a template by dropping a file in either folder; a file in prompts_dir wins
over a built-in one of the same name. The keys:

    kind (optional: "verdict", the default; other kinds belong to other steps, e.g. the
    contamination pipeline's article and extract templates),
    name (a label: --prompt takes the file name), description, label_space, verdicts,
    abstain (optional), output_fields, json,
    system, user                   -- user (and system) may use {context} {evidence} {answer}
    [context]  claim, "claim+time", "claim+time+qr"      -- wording per context
    [evidence] none, reference, full, pages, qa          -- {evidence_text} is the material
    [answer]   json, text                                -- how to reply, {verdicts} lists them

Every text may use the claim fields in CLAIM_FIELDS. A template offers the settings
whose context and evidence it words.
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.prompting.files import TemplateError, available_templates, read_template_file

CLAIM_FIELDS = {
    "claim": "the claim text",
    "question": "the question the claim's answer replied to",
    "response": "the full answer, the claim marked with « »",
    "time": "reference time, else claim date",
    "reference_time": "the reference time",
    "claim_date": "the claim date",
    "source": "speaker or outlet",
    "domain": "domain",
    "task": "task",
    "importance": "Main / Sub / Irrelevant",
}
ALWAYS = {"verdicts"}
_PARTS = {"system": {"context", "evidence", "answer"}, "user": {"context", "evidence", "answer"}}


DEFAULT_IMAGE_WORDS = "The claim was shared with this image:"


@dataclass(frozen=True)
class Template:
    """A prompt template read from its file."""

    name: str
    description: str
    label_space: str
    verdicts: list[str]
    abstain: str | None
    output_fields: list[str]
    json: bool
    system: str
    user: str
    contexts: dict[str, str]
    evidence: dict[str, str]
    answer: dict[str, str]
    path: Path
    content_hash: str
    fields_used: frozenset[str] = field(default=frozenset())
    """Claim fields any of its texts uses (checked against the claims before a run)."""
    image: str = DEFAULT_IMAGE_WORDS
    """Said before a claim's images in a `+image` setting."""

    @property
    def answer_labels(self) -> list[str]:
        """Every verdict the model may give, the abstain label last."""
        return self.verdicts + ([self.abstain] if self.abstain else [])


def load_template(name: str, extra: Path | None = None) -> Template:
    """The template called `name` (a file stem), validated."""
    files = available_templates(extra)
    if name not in files:
        known = ", ".join(sorted(files)) or "none"
        raise TemplateError(
            f"no prompt template {name!r}; available: {known} (add NAME.toml to prompts/ or to your prompts_dir)"
        )
    return read_template(files[name])


def read_template(path: Path) -> Template:
    """Read and check one template file."""
    file = read_template_file(path)
    reader = _Reader(path, file.data)
    template = Template(
        # The file name is the template's name (what users type); a `name` key is a label only.
        name=path.stem,
        description=reader.text("description", default=""),
        label_space=reader.text("label_space"),
        verdicts=reader.labels("verdicts"),
        abstain=reader.text("abstain", default="") or None,
        output_fields=reader.labels("output_fields", default=["verdict", "explanation"]),
        json=reader.flag("json", default=True),
        system=reader.text("system", default=""),
        user=reader.text("user"),
        contexts=reader.table("context"),
        evidence=reader.table("evidence"),
        answer=reader.table("answer"),
        path=path,
        content_hash=file.content_hash,
        image=reader.text("image", default=DEFAULT_IMAGE_WORDS),
    )
    return _checked(template)


def _checked(template: Template) -> Template:
    path = template.path
    if not set(template.answer) & {"json", "text"}:
        raise TemplateError(f"{path}: [answer] needs a `json` or a `text` entry")
    used: set[str] = set()
    texts = {"system": template.system, "user": template.user}
    texts |= {f"context.{k}": v for k, v in template.contexts.items()}
    texts |= {f"evidence.{k}": v for k, v in template.evidence.items()}
    texts |= {f"answer.{k}": v for k, v in template.answer.items()}
    for key, text in texts.items():
        allowed = set(CLAIM_FIELDS) | ALWAYS | _PARTS.get(key, set())
        if key.startswith("evidence."):
            allowed.add("evidence_text")
        names = placeholders(text, f"{path}: {key}")
        unknown = names - allowed
        if unknown:
            raise TemplateError(
                f"{path}: {key} uses unknown placeholder(s) "
                f"{', '.join('{' + n + '}' for n in sorted(unknown))};"
                f" known: {', '.join(sorted(allowed))}"
            )
        used |= names & set(CLAIM_FIELDS)
    return Template(**{**template.__dict__, "fields_used": frozenset(used)})


def placeholders(text: str, where: str) -> set[str]:
    """The {names} a text uses (doubled braces are literal)."""
    try:
        names = {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
    except ValueError as error:
        raise TemplateError(f"{where}: bad braces ({error}); write {{{{ and }}}} for literal braces") from None
    bad = [n for n in names if not n.isidentifier()]
    if bad:
        raise TemplateError(f"{where}: placeholders must be plain names, not {bad[0]!r}")
    return names


class _Reader:
    """Typed access to a template's keys with errors that name the file and key."""

    def __init__(self, path: Path, data: dict[str, Any]):
        self.path, self.data = path, data

    def _get(self, key: str, kind: type, default: Any):
        if key not in self.data:
            if default is None:
                raise TemplateError(f"{self.path}: missing `{key}`")
            return default
        value = self.data[key]
        if not isinstance(value, kind):
            raise TemplateError(f"{self.path}: `{key}` must be a {kind.__name__}")
        return value

    def text(self, key: str, default: str | None = None) -> str:
        return self._get(key, str, default)

    def flag(self, key: str, default: bool) -> bool:
        return self._get(key, bool, default)

    def labels(self, key: str, default: list[str] | None = None) -> list[str]:
        value = self._get(key, list, default)
        if not value or not all(isinstance(v, str) and v.strip() for v in value):
            raise TemplateError(f"{self.path}: `{key}` must be a non-empty list of names")
        return list(value)

    def table(self, key: str) -> dict[str, str]:
        value = self._get(key, dict, {})
        for name, text in value.items():
            if not isinstance(text, str):
                raise TemplateError(f"{self.path}: [{key}] {name} must be text")
        return dict(value)
