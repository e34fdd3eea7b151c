"""Issue 33, item 3: failure categories are for wrong answers. A label on a right answer is
refused (CLI label and adjudicate, the TUI's triage keys), and labels the old code let in
on right answers stay in the database, shown apart and never counted by metrics."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from store import ImportedLabel
from tests.support.tui import add_run, make_app, settle, wrong_label
from workbench.cli import main
from workbench.triage.final import disagreements, failure_breakdown
from workbench.tui.screens.triage import TriageScreen

ME = "tester"  # conftest sets WORKBENCH_ANNOTATOR


def cli(db_path, *args):
    return CliRunner().invoke(main, ["--db", str(db_path), "--annotator", ME, *args], terminal_width=120)


@pytest.fixture
def mixed_run(demo_store):
    """Run alpha: the first claim answered right, two wrong, one an API error."""
    store = demo_store
    ids = store.claims.ids("dataset:demo -label:Unclear -label:Unevaluable")[:4]
    golds = {i: store.claims.get(i).label for i in ids}
    answers = {ids[0]: ("ok", golds[ids[0]]), ids[3]: ("error", None)}
    answers |= {i: ("ok", wrong_label(golds[i])) for i in ids[1:3]}
    return store, add_run(store, "alpha", answers), ids


def labels_now(store, run, claim_id):
    return store.triage.labels(store.runs.prediction(run.id, claim_id).id)


@pytest.mark.parametrize(
    "which, words", [(0, "answered claim '{c}' correctly"), (3, "got an API error for claim '{c}'")]
)
def test_label_on_an_answer_that_is_not_wrong_is_refused(mixed_run, db_path, which, words):
    store, run, ids = mixed_run
    claim = ids[which]
    result = cli(db_path, "triage", "label", "alpha", str(claim), "--categories", "knowledge-error")
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and words.format(c=claim) in lines[0] and "for wrong answers" in lines[0], result.output
    assert labels_now(store, run, claim) == {}
    decided = cli(db_path, "triage", "adjudicate", "alpha", str(claim), "--categories", "knowledge-error")
    assert decided.exit_code == 1 and words.format(c=claim) in decided.output
    assert store.triage.adjudication(store.runs.prediction(run.id, claim).id) is None
    wrong = cli(db_path, "triage", "label", "alpha", str(ids[1]), "--categories", "knowledge-error")
    assert wrong.exit_code == 0, wrong.output


def test_old_labels_on_right_answers_are_kept_apart_and_not_counted(mixed_run, db_path):
    store, run, ids = mixed_run
    right, wrong = (store.runs.prediction(run.id, i).id for i in ids[:2])
    # What the old code let in: two people's labels on the right answer, differing.
    store.triage.import_labels(
        [
            ImportedLabel(right, "ana", frozenset({1}), None, True),
            ImportedLabel(right, "ben", frozenset({2}), None, True),
            ImportedLabel(wrong, "ana", frozenset({1}), None, True),
        ],
        by="old",
        source="test",
    )
    found = failure_breakdown(store, run.id)
    assert found.labelled == 1 and found.final == 1 and found.counts["Knowledge Error"] == 1
    assert found.set_apart == {"answers that are right": 1}
    assert disagreements(store, run.id) == []  # a right answer waits for no decision
    assert set(labels_now(store, run, ids[0])) == {"ana", "ben"}  # nothing lost
    shown = cli(db_path, "metrics", "alpha")
    assert shown.exit_code == 0, shown.output
    text = " ".join(shown.output.split())
    assert "1 label on answers that are right" in text and "not counted" in text
    as_json = json.loads(cli(db_path, "metrics", "alpha", "--json").output)
    assert json.dumps(as_json).count('"answers that are right": 1') == 1


async def test_triage_keys_on_a_right_answer_in_my_queue_are_refused(mixed_run, db_path):
    store, run, ids = mixed_run
    plan = [(store.runs.prediction(run.id, i).id, ME) for i in ids[:2]]
    store.assignments.create_round(run.id, "run:alpha", [ME], 0.0, 1, 1, False, "lead", plan)
    app = make_app(db_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        app.open_triage(run.id)
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, TriageScreen) and screen.queue[screen.index] == ids[0]
        await pilot.press("1", "r", "e")
        await settle(pilot, app)
        said = [n.message for n in app._notifications]
        assert any("correctly: failure categories are for wrong answers" in m for m in said), said
        assert app.screen is screen and labels_now(store, run, ids[0]) == {}
        await pilot.press("n", "1")
        await settle(pilot, app)
        assert [c.slug for c in store.annotations.categories_for(store.runs.prediction(run.id, ids[1]).id)] == [
            "knowledge-error"
        ]


def test_a_labels_file_with_a_right_answer_is_refused_whole(mixed_run, db_path, tmp_path):
    store, run, ids = mixed_run
    path = tmp_path / "labels.csv"
    path.write_text(
        f"claim,annotator,categories\n{ids[1]},ana,knowledge-error\n{ids[0]},ana,flawed-reasoning\n", encoding="utf-8"
    )
    result = cli(db_path, "triage", "import", str(path), "--run", "alpha")
    assert result.exit_code == 1
    assert f"{path}: line 3: claim: run 'alpha' answered claim {ids[0]} correctly" in result.output, result.output
    assert labels_now(store, run, ids[1]) == {} and labels_now(store, run, ids[0]) == {}
