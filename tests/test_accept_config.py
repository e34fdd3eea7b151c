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
