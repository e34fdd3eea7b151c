"""AVerImaTeC figures where a run's other figures are: `metrics`, `report` (JSON and Markdown) and
the TUI's metrics view show what `workbench averimatec RUN` computed, once its judge runs have
judged the run, and nothing of it before."""

from __future__ import annotations

import json

from tests.loopback_servers import LoopbackServer
from tests.support.averimatec import imported, recorded_judge, scored
from tests.support.judging import cli
from tests.support.processes import opened_store
from tests.support.tui import until
from tests.support.tui_metrics import Host, report_words, settled

FIGURES = ("question_recall", "evidence_recall", "justification_recall", "verdict_accuracy")


def judged(tmp_path, db_path) -> dict:
    """The demo-shaped AVerImaTeC files imported, run `sys` judged by a loopback judge that
    returns recorded counts (one reply malformed); what `averimatec --json` printed."""
    imported(tmp_path, db_path)
    with LoopbackServer("openai", answer=recorded_judge([])) as server:
        return scored(db_path, server, "--vision", "yes")


def test_metrics_and_report_show_the_figures_averimatec_computed(tmp_path, db_path):
    imported(tmp_path, db_path)
    before = json.loads(cli(db_path, "report", "sys", "--format", "json", "--resamples", "0").output)
    assert before["runs"][0]["averimatec"] is None
    assert "AVerImaTeC" not in cli(db_path, "metrics", "sys", "--resamples", "0").output
    with LoopbackServer("openai", answer=recorded_judge([])) as server:
        found = scored(db_path, server, "--vision", "yes")

    shown = cli(db_path, "metrics", "sys", "--resamples", "0").output
    assert "AVerImaTeC of run sys" in shown
    words = " ".join(shown.split())
    for key in FIGURES:  # each figure both ways, as `averimatec` prints it
        figure = found[key]
        assert f"{figure['official']:.4f} {figure['failures_excluded']:.4f}" in words, shown

    report = json.loads(cli(db_path, "report", "sys", "--format", "json", "--resamples", "0").output)
    assert report["runs"][0]["averimatec"] == found  # the same figures, judges and prompts

    markdown = cli(db_path, "report", "sys", "--resamples", "0").output
    table = markdown[markdown.index("## AVerImaTeC") :].split("\n\n")[2].splitlines()
    assert table[0].startswith("| Run | Question recall | Evidence recall |")
    cells = [cell.strip() for cell in table[2].strip("|").split("|")]
    assert cells[0] == "sys" and cells[-2:] == [str(found["evidence_recall"]["failures"]), "0"]
    assert cells[1:5] == [f"{found[key]['official']:.4f}" for key in FIGURES]


async def test_the_metrics_view_shows_the_averimatec_figures(tmp_path, db_path):
    found = judged(tmp_path, db_path)
    with opened_store(db_path) as store:
        run_id = store.runs.get("sys").id
    app = Host(db_path, [run_id])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await until(pilot, lambda: settled(screen) and "AVerImaTeC of run sys" in report_words(screen))
        shown = report_words(screen)
    for key in FIGURES:
        assert f"{found[key]['official']:.4f}" in shown
