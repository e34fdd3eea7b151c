"""The prompts/ folder and the user's prompts_dir: the one place their files are found and read.

Every template is a TOML file named after the template. The built-in ones are in prompts/
at the top of the checkout; a user adds or overrides one by putting a file of the same name
in Settings.prompts_dir (a file there wins over the built-in one). Verdict templates
(templates.py), task templates (tasks.py) and the search agent's wording
(workbench.search.protocol) are all found and read here, so they agree on which file wins
and say the same thing about a file that is not valid TOML.
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.errors import WorkbenchError

BUILTIN_DIR = Path(__file__).resolve().parents[2] / "prompts"


class TemplateError(WorkbenchError, ValueError):
    """A template file that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class TemplateFile:
    """One template file as read: its keys, and the hash of its bytes (runs record it)."""

    path: Path
    data: dict[str, Any]
    content_hash: str


def template_dirs(extra: Path | None = None) -> list[Path]:
    """Where templates are looked for, later folders winning."""
    return [BUILTIN_DIR] + ([Path(extra).expanduser()] if extra else [])


def template_files(name: str, extra: Path | None = None) -> list[Path]:
    """Every file called NAME.toml, the one that wins first (the user's, then the built-in)."""
    return [folder / f"{name}.toml" for folder in reversed(template_dirs(extra)) if (folder / f"{name}.toml").is_file()]


def read_template_file(path: Path) -> TemplateFile:
    """Read one template file; TemplateError (naming the file) if it is not valid TOML."""
    raw = path.read_bytes()
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise TemplateError(f"{path}: not valid TOML: {error}") from None
    return TemplateFile(path, data, hashlib.sha256(raw).hexdigest())


def available_templates(extra: Path | None = None, kind: str = "verdict") -> dict[str, Path]:
    """Template name (file stem) -> file, for templates of one kind.

    Verdict templates (the default kind) are what `--prompt` picks from; other kinds
    (e.g. the contamination pipeline's `article` and `extract`) declare `kind = "..."`.
    """
    found: dict[str, Path] = {}
    for folder in template_dirs(extra):
        if folder.is_dir():
            found.update({path.stem: path for path in sorted(folder.glob("*.toml")) if template_kind(path) == kind})
    return found


def template_kind(path: Path) -> str:
    """A template file's `kind` key (default "verdict"; an unreadable file counts as a
    verdict template, so that reading it reports what is wrong)."""
    try:
        kind = tomllib.loads(path.read_text(encoding="utf-8")).get("kind", "verdict")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return "verdict"
    return kind if isinstance(kind, str) else "verdict"
