"""User settings: environment variables (WORKBENCH_*) over a TOML config file.

The config file is `$WORKBENCH_CONFIG`, else `~/.config/workbench/config.toml`:

    annotator = "ana"
    theme = "textual-dark"
    [keys]                 # API keys live here or in the environment, never in the database
    openai = "sk-..."
    anthropic = "sk-ant-..."
    models_dirs = ["~/models"]   # GGUF folders for `workbench models` and gguf:NAME
    [prices."openai-compatible:my-model"]   # USD per million tokens (see usage/prices.toml)
    input = 0.20
    output = 0.80
    [keymap]               # binding id -> keys, see the TUI help screen
    "claims.flag" = "ctrl+f"
    [model_cutoffs]        # knowledge cutoffs, beside the built-in table
    "my-finetune" = "2025-03"
    [ratings]              # fact-checkers' ratings, beside the built-in rating map
    "Bogus" = "false"

Every command checks the file and the WORKBENCH_* variables. Values plainly of their
setting's type (a string for a string, a table of strings for a table of strings) are taken
as they are; anything else goes to pydantic, which converts it or names what is wrong. So a
command pays for pydantic only when a setting needs it (importing it costs more than most
commands take to run).
"""

from __future__ import annotations

import copy
import datetime
import functools
import json
import os
import re
import typing
from pathlib import Path
from typing import Any

from store.lazy_model import Field, LazyModel
from workbench.errors import WorkbenchError

ENV_PREFIX = "WORKBENCH_"


def config_path() -> Path:
    """Where the config file is looked for."""
    explicit = os.environ.get("WORKBENCH_CONFIG")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "workbench" / "config.toml"


class SecretStr:
    """An API key as the settings hold it: never shown (repr and str are stars), read with
    get_secret_value(). pydantic validates it as a string."""

    plain_from_str = True  # a string is a valid one (taken without pydantic: store/lazy_model.py)
    __slots__ = ("_value",)

    def __init__(self, value: str):
        self._value = value

    def get_secret_value(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "SecretStr('**********')" if self._value else "SecretStr('')"

    def __str__(self) -> str:
        return "**********" if self._value else ""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SecretStr) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    @classmethod
    def __get_pydantic_core_schema__(cls, source, handler):
        from pydantic_core import core_schema

        return core_schema.no_info_after_validator_function(
            cls, core_schema.str_schema(),
            serialization=core_schema.plain_serializer_function_ser_schema(str))


class ModelPrice(LazyModel):
    """A model's price in US dollars per million tokens (a [prices."MODEL"] table of the
    config; the built-in table is checked without pydantic, by workbench/usage/prices.py)."""

    model_config = {"extra": "forbid"}

    input: float = Field(ge=0)
    """Prompt tokens."""
    output: float = Field(ge=0)
    """Generated tokens."""
    cached_input: float | None = Field(default=None, ge=0)
    """Prompt tokens served from the provider's prompt cache (missing: the input price)."""
    batch_input: float | None = Field(default=None, ge=0)
    """Prompt tokens through the provider's batch API (missing: the input price)."""
    batch_output: float | None = Field(default=None, ge=0)
    """Generated tokens through the batch API (missing: the output price)."""
    as_of: datetime.date | None = None
    """When the price was read off the provider's page."""


class Settings(LazyModel):
    """Everything a user can configure (declared as a pydantic model: store/lazy_model.py)."""

    model_config = {"extra": "ignore"}

    annotator: str = Field(default_factory=lambda: _login_name())
    """Name recorded on flags and triage entries."""
    theme: str | None = None
    """A Textual theme name (the command palette lists them)."""
    keymap: dict[str, str] = Field(default_factory=dict)
    """Binding id -> comma-separated keys, overriding the defaults."""
    keys: dict[str, SecretStr] = Field(default_factory=dict)
    """API keys from the config file, by provider (openai, anthropic)."""
    prompts_dir: Path | None = None
    """An extra folder of prompt templates (added to the built-in ones)."""
    profiles_dir: Path | None = None
    """A folder of import profiles (default: profiles/ beside the config file)."""
    searxng_url: str | None = None
    """A SearXNG instance for search runs (--search searxng)."""
    search_blocked_domains: list[str] | None = None
    """Domains search runs never show the model (default: well-known fact-checkers)."""
    search_fetch_private: bool = False
    """Let a search run fetch images from private and loopback addresses (off: a search
    result cannot make the workbench reach into your own network)."""
    model_cutoffs: dict[str, str] = Field(default_factory=dict)
    """Model name -> knowledge cutoff (2025-03 or 2025-03-31), added to the built-in table
    (`workbench cutoffs`); --cutoff and `curate --after-cutoff` take these names."""
    ratings: dict[str, str] = Field(default_factory=dict)
    """Fact-checkers' textual ratings -> a rating class (false, mostly-false, mixed, misleading,
    mostly-true, true, unproven, excluded), added to the built-in rating map (`workbench ratings`)."""
    fetch_user_agent: str | None = None
    """The User-Agent `workbench articles fetch` sends (default: the workbench's own, naming it)."""
    models_dirs: list[Path] = Field(default_factory=list)
    """Folders of GGUF files to list beside the Hugging Face cache, LM Studio and Ollama
    (`workbench models`; `--model gguf:NAME` finds them by name)."""
    prices: dict[str, ModelPrice] = Field(default_factory=dict)
    """Model spec -> price, over the built-in table (workbench/usage/prices.toml)."""
    images: str = "auto"
    """How the TUI draws claims' images: auto (Kitty or Sixel graphics where the terminal
    has them, half-blocks elsewhere), tgp, sixel, halfcell, unicode, or off."""


