"""A broken config file is one clear line naming the file and the setting, never a
traceback, and never repeats a value (it may be an API key)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from workbench.cli import main


@pytest.mark.parametrize("text,message", [
    ('keys = "sk-SECRET-1"\n', "keys: Input should be a valid dictionary"),
    ('[keys]\nopenai = ["sk-SECRET-2"]\n', "keys.openai: Input should be a valid string"),
    ('annotator = \n', "not valid TOML: Invalid value (at line 1"),
])
def test_a_broken_config_is_one_line_without_the_value(tmp_path, monkeypatch, text, message):
    config = tmp_path / "config.toml"
    config.write_text(text, encoding="utf-8")
    monkeypatch.setenv("WORKBENCH_CONFIG", str(config))
    result = CliRunner().invoke(main, ["prompts"])
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: {config}") and message in result.output
    assert "SECRET" not in result.output and "Traceback" not in result.output


def test_the_environment_beats_the_file_and_adds_to_its_tables(tmp_path, monkeypatch):
    from workbench.config import load_settings

    config = tmp_path / "config.toml"
    config.write_text('theme = "nord"\nsearch_blocked_domains = ["a.org"]\n[keys]\nopenai = "sk-file"\n')
    monkeypatch.setenv("WORKBENCH_CONFIG", str(config))
    monkeypatch.setenv("WORKBENCH_THEME", "gruvbox")
    monkeypatch.setenv("workbench_keys", '{"anthropic": "sk-env"}')  # any case, as before
    monkeypatch.setenv("WORKBENCH_SEARCH_FETCH_PRIVATE", "1")
    monkeypatch.setenv("WORKBENCH_SEARCH_BLOCKED_DOMAINS", "null")  # JSON null: as if unset
    settings = load_settings()
    assert settings.theme == "gruvbox" and settings.search_fetch_private is True
    assert {k: v.get_secret_value() for k, v in settings.keys.items()} == {"openai": "sk-file", "anthropic": "sk-env"}
    assert settings.search_blocked_domains == ["a.org"]


@pytest.mark.parametrize("variable,value,message", [
    ("WORKBENCH_KEYS", '{"openai": sk-SECRET-3}', "WORKBENCH_KEYS: not valid JSON"),
    ("WORKBENCH_SEARCH_FETCH_PRIVATE", "SECRET-maybe", "search_fetch_private: Input should be a valid boolean"),
])
def test_a_broken_variable_is_one_line_without_the_value(monkeypatch, variable, value, message):
    monkeypatch.setenv(variable, value)
    result = CliRunner().invoke(main, ["prompts"])
    assert result.exit_code == 1
    assert result.output.startswith("Error: ") and message in result.output
    assert "SECRET" not in result.output and "Traceback" not in result.output
