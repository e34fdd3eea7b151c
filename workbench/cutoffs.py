"""Models' knowledge cutoffs: a table of data (model_cutoffs.toml beside this module) that a
user extends or corrects under [model_cutoffs] in the config file.

Wherever a cutoff date is asked for (--cutoff, the metrics view's cutoff, `curate
--after-cutoff`), a model's name works too: it stands for the first day the model cannot
know, the day after its cutoff (a cutoff of 2023-10 splits at 2023-11-01).

    split_date("2024-06-01")          -> "2024-06-01"   (a date is used as it is)
    split_date("gpt-4o")              -> "2023-11-01"
    find_cutoff("openai:gpt-4o-2024-08-06").model -> "gpt-4o"
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from workbench.errors import WorkbenchError

TABLE_FILE = Path(__file__).with_name("model_cutoffs.toml")
BUILT_IN = "built-in"
_CUTOFF = re.compile(r"^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$")


class CutoffError(WorkbenchError, ValueError):
    """A cutoff that is neither a date nor a model the table knows."""


@dataclass(frozen=True)
class ModelCutoff:
    """One model's knowledge cutoff."""

    model: str
    cutoff: str
    """As the table writes it: a year, a month (2023-10) or a day (2024-09-30)."""
    origin: str
    """built-in, or the config file that added or changed it."""

    @property
    def first_day_after(self) -> str:
        """The first day the model cannot know (what a before/after split uses)."""
        return first_day_after(self.cutoff)


def first_day_after(cutoff: str) -> str:
    """2023-10 -> 2023-11-01; 2024-09-30 -> 2024-10-01; 2023 -> 2024-01-01."""
    year, month, day = _parts(cutoff)
    if day is not None:
        return (date(year, month, day) + timedelta(days=1)).isoformat()
    if month is not None:
        return date(year + month // 12, month % 12 + 1, 1).isoformat()
    return date(year + 1, 1, 1).isoformat()


def _parts(cutoff: str) -> tuple[int, int | None, int | None]:
    match = _CUTOFF.match(cutoff.strip())
    if not match:
        raise CutoffError(f"cutoff {cutoff!r} is not a year, a month (2023-10) or a day (2024-09-30)")
    year, month, day = (int(part) if part else None for part in match.groups())
    try:
        date(year, month or 1, day or 1)
    except ValueError:
        raise CutoffError(f"cutoff {cutoff!r} is not a real date") from None
    return year, month, day


def cutoff_table(extra: dict[str, str] | None = None, origin: str = "config") -> dict[str, ModelCutoff]:
    """The built-in table with `extra` (default: the config's [model_cutoffs]) laid over it."""
    if extra is None:
        from workbench.config import config_path, setting

        extra, origin = setting("model_cutoffs"), str(config_path())
    table = {name.lower(): ModelCutoff(name.lower(), value, BUILT_IN) for name, value in _built_in().items()}
    for name, value in extra.items():
        try:
            _parts(str(value))
        except CutoffError as error:
            raise CutoffError(f"{origin}: [model_cutoffs] {name!r}: {error}") from None
        table[name.strip().lower()] = ModelCutoff(name.strip().lower(), str(value).strip(), origin)
    return table


def _built_in() -> dict[str, str]:
    return tomllib.loads(TABLE_FILE.read_text(encoding="utf-8"))["models"]


def model_name(model: str) -> str:
    """The bare model name of a run's model: openai:gpt-4o -> gpt-4o, gguf:/m/SmolLM2.gguf -> smollm2,
    openai-compatible:meta-llama/Llama-3.1-8B -> llama-3.1-8b."""
    scheme, colon, rest = model.partition(":")
    name = rest if colon else scheme
    if scheme == "gguf" and colon:
        name = Path(name).name.removesuffix(".gguf")
    return name.rsplit("/", 1)[-1].strip().lower()


def find_cutoff(model: str, table: dict[str, ModelCutoff] | None = None) -> ModelCutoff | None:
    """The table's entry for a model: its exact name, else the longest name it starts with
    (followed by - . _ or @), else None."""
    table = cutoff_table() if table is None else table
    for name in dict.fromkeys([model.strip().lower(), model_name(model)]):
        if name in table:
            return table[name]
        known = [key for key in table if name.startswith(key) and name[len(key) :][:1] in ("-", ".", "_", "@")]
        if known:
            return table[max(known, key=len)]
    return None


def split_date(text: str, table: dict[str, ModelCutoff] | None = None) -> str:
    """A cutoff as typed: a date (YYYY-MM-DD, used as it is) or a model's name (the day after
    its cutoff); CutoffError names the closest models when it is neither."""
    text = text.strip()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        try:
            return date.fromisoformat(text).isoformat()
        except ValueError:
            raise CutoffError(f"cutoff {text!r} is not a date (no such day)") from None
    found = find_cutoff(text, table)
    if found is None:
        raise CutoffError(unknown_model_message(text, table))
    return found.first_day_after


def unknown_model_message(text: str, table: dict[str, ModelCutoff] | None = None) -> str:
    import difflib

    table = cutoff_table() if table is None else table
    close = difflib.get_close_matches(model_name(text), list(table), n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return (
        f"{text!r} is neither a date like 2024-06-01 nor a model whose knowledge cutoff the workbench knows"
        f"{hint} (`workbench cutoffs` lists them; add yours under [model_cutoffs] in the config)"
    )


__all__ = ["CutoffError", "ModelCutoff", "cutoff_table", "find_cutoff", "first_day_after", "model_name", "split_date"]
