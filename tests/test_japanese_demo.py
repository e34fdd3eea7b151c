"""The Japanese demo dataset (demo-ja) and the Japanese template used on it: quoted passages
placed despite width forms, the twelve settings worded in Japanese, a run through a real
loopback server read into the jsfactcheck label space, and the hint for Japanese claims."""

from __future__ import annotations

import json
import unicodedata
from collections import Counter

import pytest
from click.testing import CliRunner

from tests.loopback_servers import LoopbackServer
from workbench.cli import main
from workbench.prompting import load_template, parse_setting, render

TWELVE = [f"{c}{e}" for c in ("claim", "claim+time", "claim+time+qr") for e in ("", "+reference", "+full", "+pages")]


def folded(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).split())


def ja_claim(store, number: int):
    return store.claims.get(store.claims.resolve(f"demo-ja:ja-{number:03d}"))


def test_the_japanese_demo_is_jsfactcheck_shaped(demo_store):
    claims = [store_claim for n in range(1, 21) if (store_claim := ja_claim(demo_store, n))]
    assert len(claims) == 20
    assert Counter(c.label for c in claims) == {"Supported": 10, "Refuted": 7, "NotEnoughInfo": 3}
    assert {c.importance for c in claims} == {"Main", "Sub", "Irrelevant"}
    for claim in claims:
        assert claim.question and claim.reference_time and claim.text in claim.response
        cited = [e for e in claim.evidence if e.is_cited]
        assert len(cited) == 1 and len([e for e in claim.evidence if e.kind == "page"]) == 3
        page = cited[0]
        # Every quote is placed in its page, most only under compatibility equivalence.
        assert page.passage_start is not None
        assert folded(page.text[page.passage_start : page.passage_end]) == folded(page.passage)


@pytest.mark.parametrize("setting", TWELVE)
def test_the_japanese_template_words_every_setting(demo_store, setting):
    claim = ja_claim(demo_store, 2)
    rendered = render(claim, load_template("jsfactcheck-ja"), parse_setting(setting))
    text = rendered.messages[-1]["content"]
    assert "確認する主張:\n開業は2024年10月で、開業から半年で延べ300万人が利用しました" in text
    assert ("2025-05-01の時点の状況で判断してください" in text) == ("time" in setting)
    assert ("«開業は2024年10月で" in text) == ("qr" in setting)
    assert ("下の主張には出典が付いていません" in text) == (
        setting.count("+") == setting.count("+time") + setting.count("+qr")
    )
    if setting.endswith(("+full", "+pages")):
        assert "延べ約１２０万人" in text  # the cited page as stored, full-width digits and all
    assert rendered.json_schema["properties"]["verdict"]["enum"] == ["支持", "反駁", "情報不足"]
    assert "支持、反駁、情報不足のいずれか" in text


def answer_in_japanese(body: dict) -> str:
    """A model that answers in the template's text form, the verdict after its reasons."""
    user = body["messages"][-1]["content"]
    verdict = "反駁" if "300万人" in user else "支持"
    return f"説明：引用された資料と照らし合わせると、主張は支持されない点がある。\n判定：{verdict}"


def test_a_run_with_the_japanese_template_reads_japanese_verdicts(demo_store, db_path):
    with LoopbackServer("openai", answer=answer_in_japanese) as server:
        result = CliRunner().invoke(
            main,
            [
                "--db",
                str(db_path),
                "run",
                "--model",
                "openai-compatible:loop",
                "--base-url",
                server.url,
                "--dataset",
                "demo-ja",
                "--prompt",
                "jsfactcheck-ja",
                "--setting",
                "claim+time+full",
                "--param",
                "json=false",
                "--name",
                "ja-loop",
            ],
        )
        assert result.exit_code == 0, result.output
        assert "hint:" not in result.output
        sent = server.answer_arrivals()[0].body["messages"][-1]["content"]
        english = CliRunner().invoke(
            main,
            [
                "--db",
                str(db_path),
                "run",
                "--model",
                "openai-compatible:loop",
                "--base-url",
                server.url,
                "--dataset",
                "demo-ja",
                "--prompt",
                "jsfactcheck",
                "--limit",
                "2",
                "--name",
                "en-loop",
            ],
        )
        assert english.exit_code == 0, english.output
        assert "hint: these claims are in Japanese" in english.output
        assert "--prompt jsfactcheck-ja asks in Japanese" in english.output
    assert "判定: <支持、反駁、情報不足のいずれか>" in sent
    predictions = CliRunner().invoke(main, ["--db", str(db_path), "predictions", "ja-loop", "--json"])
    rows = [json.loads(line) for line in predictions.output.splitlines()]
    assert Counter((r["status"], r["verdict"]) for r in rows) == {("ok", "Supported"): 19, ("ok", "Refuted"): 1}


def test_japanese_claims_get_the_hint_english_ones_do_not(demo_store, db_path):
    runner = CliRunner()
    japanese = runner.invoke(main, ["--db", str(db_path), "prompt", "demo-ja:ja-001", "--json"])
    assert japanese.exit_code == 0
    assert "these claims are in Japanese (detected from their text with py3langid" in japanese.stderr
    assert "--prompt jsfactcheck-ja asks in Japanese" in japanese.stderr
    assert json.loads(japanese.stdout)["messages"]  # stdout stays the messages alone
    chosen = runner.invoke(main, ["--db", str(db_path), "prompt", "demo-ja:ja-001", "--prompt", "jsfactcheck-ja"])
    assert chosen.exit_code == 0 and "hint:" not in chosen.stderr
    english = runner.invoke(main, ["--db", str(db_path), "prompt", "demo:js-001"])
    assert english.exit_code == 0 and "hint:" not in english.stderr


@pytest.mark.parametrize(
    "command, shown",
    [
        (["show", "demo-ja:ja-015"], "充電中に本体が異常に熱く"),
        (["claims", "--where", "dataset:demo-ja"], "充電中に本体が"),
        (["predictions", "demo-checker-ja"], "報告されたのは発"),
    ],
)
def test_japanese_listings_and_show_fit_80_cells(demo_store, db_path, command, shown):
    from rich.cells import cell_len

    from workbench.cli.demo import load_demo_team

    load_demo_team(demo_store)
    result = CliRunner().invoke(main, ["--db", str(db_path), *command], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines and max(cell_len(line) for line in lines) <= 80
    boxed = [line for line in lines if line.startswith("│")]
    assert all(cell_len(line) == 80 and line.endswith("│") for line in boxed)  # right borders line up
    assert any(shown in line for line in lines)
