"""A sweep of settings, and the prefix-sharing order runs ask their prompts in (against a
real loopback server: the order prompts arrive in is the order they were asked)."""

from __future__ import annotations

import asyncio
import json

from click.testing import CliRunner

from tests.loopback_servers import LoopbackServer
from workbench.backends.llama_engine import common_prefix
from workbench.cli import main
from workbench.runs.engine import RunRequest, execute_runs, prepare_run

SETTINGS = ["claim", "claim+reference", "claim+time+qr", "claim+time+qr+reference"]


def arrived_prompts(server: LoopbackServer) -> list[str]:
    return ["\n".join(m["content"] for m in arrival.body["messages"]) for arrival in server.answer_arrivals()]


def shared_total(prompts: list[str]) -> int:
    return sum(common_prefix(a, b) for a, b in zip(prompts, prompts[1:]))


def test_a_sweep_asks_each_claims_settings_in_prefix_order(demo_store, db_path):
    with LoopbackServer("openai") as server:
        prepared = [
            prepare_run(
                demo_store,
                RunRequest(
                    model="openai-compatible:m", base_url=server.url, setting=setting, dataset="demo", concurrency=1
                ),
            )
            for setting in SETTINGS
        ]
        progress = asyncio.run(execute_runs(db_path, prepared))
        prompts = arrived_prompts(server)
    assert [p.done for p in progress] == [24] * 4  # every run answered all its claims
    assert len(prompts) == 96
    assert prompts == sorted(prompts)  # each prompt next to the one it shares most with
    run_by_run = [prompt for setting in SETTINGS for prompt in _rendered(demo_store, setting)]
    assert sorted(run_by_run) == prompts
    assert shared_total(prompts) > 1.15 * shared_total(run_by_run)  # 1.18 on the demo (the evidence first)
    for p in prepared:  # each run holds its own setting's answers
        rows = demo_store.runs.predictions(p.run.id)
        assert len(rows) == 24 and demo_store.runs.get(p.run.id).status == "finished"


def _rendered(store, setting: str) -> list[str]:
    from workbench.prompting import load_template, parse_setting, render

    template = load_template("jsfactcheck")
    return [
        "\n".join(m["content"] for m in render(store.claims.get(i), template, parse_setting(setting)).messages)
        for i in store.claims.ids("dataset:demo")
    ]


def cli(db_path, *args):
    return CliRunner().invoke(main, ["--db", str(db_path), *args], terminal_width=200)


def test_setting_all_makes_one_run_per_setting_the_claims_can_show(demo_store, db_path):
    with LoopbackServer("openai") as server:
        result = cli(
            db_path,
            "run",
            "--dataset",
            "demo",
            "--model",
            "openai-compatible:m",
            "--base-url",
            server.url,
            "--setting",
            "all",
            "--limit",
            "3",
        )
        assert result.exit_code == 0, result.output
        assert len(server.answer_arrivals()) == 36
    runs = demo_store.runs.list()
    assert sorted(r.setting for r in runs) == sorted(
        [
            "claim",
            "claim+reference",
            "claim+full",
            "claim+pages",
            "claim+time",
            "claim+time+reference",
            "claim+time+full",
            "claim+time+pages",
            "claim+time+qr",
            "claim+time+qr+reference",
            "claim+time+qr+full",
            "claim+time+qr+pages",
        ]
    )
    said = " ".join(result.output.split())
    for setting in ("claim+qa", "claim+time+qa", "claim+time+qr+qa"):  # the demo has no Q&A evidence
        assert f"skipped setting {setting}: 3 of 3 selected claims have no question-answer evidence" in said
    assert said.count("finished: 3 ok") == 12


def test_a_sweep_with_a_setting_that_cannot_run_leaves_no_run_behind(demo_store, db_path):
    with LoopbackServer("openai") as server:
        result = cli(
            db_path,
            "run",
            "--dataset",
            "demo",
            "--model",
            "openai-compatible:m",
            "--base-url",
            server.url,
            "--setting",
            "claim",
            "--setting",
            "claim+nowhere",
        )
        assert result.exit_code == 1
        assert "setting claim+nowhere: unknown setting 'claim+nowhere'" in " ".join(result.output.split())
        assert server.answer_arrivals() == []
    assert demo_store.runs.list() == []


def test_a_sweep_run_again_is_answered_from_the_cache(demo_store, db_path):
    args = [
        "run",
        "--dataset",
        "demo",
        "--model",
        "openai-compatible:m",
        "--setting",
        "claim",
        "--setting",
        "claim+time",
        "--limit",
        "2",
    ]
    with LoopbackServer("openai") as server:
        first = cli(db_path, *args, "--base-url", server.url)
        again = cli(db_path, *args, "--base-url", server.url)
        assert first.exit_code == 0 and again.exit_code == 0, again.output
        assert len(server.answer_arrivals()) == 4  # the second sweep asked nothing
    assert " ".join(again.output.split()).count("2 from cache") == 2
    listed = json.loads(cli(db_path, "runs", "--json").output)
    assert len(listed) == 4