def _login_name() -> str:
    import getpass  # only when no annotator is configured

    try:
        return getpass.getuser()
    except Exception:  # no login name in some containers
        return "annotator"


class ConfigError(WorkbenchError):
    """A config file or WORKBENCH_* variable that cannot be used.

    A WorkbenchError, so every command prints it as one line and exits 1. The message
    names the file and the setting but never repeats the value: it may be an API key.
    """


def load_settings() -> Settings:
    """Settings from the config file, overridden by WORKBENCH_* variables."""
    path = config_path()
    values = _merged(_file_values(path), _environment_values())
    try:
        return Settings.model_validate(values)
    except ValueError as error:  # pydantic's ValidationError (pydantic is loaded only if a value needs it)
        from pydantic import ValidationError

        if not isinstance(error, ValidationError):
            raise
        raise ConfigError(f"{path} (or a WORKBENCH_* variable): {validation_problems(error)}") from None


def validation_problems(error) -> str:
    """Each problem of a pydantic ValidationError as `key.path: what is wrong` (keys that are
    not bare words quoted, as TOML writes them: prices."openai:gpt-4o".inptu), never the value."""
    problems = []
    for problem in error.errors():
        key = ".".join(part if re.fullmatch(r"[A-Za-z0-9_-]+", str(part)) else f'"{part}"'
                       for part in problem["loc"]) or "settings"
        message = "not a setting here (a typo?)" if problem["type"] == "extra_forbidden" else problem["msg"]
        problems.append(f"{key}: {message}")
    return "; ".join(problems)


def _file_values(path: Path) -> dict[str, Any]:
    try:
        if not path.is_file():
            return {}
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    except OSError as error:  # e.g. a folder on the way that this user may not enter
        raise ConfigError(f"{path}: cannot be read ({error.strerror or error})") from None
    import tomllib  # only when there is a file to read

    try:
        return copy.deepcopy(_parsed(text))  # a copy: nothing a caller does reaches the cache
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None


@functools.lru_cache(maxsize=4)
def _parsed(text: str) -> dict[str, Any]:
    """The file's tables, parsed once per text (a command may ask for its settings often:
    `workbench profiles` does for every profile)."""
    import tomllib

    return tomllib.loads(text)


def _environment_values() -> dict[str, Any]:
    """WORKBENCH_<SETTING> (in any case) for every setting; a setting that takes a list or a
    table takes it as JSON (WORKBENCH_KEYMAP='{"claims.flag": "ctrl+f"}')."""
    given = {name.lower(): value for name, value in os.environ.items() if name.upper().startswith(ENV_PREFIX)}
    values = {}
    for name in Settings.field_names():
        variable = f"{ENV_PREFIX}{name}".lower()
        if variable not in given:
            continue
        value = given[variable]
        if _takes_json(name):
            try:
                value = json.loads(value)
            except ValueError as error:  # the message never repeats the value: it may be a key
                raise ConfigError(f"{ENV_PREFIX}{name.upper()}: not valid JSON ({error.msg},"
                                  f" at character {error.pos})") from None
            if value is None:  # JSON null: as if unset (pydantic-settings' rule)
                continue
        values[name] = value
    return values


def _takes_json(name: str) -> bool:
    annotation = Settings.field_type(name)
    kinds = typing.get_args(annotation) if typing.get_origin(annotation) in (typing.Union, type(int | None)) \
        else (annotation,)
    return any((typing.get_origin(kind) or kind) in (dict, list, set, tuple, frozenset) for kind in kinds)


def _merged(file_values: dict[str, Any], environment: dict[str, Any]) -> dict[str, Any]:
    """The environment over the file; tables are merged key by key (a variable giving one key
    keeps the file's others)."""
    merged = dict(file_values)
    for name, value in environment.items():
        if isinstance(value, dict) and isinstance(merged.get(name), dict):
            value = _merged(merged[name], value)
        merged[name] = value
    return merged


def api_key(provider: str, settings: Settings | None = None) -> str | None:
    """The key for `openai` or `anthropic`: the environment first, then the config file."""
    env_name = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}.get(provider)
    if env_name and os.environ.get(env_name):
        return os.environ[env_name]
    settings = settings or load_settings()
    secret = settings.keys.get(provider)
    return secret.get_secret_value() if secret else None
