"""Item 7 of issue 20: `runs` lists every run with its kind (and --kind picks some); `compare`
of runs that share nothing says so instead of printing scores of no items, and heads its
output in the order typed; a run's id leads its name wherever two names would read alike."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from store import Prediction, Run
from tests.support.scoring import RUN_A, RUN_B, make_run
from tests.support.tui import until
from tests.support.tui_metrics import Host, panel_text, settled
from workbench.cli import main
from workbench.render.display import run_names


def cli(db_path, *args):
    return CliRunner().invoke(main, ["--db", str(db_path), *args], terminal_width=160)


@pytest.fixture
def every_kind(demo_store):
    """One run of each kind the workbench makes, over demo claims 1-3."""
    store = demo_store
    answer = make_run(store, "answers", 1, [1, 2, 3], {1: ("ok", "Refuted")})
    kinds = [
        ("judge", "judge-of-answers"),
        ("reformulate", "labels-of-answers"),
        ("article", "articles"),
        ("extract", "evidence-lists"),
    ]
    for kind, name in kinds:
        store.runs.create(
            Run(
                name=name,
                kind=kind,
                dataset_id=1,
                model="gguf:default",
                target_run_id=answer.id if kind in ("judge", "reformulate") else None,
            ),
            [1, 2, 3],
        )
    store.runs.create(Run(name="elsewhere", dataset_id=1, model="imported:elsewhere", status="finished"), [1, 2])
    return answer


def test_runs_lists_every_run_with_its_kind(every_kind, db_path):
    listed = {row["name"]: row for row in json.loads(cli(db_path, "runs", "--json").output)}
    assert {name: row["kind"] for name, row in listed.items()} == {
        "answers": "answer",
        "judge-of-answers": "judge",
        "labels-of-answers": "reformulate",
        "articles": "article",
        "evidence-lists": "extract",
        "elsewhere": "imported",
    }
    assert listed["judge-of-answers"]["of_run"] == every_kind.id
    table = " ".join(cli(db_path, "runs").output.split())
    assert f"judge of #{every_kind.id}" in table and "extract · gguf:default" in table


def test_runs_kind_picks_the_runs_of_those_kinds(every_kind, db_path):
    judges = json.loads(cli(db_path, "runs", "--kind", "judge", "--json").output)
    assert [row["name"] for row in judges] == ["judge-of-answers"]
    steps = json.loads(cli(db_path, "runs", "--kind", "article", "--kind", "extract", "--json").output)
    assert sorted(row["name"] for row in steps) == ["articles", "evidence-lists"]
    wrong = cli(db_path, "runs", "--kind", "jugde")
    assert wrong.exit_code == 1
    assert wrong.output.startswith(
        "Error: no kind of run 'jugde'; kinds: answer, article, averimatec, ev2r, extract, imported"
    )


def test_compare_of_runs_that_share_no_items_says_so_and_prints_no_scores(demo_store, db_path):
    make_run(demo_store, "A", 1, [1, 2, 3], {1: ("ok", "Refuted"), 2: ("ok", "Supported"), 3: ("ok", "Refuted")})
    make_run(demo_store, "B", 1, [5, 6, 7], {5: ("ok", "Refuted"), 6: ("ok", "Supported"), 7: ("ok", "Refuted")})
    for extra in ([], ["--json"]):
        result = cli(db_path, "compare", "A", "B", *extra)
        assert result.exit_code == 1
        assert result.output == (
            "Error: runs 'A' and 'B' share no items (claims both answered whose gold label is"
            " scored): nothing to compare\n"
        )


def test_compare_heads_its_output_in_the_order_typed(demo_store, db_path):
    make_run(demo_store, "first", 1, range(1, 13), RUN_A)
    make_run(demo_store, "second", 1, range(1, 13), RUN_B)
    typed = " ".join(cli(db_path, "compare", "first", "second", "--resamples", "50").output.split())
    assert "first (A) vs second (B) on 7 shared items (deltas are B − A)" in typed
    swapped = " ".join(cli(db_path, "compare", "second", "first", "--resamples", "50").output.split())
    assert "second (A) vs first (B) on 7 shared items" in swapped


def test_a_name_cut_short_beside_one_that_goes_on_alike_gets_its_id():
    runs = [
        Run(id=4, name="smollm2-jsfactcheck-claim+time", model="m"),
        Run(id=1, name="smollm2-jsfactcheck-claim+time+reference", model="m"),
    ]
    assert run_names(runs, 30) == ["#4 smollm2-jsfactcheck-claim+…", "#1 smollm2-jsfactcheck-claim+…"]
    apart = [Run(id=1, name="alpha-run", model="m"), Run(id=2, name="alpha-runner-with-a-long-name", model="m")]
    assert run_names(apart, 30) == ["alpha-run", "alpha-runner-with-a-long-name"]


async def test_the_metrics_views_compare_heading_leads_with_the_ids_of_names_alike(demo_store, db_path):
    a = make_run(demo_store, "smollm2-jsfactcheck-claim+time", 1, range(1, 13), RUN_A)
    b = make_run(demo_store, "smollm2-jsfactcheck-claim+time+reference", 1, range(1, 13), RUN_B)
    app = Host(db_path, [a.id, b.id])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await until(pilot, lambda: settled(screen))
        heading = panel_text(screen, "#compare-panel").splitlines()[0]
    assert heading.startswith(f"#{a.id} smollm2-jsfactcheck-clai… (A) vs #{b.id} smollm2-jsfactcheck-clai… (B)")


async def test_the_metrics_view_shows_no_scores_for_runs_that_share_no_items(demo_store, db_path):
    a = make_run(demo_store, "A", 1, [1, 2, 3], {1: ("ok", "Refuted"), 2: ("ok", "Supported")})
    b = make_run(demo_store, "B", 1, [5, 6], {5: ("ok", "Refuted"), 6: ("ok", "Supported")})
    app = Host(db_path, [a.id, b.id])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await until(pilot, lambda: settled(screen))
        compare = panel_text(screen, "#compare-panel")
    assert compare.strip() == "A (A) vs B (B) on 0 shared items: nothing to compare"


def test_an_unanswered_claim_has_no_place_in_shared_items(demo_store, db_path):
    """The guard counts what the comparison counts: a claim both runs hold but only one answered."""
    make_run(demo_store, "A", 1, [1, 2], {1: ("ok", "Refuted"), 2: ("ok", "Supported")})
    b = make_run(demo_store, "B", 1, [1, 2], {})
    demo_store.runs.record(Prediction(run_id=b.id, claim_id=1, status="error", error="HTTP 500"))
    assert cli(db_path, "compare", "A", "B").exit_code == 1
