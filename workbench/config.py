"""User settings: environment variables (WORKBENCH_*) over a TOML config file.

The config file is `$WORKBENCH_CONFIG`, else `~/.config/workbench/config.toml`:

    annotator = "ana"
    theme = "textual-dark"
    [keys]                 # API keys live here or in the environment, never in the database
    openai = "sk-..."
    anthropic = "sk-ant-..."
    [keymap]               # binding id -> keys, see the TUI help screen
    "claims.flag" = "ctrl+f"
    [model_cutoffs]        # knowledge cutoffs, beside the built-in table
    "my-finetune" = "2025-03"
    [ratings]              # fact-checkers' ratings, beside the built-in rating map
    "Bogus" = "false"
"""

from __future__ import annotations

import getpass
import os
import tomllib
from pathlib import Path
from typing import Any

from pydantic import Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from workbench.errors import WorkbenchError


def config_path() -> Path:
    """Where the config file is looked for."""
    explicit = os.environ.get("WORKBENCH_CONFIG")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "workbench" / "config.toml"


class Settings(BaseSettings):
    """Everything a user can configure."""

    model_config = SettingsConfigDict(env_prefix="WORKBENCH_", extra="ignore", use_attribute_docstrings=True)

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
    images: str = "auto"
    """How the TUI draws claims' images: auto (Kitty or Sixel graphics where the terminal
    has them, half-blocks elsewhere), tgp, sixel, halfcell, unicode, or off."""

    @classmethod
    def settings_customise_sources(cls, settings_cls, init_settings, env_settings,
                                   dotenv_settings, file_secret_settings):
        # The environment beats the config file (passed in as init values).
        return (env_settings, init_settings)


def _login_name() -> str:
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
    values: dict[str, Any] = {}
    path = config_path()
    try:
        if path.is_file():
            values = tomllib.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    except OSError as error:  # e.g. a folder on the way that this user may not enter
        raise ConfigError(f"{path}: cannot be read ({error.strerror or error})") from None
    try:
        return Settings(**values)
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'settings'}: {e['msg']}" for e in error.errors())
        raise ConfigError(f"{path} (or a WORKBENCH_* variable): {problems}") from None


def api_key(provider: str, settings: Settings | None = None) -> str | None:
    """The key for `openai` or `anthropic`: the environment first, then the config file."""
    env_name = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}.get(provider)
    if env_name and os.environ.get(env_name):
        return os.environ[env_name]
    settings = settings or load_settings()
    secret = settings.keys.get(provider)
    return secret.get_secret_value() if secret else None
