"""Settings x templates -> the exact messages a model is sent, and the errors before a run."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from tests.run_fixtures import load_mini
from workbench.cli import main
from workbench.prompting import (
    PromptError,
    TemplateError,
    all_settings,
    available_templates,
    load_template,
    parse_setting,
    render,
    template_settings,
)

TWELVE = [f"{c}{e}" for c in ("claim", "claim+time", "claim+time+qr") for e in ("", "+reference", "+full", "+pages")]


@pytest.fixture
def mini(store, tmp_path):
    ids = load_mini(store, tmp_path)
    return store, [store.claims.get(i) for i in ids]


def user_text(claim, setting, template="jsfactcheck", json_answer=None):
    rendered = render(claim, load_template(template), parse_setting(setting), json_answer)
    return rendered.messages[-1]["content"], rendered


def test_the_twelve_settings_and_qa_are_defined_and_worded():
    assert set(TWELVE) <= set(all_settings())
    assert set(TWELVE) <= set(template_settings(load_template("jsfactcheck")))
    assert "claim+qa" in all_settings()
    assert parse_setting("claim+time+none").name == "claim+time"


@pytest.mark.parametrize("setting", TWELVE)
def test_each_setting_shows_what_it_promises(mini, setting):
    _, claims = mini
    text, _ = user_text(claims[0], setting)
    assert "The Lantern Bridge opened in 1911." in text
    assert ("2024-01-01" in text) == ("time" in setting)
    assert ("«The Lantern Bridge opened in 1911.»" in text) == ("qr" in setting)
    assert ("When did the Lantern Bridge open?" in text) == ("qr" in setting)
    closed_book = not setting.endswith(("+reference", "+full", "+pages"))
    assert ("No sources are provided for the claim below. Rely on what you already know." in text) == closed_book
    assert ('"It is 212 metres long"' in text) == setting.endswith("+reference")
    assert ("[Page 1] Lantern Bridge [history] <https://bridges.example.org/lantern>" in text) == setting.endswith(
        "+pages"
    )


@pytest.mark.parametrize("evidence", ["", "+reference", "+full", "+pages"])
def test_a_claims_three_contexts_share_its_evidence_as_their_prefix(mini, evidence):
    """The default layout puts the material before the claim, so a local model evaluates it once
    for claim, claim+time and claim+time+qr; the claim-first layout shares only the claim."""
    _, claims = mini
    texts = [user_text(claims[0], context + evidence)[0] for context in ("claim", "claim+time", "claim+time+qr")]
    shared = os.path.commonprefix(texts)
    material = texts[0].split("The claim to check:")[0]
    assert len(material) > 100 and shared.startswith(material)
    first = [
        user_text(claims[0], context + evidence, "jsfactcheck-claim-first")[0]
        for context in ("claim", "claim+time", "claim+time+qr")
    ]
    assert len(os.path.commonprefix(first)) < len(material)


def test_full_is_a_6000_character_window_and_pages_600(mini):
    _, claims = mini
    full, _ = user_text(claims[0], "claim+full")
    pages, _ = user_text(claims[0], "claim+pages")
    window = full.split("Page: Lantern Bridge [history] <https://bridges.example.org/lantern>\n", 1)[1]
    assert window.startswith("…") and "212 metres long" in window
    assert len(window.split("\n\n")[0].strip("…")) == 6000
    assert 600 == len(pages.split("<https://bridges.example.org/lantern>\n", 1)[1].split("\n\n")[0].strip("…"))


def test_json_answers_come_with_a_schema_and_text_answers_without(mini):
    _, claims = mini
    text, rendered = user_text(claims[0], "claim")
    assert rendered.json_schema["properties"]["verdict"]["enum"] == ["Supported", "Refuted", "NotEnoughInfo"]
    assert '{"verdict": "<one of Supported, Refuted or NotEnoughInfo>"' in text
    text, rendered = user_text(claims[0], "claim", json_answer=False)
    assert rendered.json_schema is None and "Verdict: <one of" in text


def test_markup_in_a_claim_reaches_the_model_untouched(mini):
    _, claims = mini
    text, _ = user_text(claims[2], "claim")
    assert "The [bold]Ashby[/bold] river floods every spring." in text


def test_a_claim_without_the_evidence_a_setting_shows_is_refused(mini):
    _, claims = mini
    with pytest.raises(PromptError, match="has no candidate pages"):
        render(claims[2], load_template("jsfactcheck"), parse_setting("claim+pages"))
    with pytest.raises(
        PromptError,
        match="has no question, no response, no reference time or claim date, which template .jsfactcheck. shows in setting claim.time.qr",
    ):
        render(claims[3], load_template("jsfactcheck"), parse_setting("claim+time+qr"))


def test_unknown_settings_and_templates_say_what_exists():
    with pytest.raises(PromptError, match="CONTEXT one of claim, claim"):
        parse_setting("claims+web")
    with pytest.raises(
        TemplateError, match="available: averitec, jsfactcheck, jsfactcheck-claim-first, jsfactcheck-ja, realfactbench"
    ):
        load_template("nope")


def test_a_template_without_wording_for_a_setting_lists_its_settings(mini):
    _, claims = mini
    with pytest.raises(PromptError, match="no \\[evidence\\] pages; its settings: claim, claim\\+qa"):
        render(claims[0], load_template("averitec"), parse_setting("claim+pages"))


def test_a_user_drops_a_template_in_prompts_dir(tmp_path, monkeypatch, mini):
    folder = tmp_path / "my-prompts"
    folder.mkdir()
    (folder / "terse.toml").write_text(
        'label_space = "jsfactcheck"\nverdicts = ["Supported", "Refuted", "NotEnoughInfo"]\njson = false\n'
        'user = "{context}\\n{answer}"\n[context]\nclaim = "Check: {claim} ({domain})"\n'
        '[evidence]\nnone = ""\n[answer]\ntext = "One word: {verdicts}."\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("WORKBENCH_PROMPTS_DIR", str(folder))
    from workbench.config import load_settings

    assert "terse" in available_templates(load_settings().prompts_dir)
    template = load_template("terse", load_settings().prompts_dir)
    with pytest.raises(PromptError, match="has no domain,"):
        render(mini[1][0], template, parse_setting("claim"))


def test_a_template_with_an_unknown_placeholder_names_it(tmp_path):
    from workbench.prompting import read_template

    path = tmp_path / "bad.toml"
    path.write_text('label_space = "x"\nverdicts = ["a"]\nuser = "{claim} {speaker_age}"\n[answer]\ntext = "."\n')
    with pytest.raises(TemplateError, match=r"bad.toml: user uses unknown placeholder\(s\) \{speaker_age\}"):
        read_template(path)


def test_cli_prompt_prints_exactly_the_messages(mini, db_path):
    store, claims = mini
    runner = CliRunner()
    result = runner.invoke(
        main, ["--db", str(db_path), "prompt", "mini:m1", "--setting", "claim+time+qr+pages", "--json"]
    )
    assert result.exit_code == 0, result.output
    _, rendered = user_text(claims[0], "claim+time+qr+pages")
    assert json.loads(result.output) == {"messages": rendered.messages, "json_schema": rendered.json_schema}
    plain = runner.invoke(
        main, ["--db", str(db_path), "prompt", "mini:m1", "--setting", "claim+time+qr+pages"], terminal_width=60
    )
    for message in rendered.messages:
        assert message["content"] in plain.output


def test_cli_prompt_errors_are_clear(mini, db_path):
    runner = CliRunner()
    result = runner.invoke(main, ["--db", str(db_path), "prompt", "mini:m3", "--setting", "claim+full"])
    assert result.exit_code == 1 and "has no cited page or evidence text" in result.output
    assert "Traceback" not in result.output
    result = runner.invoke(main, ["--db", str(db_path), "prompt", "mini:zzz"])
    assert result.exit_code == 1 and "no claim 'mini:zzz'" in result.output


def test_cli_prompts_lists_templates_with_spaces_and_settings():
    result = CliRunner().invoke(main, ["prompts", "--json"])
    rows = {r["name"]: r for r in json.loads(result.output)}
    assert rows["realfactbench"]["verdicts"] == ["true", "false", "unknown"]
    assert rows["jsfactcheck"]["contexts"] == ["claim", "claim+time", "claim+time+qr"]
    assert rows["averitec"]["evidence"] == ["none", "qa"]
