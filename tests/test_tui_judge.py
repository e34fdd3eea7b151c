"""Explanation quality in the TUI (issue 13): judgments beside each verdict in the claim
detail, a person's own score from the keyboard, EQ in the metrics view, and a judge run
started with j against a loopback judge."""

from __future__ import annotations

import json

from store import Prediction, Run
from tests.loopback_servers import LoopbackServer
from tests.support.tui import add_run, gold, make_app, open_claim, screen_text, settle, until, wrong_label
from workbench.tui.screens.metrics.screen import MetricsScreen
from workbench.tui.widgets.verdicts import VerdictList, person_score


def judged(store, target: Run, scores: dict[int, tuple[str, float | None, str]]) -> Run:
    """A judge run of `target` with these (status, score, justification) per claim."""
    run = store.runs.create(
        Run(
            name=f"judge-of-{target.name}", kind="judge", model="test:judge", status="finished", target_run_id=target.id
        ),
        list(scores),
    )
    for claim_id, (status, score, why) in scores.items():
        store.runs.record(
            Prediction(
                run_id=run.id,
                claim_id=claim_id,
                status=status,
                explanation=why,
                parsed={"score": score, "justification": why} if score is not None else None,
            )
        )
    return run


async def test_the_detail_shows_judgments_and_takes_your_own_score(demo_store, db_path):
    ids = demo_store.claims.ids("dataset:demo")[:3]
    run = add_run(
        demo_store,
        "sys",
        {
            ids[0]: ("ok", wrong_label(gold(demo_store, ids[0]))),
            ids[1]: ("ok", gold(demo_store, ids[1])),
            ids[2]: ("ok", None),
        },
    )
    judged(
        demo_store,
        run,
        {
            ids[0]: ("ok", 9.0, "[bold]fluent[/] but wrong"),
            ids[1]: ("ok", 8.0, "sound"),
            ids[2]: ("parse_failure", None, "no JSON object with a score"),
        },
    )
    app = make_app(db_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await open_claim(pilot, app, ids[0])
        text = screen_text(app)
        assert "EQ 9 (outside the rubric's 0-4) by judge-of-sys:" in text and "[bold]fluent[/] but wrong" in text
        verdicts = app.screen.query_one("#side-verdicts", VerdictList)
        verdicts.focus()
        verdicts.highlighted = 1
        await pilot.press("e")
        await settle(pilot, app)
        await pilot.press("1", "1", "enter")  # out of range: refused, nothing written
        await settle(pilot, app)
        assert demo_store.judging.person_scores(run.id) == {}
        await pilot.press("e")
        await settle(pilot, app)
        await pilot.press("3", "enter")
        await until(pilot, lambda: "EQ 3 by person:tester" in screen_text(app))
    assert demo_store.judging.person_scores(run.id) == {"tester": {ids[0]: 3.0}}


def test_a_typed_score_is_a_number_from_0_to_10():
    assert person_score(" 7 ") == 7.0 and person_score("10") == 10.0 and person_score("") is None
    assert person_score("11") is False and person_score("seven") is False and person_score("nan") is False


async def test_the_metrics_view_shows_eq_and_j_starts_a_judge_run(demo_store, db_path):
    ids = demo_store.claims.ids("dataset:demo")[:6]
    run = add_run(demo_store, "sys", {i: ("ok", gold(demo_store, i)) for i in ids})

    def judge(body):
        return json.dumps({"score": 7, "justification": "Right, with part of the evidence."})

    app = make_app(db_path)
    with LoopbackServer("openai", answer=judge) as server:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot, app)
            app.push_screen(MetricsScreen(db_path, [run.id], resamples=100))
            await until(pilot, lambda: app.screen.update is not None)
            assert "EQ (0-10" not in screen_text(app)  # not judged yet
            await pilot.press("j")
            await settle(pilot, app)
            await pilot.press("ctrl+u")
            for key in f"openai-compatible:judge {server.url}":
                await pilot.press("space" if key == " " else key)
            await pilot.press("enter")
            await until(pilot, lambda: len(server.answer_arrivals()) == 6 and not app.runs.active)
            await until(pilot, lambda: "7.00" in screen_text(app) and "EQ (0-10" in screen_text(app))
    (judge_run,) = demo_store.judging.judge_runs(run.id)
    assert judge_run.status == "finished" and len(demo_store.judging.scores(judge_run.id)) == 6


async def test_the_images_tab_shows_each_picture_with_its_facts(demo_store, db_path):
    from textual_image.widget import HalfcellImage

    claim_id = demo_store.claims.resolve("demo-realfact:rfb-004")
    app = make_app(db_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        assert app.catalogue.has_images
        await open_claim(pilot, app, claim_id)
        await pilot.press("7")
        await settle(pilot, app)
        text = screen_text(app)
        assert "image 1 of 1 · images/rfb-004.png · PNG 320×200 · 800 bytes" in text
        assert len(app.screen.query(HalfcellImage)) == 1 and "▀" in text
