"""A broken config file is one clear line naming the file and the setting, never a
traceback, and never repeats a value (it may be an API key)."""

from __future__ import annotations

import dataclasses

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.cli import main
from workbench.config import Settings


@pytest.mark.parametrize(
    "text,message",
    [
        ('keys = "sk-SECRET-1"\n', "keys: Input should be a valid dictionary"),
        ('[keys]\nopenai = ["sk-SECRET-2"]\n', "keys.openai: Input should be a valid string"),
        ("annotator = \n", "not valid TOML: Invalid value (at line 1"),
    ],
)
def test_a_broken_config_is_one_line_without_the_value(tmp_path, monkeypatch, text, message):
    config = tmp_path / "config.toml"
    config.write_text(text, encoding="utf-8")
    monkeypatch.setenv("WORKBENCH_CONFIG", str(config))
    result = CliRunner().invoke(main, ["cutoffs"])  # reads the whole config (reading commands: their settings)
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


@pytest.mark.parametrize(
    "variable,value,message",
    [
        ("WORKBENCH_KEYS", '{"openai": sk-SECRET-3}', "WORKBENCH_KEYS: not valid JSON"),
        ("WORKBENCH_SEARCH_FETCH_PRIVATE", "SECRET-maybe", "search_fetch_private: Input should be a valid boolean"),
    ],
)
def test_a_broken_variable_is_one_line_without_the_value(monkeypatch, variable, value, message):
    monkeypatch.setenv(variable, value)
    result = CliRunner().invoke(main, ["cutoffs"])  # reads the whole config (reading commands: their settings)
    assert result.exit_code == 1
    assert result.output.startswith("Error: ") and message in result.output
    assert "SECRET" not in result.output and "Traceback" not in result.output


@pytest.mark.parametrize(
    "text,message",
    [
        ('annotater = "ana"\n', ", line 1: annotater: not a setting here (did you mean annotator?)"),
        ('annotator = "ana"\nthme = "x"\n', ", line 2: thme: not a setting here (did you mean theme?)"),
        ('theme = "nord"\n\n[themez]\ndark = true\n', ", line 3: themez: not a setting here (did you mean theme?)"),
        (
            '[keymap]\n"claims.flag" = "ctrl+f"\n[prices."openai:gpt-4o"]\ninptu = 2.5\noutput = 10\n',
            ', line 4: prices."openai:gpt-4o".inptu: not a setting here (did you mean input?)',
        ),
        (
            "prices.m.output = 1\nprices.m.input = 1\nprices.m.cached = 1\n",
            ", line 3: prices.m.cached: not a setting here (did you mean cached_input?)",
        ),
        ("zzz = 1\n", ", line 1: zzz: not a setting here (a typo?)"),
    ],
)
def test_an_unknown_key_at_any_level_is_named_with_its_line(tmp_path, monkeypatch, text, message):
    config = tmp_path / "config.toml"
    config.write_text(text, encoding="utf-8")
    monkeypatch.setenv("WORKBENCH_CONFIG", str(config))
    result = CliRunner().invoke(main, ["cutoffs"])  # reads the whole config (reading commands: their settings)
    assert result.exit_code == 1
    assert result.output == f"Error: {config}{message}\n"


SETTING_LINES = [
    'annotator = "ana"',
    'theme = "nord"',
    'searxng_url = "http://127.0.0.1:8888"',
    'images = "off"',
    'models_dirs = ["~/models"]',
    "search_fetch_private = true",
]
KNOWN = {field.name for field in dataclasses.fields(Settings)}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lines=st.permutations(SETTING_LINES),
    at=st.integers(0, len(SETTING_LINES)),
    key=st.from_regex(r"[a-z][a-z0-9_]{0,15}", fullmatch=True).filter(lambda key: key not in KNOWN),
    table=st.booleans(),
)
def test_any_unknown_key_is_refused_at_its_line(tmp_path, monkeypatch, lines, at, key, table):
    """Whatever the key and wherever it stands among real settings (a value or a table at the
    end), the file is refused naming that key and the line it is on."""
    from workbench.config import ConfigError, load_settings

    written = [*lines[:at], f"{key} = 1", *lines[at:]] if not table else [*lines, f"[{key}]", "a = 1"]
    config = tmp_path / "config.toml"
    config.write_text("\n".join(written) + "\n", encoding="utf-8")
    monkeypatch.setenv("WORKBENCH_CONFIG", str(config))
    with pytest.raises(ConfigError) as refused:
        load_settings()
    line = len(lines) + 1 if table else at + 1
    assert str(refused.value).startswith(f"{config}, line {line}: {key}: not a setting here (")


def test_a_reading_command_checks_only_the_settings_it_reads(tmp_path, monkeypatch):
    """`claims` reads no setting: a typo elsewhere in the file is said by the commands that
    read the file, not by it (validating the whole file costs longer than it runs); `prompts`
    reads prompts_dir, and a broken file that gives it is said."""
    config = tmp_path / "config.toml"
    config.write_text('thme = "x"\n', encoding="utf-8")
    monkeypatch.setenv("WORKBENCH_CONFIG", str(config))
    assert CliRunner().invoke(main, ["filter-help"]).exit_code == 0
    said = CliRunner().invoke(main, ["cutoffs"])
    assert said.exit_code == 1 and "thme: not a setting here (did you mean theme?)" in said.output
    config.write_text('thme = "x"\nprompts_dir = "/nowhere"\n', encoding="utf-8")
    said = CliRunner().invoke(main, ["prompts"])
    assert said.exit_code == 1 and "thme: not a setting here" in said.output


def test_a_setting_left_to_its_default_is_read_without_the_others(tmp_path, monkeypatch):
    """A setting the file does not give is its default, made alone: reading prompts_dir does
    not look up the login name (the annotator's default), nor any other default."""
    import workbench.config as config_module

    config = tmp_path / "config.toml"
    config.write_text('theme = "nord"\n', encoding="utf-8")
    monkeypatch.setenv("WORKBENCH_CONFIG", str(config))

    def no_login_name():
        raise AssertionError("the login name was looked up")

    monkeypatch.setattr(config_module, "_login_name", no_login_name)
    assert config_module.setting("prompts_dir") is None
    assert config_module.setting("models_dirs") == []
    assert config_module.setting("theme") == "nord"
    with pytest.raises(AttributeError, match="no setting 'thme'"):
        config_module.setting("thme")
