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

Every command checks the file and the WORKBENCH_* variables with pydantic (types, limits,
no unknown key at any level: a typo is named with its line and the setting meant). With no
file and no variable there is nothing to check, and pydantic is not imported (it costs a
reading command about as much as its own work).
"""

from __future__ import annotations

import copy
import dataclasses
import datetime
import functools
import os
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from workbench.config_problems import field_types, problems_in
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
    get_secret_value(). pydantic validates it as a string (its core-schema hook below)."""

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
            cls, core_schema.str_schema(), serialization=core_schema.plain_serializer_function_ser_schema(str)
        )


_FORBID_UNKNOWN = {"extra": "forbid"}
"""pydantic's config for the settings' tables (a plain dict: pydantic reads it when it checks)."""


class AtLeast:
    """A number's lower bound, checked by pydantic's own `ge` when a value is validated
    (pydantic's core-schema hook: annotated_types' Ge would cost every command 60 ms to import)."""

    def __init__(self, bound: float):
        self.bound = bound

    def __get_pydantic_core_schema__(self, source, handler):
        from pydantic_core import core_schema

        return core_schema.float_schema(ge=self.bound)


Dollars = Annotated[float, AtLeast(0)]


@dataclass(kw_only=True)
class ModelPrice:
    """A model's price in US dollars per million tokens (a [prices."MODEL"] table of the
    config; the built-in table is checked without pydantic, by workbench/usage/prices.py)."""

    __pydantic_config__ = _FORBID_UNKNOWN

    input: Dollars
    """Prompt tokens."""
    output: Dollars
    """Generated tokens."""
    cached_input: Dollars | None = None
    """Prompt tokens served from the provider's prompt cache (missing: the input price)."""
    batch_input: Dollars | None = None
    """Prompt tokens through the provider's batch API (missing: the input price)."""
    batch_output: Dollars | None = None
    """Generated tokens through the batch API (missing: the output price)."""
    as_of: datetime.date | None = None
    """When the price was read off the provider's page."""


@dataclass(kw_only=True)
class Settings:
    """Everything a user can configure (checked by pydantic when there is a value to check)."""

    __pydantic_config__ = _FORBID_UNKNOWN

    annotator: str = field(default_factory=lambda: _login_name())
    """Name recorded on flags and triage entries."""
    theme: str | None = None
    """A Textual theme name (the command palette lists them)."""
    keymap: dict[str, str] = field(default_factory=dict)
    """Binding id -> comma-separated keys, overriding the defaults."""
    keys: dict[str, SecretStr] = field(default_factory=dict)
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
    model_cutoffs: dict[str, str] = field(default_factory=dict)
    """Model name -> knowledge cutoff (2025-03 or 2025-03-31), added to the built-in table
    (`workbench cutoffs`); --cutoff and `curate --after-cutoff` take these names."""
    ratings: dict[str, str] = field(default_factory=dict)
    """Fact-checkers' textual ratings -> a rating class (false, mostly-false, mixed, misleading,
    mostly-true, true, unproven, excluded), added to the built-in rating map (`workbench ratings`)."""
    fetch_user_agent: str | None = None
    """The User-Agent `workbench articles fetch` sends (default: the workbench's own, naming it)."""
    models_dirs: list[Path] = field(default_factory=list)
    """Folders of GGUF files to list beside the Hugging Face cache, LM Studio and Ollama
    (`workbench models`; `--model gguf:NAME` finds them by name)."""
    prices: dict[str, ModelPrice] = field(default_factory=dict)
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
    if not values:  # nothing to check: the defaults, without importing pydantic
        return Settings()
    from pydantic import ValidationError

    try:
        return _settings_adapter().validate_python(values)
    except ValidationError as error:
        raise ConfigError(problems_in(path, error, Settings)) from None


def setting(name: str) -> Any:
    """One setting, for a command that reads only it: its default when neither the config file
    nor a WORKBENCH_* variable gives it (read with tomllib alone: no pydantic to import), else
    from the whole file checked by pydantic, as load_settings does (a typo anywhere is said)."""
    values = _merged(_file_values(config_path()), _environment_values())
    if name not in values:
        return _default(name)
    return getattr(load_settings(), name)


def _default(name: str) -> Any:
    """A setting's default, made alone (Settings() would look up the login name, and more)."""
    found = next((f for f in dataclasses.fields(Settings) if f.name == name), None)
    if found is None:
        raise AttributeError(f"no setting {name!r}")
    return found.default_factory() if found.default is dataclasses.MISSING else found.default


@functools.cache
def _settings_adapter():
    from pydantic import TypeAdapter

    return TypeAdapter(Settings)


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
    for name in field_types(Settings):
        variable = f"{ENV_PREFIX}{name}".lower()
        if variable not in given:
            continue
        value = given[variable]
        if _takes_json(name):
            import json  # only for a WORKBENCH_* variable holding JSON

            try:
                value = json.loads(value)
            except ValueError as error:  # the message never repeats the value: it may be a key
                raise ConfigError(
                    f"{ENV_PREFIX}{name.upper()}: not valid JSON ({error.msg}, at character {error.pos})"
                ) from None
            if value is None:  # JSON null: as if unset (pydantic-settings' rule)
                continue
        values[name] = value
    return values


def _takes_json(name: str) -> bool:
    annotation = field_types(Settings)[name]
    kinds = (
        typing.get_args(annotation)
        if typing.get_origin(annotation) in (typing.Union, type(int | None))
        else (annotation,)
    )
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
