"""The metrics view's intervals and paired tests resample clusters exactly as `metrics
--cluster` and `compare --cluster` do: the dataset profile's natural cluster by default
(the demo's: the question), said in the view, and `workbench tui --cluster` changes it."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from textual.app import App

from tests.support.tui import until
from tests.support.tui_metrics import panel_text, settled
from workbench.cli import main
from workbench.tui.screens.metrics.screen import MetricsScreen

RESAMPLES = 200


class ClusteredHost(App):
    """Pushes the metrics view as `workbench tui --cluster CLUSTER` opens it."""

    def __init__(self, db_path, run_ids, cluster):
        super().__init__()
        self.screen_args = (db_path, run_ids, cluster)

    def on_mount(self) -> None:
        db_path, run_ids, cluster = self.screen_args
        self.push_screen(MetricsScreen(db_path, run_ids, poll_seconds=0.05, resamples=RESAMPLES, cluster=cluster))


@pytest.fixture
def demo_store(store):
    """The demo database as `workbench demo` makes it, with its run demo-checker."""
    from workbench.cli.demo import load_demo, load_demo_team

    load_demo(store), load_demo_team(store)
    return store


def cli_json(db_path, *args) -> dict:
    result = CliRunner().invoke(main, ["--db", str(db_path), *args, "--json", "--resamples", str(RESAMPLES)])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def interval_of(found) -> tuple[float, float]:
    return (found.low, found.high)


async def view_of(db_path, run_ids, cluster):
    app = ClusteredHost(db_path, run_ids, cluster)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        await until(pilot, lambda: settled(screen))
        return screen.intervals, panel_text(screen), screen.update


@pytest.mark.parametrize("cluster", [None, "question", "none"])
async def test_the_views_intervals_are_those_of_metrics_with_the_same_cluster(demo_store, db_path, cluster):
    run = demo_store.runs.get("demo-checker")
    asked = ["--cluster", cluster] if cluster else []
    expected = cli_json(db_path, "metrics", "demo-checker", *asked)["runs"][0]["all"]
    intervals, panel, update = await view_of(db_path, [run.id], cluster)
    for name in ("accuracy", "macro_f1"):
        shown = expected["overall"]["intervals"][name]
        assert interval_of(intervals.runs[0].overall[name]) == (shown["low"], shown["high"])
    if cluster == "none":
        assert update.cluster is None and "clustered by" not in panel
    else:  # the demo's profile (jsfactcheck) declares the question
        assert update.cluster == expected["cluster"] == "question"
        assert re.search(rf"clustered by question +{expected['clusters']} clusters", panel)


async def test_cluster_none_changes_the_views_interval_from_the_profiles(demo_store, db_path):
    run = demo_store.runs.get("demo-checker")
    clustered, _, _ = await view_of(db_path, [run.id], "question")
    claim_by_claim, _, _ = await view_of(db_path, [run.id], "none")
    assert interval_of(clustered.runs[0].overall["accuracy"]) != interval_of(claim_by_claim.runs[0].overall["accuracy"])


async def test_the_views_paired_tests_are_those_of_compare_with_the_cluster(demo_store, db_path):
    from store import Run

    first = demo_store.runs.get("demo-checker")
    ids = [p.claim_id for p in demo_store.runs.predictions(first.id)]
    second = demo_store.runs.create(Run(name="second", model="m2", dataset_id=first.dataset_id), ids)
    from store import Prediction

    for n, claim_id in enumerate(ids):
        verdict = "Supported" if n % 3 else "Refuted"
        demo_store.runs.record(Prediction(run_id=second.id, claim_id=claim_id, status="ok", verdict=verdict))
    expected = cli_json(db_path, "compare", "demo-checker", "second", "--cluster", "question")
    intervals, _, update = await view_of(db_path, [first.id, second.id], None)
    assert update.cluster == "question"
    shown = intervals.paired["macro_f1"]
    paired = json.dumps(expected)
    assert f"{shown.low}" in paired and f"{shown.high}" in paired


def test_tui_refuses_a_field_that_cannot_cluster_before_taking_the_terminal(demo_store, db_path):
    result = CliRunner().invoke(main, ["--db", str(db_path), "tui", "--cluster", "questoin"])
    assert result.exit_code != 0
    assert "did you mean question?" in result.output
