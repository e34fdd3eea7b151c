"""Import profiles: a named field mapping in a small TOML file, one per format.

The built-in ones live in workbench/importers/profiles/ (data, like prompts/); a user's
own go in the `profiles/` folder beside the config file (or `profiles_dir` in it), and a
file there with a built-in's name takes its place. `workbench profiles` lists them;
`workbench import --map ... --save-profile NAME` writes one.

Auto-detection tries each profile's `detect` rule on the file's first record (or, for a
CSV/TSV without a header, `detect_row` on its first row) and picks the one that fits,
preferring the rule that names most fields; a tie between two profiles is not a pick.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from workbench.importers.mapping import FieldMapping, MappingError, mapping_from_dict

BUILTIN_DIR = Path(__file__).parent / "profiles"
FALLBACK = "workbench"
"""The profile a file no other profile fits is read with (our own schema)."""
_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")


@dataclass(frozen=True)
class ProfileFile:
    name: str
    path: Path
    builtin: bool


def user_dir() -> Path:
    """Where a user's profiles live: `profiles_dir` in the config, else profiles/ beside it."""
    from workbench.config import config_path, setting

    configured = setting("profiles_dir")
    return Path(configured).expanduser() if configured else config_path().parent / "profiles"


def available(user: Path | None = None) -> dict[str, ProfileFile]:
    """Every profile by name (a user's file wins over a built-in of the same name)."""
    found = {path.stem: ProfileFile(path.stem, path, True) for path in sorted(BUILTIN_DIR.glob("*.toml"))}
    folder = user if user is not None else user_dir()
    if folder.is_dir():
        found.update({path.stem: ProfileFile(path.stem, path, False) for path in sorted(folder.glob("*.toml"))})
    return found


def load_profile(name: str, user: Path | None = None) -> FieldMapping:
    """The mapping a profile names; MappingError listing the profiles there are if none."""
    profiles = available(user)
    if name not in profiles:
        raise MappingError(
            f"no import profile {name!r}; profiles: {', '.join(sorted(profiles))}"
            f" (your own go in {user if user is not None else user_dir()})"
        )
    return read_profile(profiles[name].path)


def read_profile(path: Path) -> FieldMapping:
    """A profile file read and checked (MappingError names the file and what is wrong)."""
    try:
        text = path.read_text(encoding="utf-8")
        spec = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise MappingError(f"{path}: not a readable profile: {error}") from None
    try:
        mapping = mapping_from_dict(spec, path.stem)
    except MappingError as error:
        raise MappingError(f"{path}: {error}") from None
    mapping.name = path.stem
    mapping.source_text = text
    return mapping


def detect(
    first: dict | None, first_row: list[str] | None, user: Path | None = None, kind: str = "claims"
) -> tuple[FieldMapping | None, list[str]]:
    """The profile (of this kind) the first record or headerless row fits, and all that fit."""
    scored: list[tuple[int, str]] = []
    for name, profile in available(user).items():
        if name == FALLBACK:
            continue
        mapping = read_profile(profile.path)
        if mapping.kind != kind:
            continue
        score = _fit(mapping, first, first_row)
        if score:
            scored.append((score, name))
    if not scored:
        return None, []
    scored.sort(reverse=True)
    names = [name for _, name in scored]
    best = [name for score, name in scored if score == scored[0][0]]
    if len(best) > 1:
        return None, names
    return load_profile(best[0], user), names


def _fit(mapping: FieldMapping, first: dict | None, first_row: list[str] | None) -> int:
    """How well a profile's rules fit (0: not at all; more fields named: a better fit)."""
    if first_row is not None:
        return _fit_row(mapping, first_row)
    if first is None:
        return 0
    keys = set(first)
    fits = [len(fields) for fields in mapping.detect if set(fields) <= keys]
    if not fits:
        return 0
    for field, pattern in mapping.detect_match.items():
        if not re.search(pattern, str(first.get(field, ""))):
            return 0
    return max(fits)


def _fit_row(mapping: FieldMapping, row: list[str]) -> int:
    columns = mapping.read.get("columns")
    if not columns or not mapping.detect_row or not len(columns) - 2 <= len(row) <= len(columns) + 2:
        return 0
    for position, pattern in mapping.detect_row.items():
        index = int(position)
        if index >= len(row) or not re.search(pattern, row[index].strip()):
            return 0
    return len(mapping.detect_row)


def save_profile(name: str, text: str, user: Path | None = None) -> Path:
    """Write a user's profile (the TOML `--save-profile` made); returns its path."""
    if not _NAME.match(name):
        raise MappingError(f"profile name {name!r}: use lower-case letters, digits, - _ and .")
    folder = user if user is not None else user_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    read_profile(path)  # what was written reads back
    return path


def profile_toml(spec: dict, name: str, description: str = "") -> str:
    """A profile's tables as TOML text (what --save-profile writes; read back by read_profile)."""
    lines = [
        f"# Saved by `workbench import ... --save-profile {name}`.",
        f"name = {_toml(name)}",
        f"description = {_toml(description or spec.get('description') or 'a saved field mapping')}",
    ]
    for key in ("transform", "explode", "merge_rows", "keep_unknown", "detect", "detect_row", "detect_match"):
        if key in spec:
            lines.append(f"{key} = {_toml(spec[key])}")
    for table in ("read", "fields", "attributes", "labels"):
        if spec.get(table):
            lines += ["", f"[{table}]"] + [f"{_key(k)} = {_toml(v)}" for k, v in spec[table].items()]
    for group in spec.get("evidence", []):
        lines += ["", "[[evidence]]"] + [
            f"{_key(k)} = {_toml(v)}" for k, v in group.items() if not (k == "attributes" and isinstance(v, dict))
        ]
        if isinstance(group.get("attributes"), dict) and group["attributes"]:
            lines += ["", "[evidence.attributes]"] + [f"{_key(k)} = {_toml(v)}" for k, v in group["attributes"].items()]
    return "\n".join(lines) + "\n"


def _key(key: str) -> str:
    return key if re.match(r"^[A-Za-z0-9_-]+$", key) else _toml(key)


def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_toml(v)}" for k, v in value.items()) + " }"
    raise MappingError(f"cannot write {value!r} in a profile")
