"""Triage as a team in the store: labels per annotator, history, adjudication, queues, and
the upgrade of single-voice databases (m015)."""

from __future__ import annotations

import json

import pytest

from store import UNATTRIBUTED, AdjudicationConflict, ImportedLabel, Store, open_database
from store.migrations import KNOWN, applied_migrations, apply_migrations
from tests.support.tui import add_claims, add_run


@pytest.fixture
def answered(store):
    ids = add_claims(store, 6)
    run = add_run(store, "r1", {i: ("ok", "Refuted") for i in ids})
    predictions = [store.runs.prediction(run.id, i).id for i in ids]
    return store, run, ids, predictions


def test_each_annotator_has_their_own_label_and_every_change_is_kept(answered):
    store, run, ids, predictions = answered
    triage = store.triage
    assert triage.toggle_category(predictions[0], "ana", 1) is True
    assert triage.toggle_category(predictions[0], "ben", 2) is True
    triage.toggle_category(predictions[0], "ana", 2)
    triage.toggle_category(predictions[0], "ana", 1)  # off again
    triage.set_note(predictions[0], "ana", "the year is wrong")
    triage.set_done(predictions[0], "ana")
    labels = triage.labels(predictions[0])
    assert labels["ana"].category_ids == {2} and labels["ana"].done and labels["ana"].note == "the year is wrong"
    assert labels["ben"].category_ids == {2} and not labels["ben"].done
    history = [(h.annotator, h.kind, h.old, h.new) for h in reversed(triage.history(ids[0]))]
    assert history == [
        ("ana", "categories", [], ["Knowledge Error"]),
        ("ben", "categories", [], ["Flawed Reasoning"]),
        ("ana", "categories", ["Knowledge Error"], ["Knowledge Error", "Flawed Reasoning"]),
        ("ana", "categories", ["Knowledge Error", "Flawed Reasoning"], ["Flawed Reasoning"]),
        ("ana", "note", None, "the year is wrong"),
        ("ana", "done", False, True),
    ]
    assert all(h.run_name == "r1" and h.changed_at for h in triage.history(ids[0]))


def test_a_label_written_as_it_was_adds_no_history(answered):
    store, _, ids, predictions = answered
    store.triage.set_categories(predictions[1], "ana", [3])
    store.triage.set_categories(predictions[1], "ana", [3])
    assert len(store.triage.history(ids[1])) == 1


def test_deleting_a_run_keeps_what_people_wrote_in_the_history(answered):
    store, run, ids, predictions = answered
    store.triage.set_categories(predictions[0], "ana", [1, 4])
    store.triage.set_note(predictions[0], "ana", "see page 2")
    store.judging.set_person_score(predictions[0], "ana", 3.0)
    store.runs.delete(run.id)
    gone = [(h.kind, h.old, h.source, h.run_name) for h in store.triage.history(ids[0]) if h.new is None]
    assert ("categories", ["Knowledge Error", "Misleading Information"], "answer deleted", "r1") in gone
    assert ("note", "see page 2", "answer deleted", "r1") in gone
    assert ("eq score", 3.0, "answer deleted", "r1") in gone


def test_person_scores_and_manual_flags_enter_the_history(answered):
    store, _, ids, predictions = answered
    store.judging.set_person_score(predictions[2], "ana", 4.0)
    store.judging.set_person_score(predictions[2], "ana", 6.0)
    store.annotations.flag([ids[2]], "contaminated", who="ana")
    store.annotations.flag([ids[2]], "contaminated", who="ben")
    store.annotations.unflag([ids[2]], "contaminated", who="ana")
    history = [(h.kind, h.annotator, h.old, h.new) for h in reversed(store.triage.history(ids[2]))]
    assert history == [
        ("eq score", "ana", None, 4.0),
        ("eq score", "ana", 4.0, 6.0),
        ("flag", "ana", None, "contaminated"),
        ("flag", "ben", None, "contaminated"),
        ("flag", "ana", "contaminated", None),
    ]
    assert [f.who for f in store.annotations.flags_for(ids[2])] == ["ben"]


def test_a_second_adjudicator_sees_the_first_decision_and_nothing_is_lost(answered, db_path):
    store, _, ids, predictions = answered
    other = Store.open(db_path)  # another person's connection
    try:
        seen_by_ana = store.triage.adjudication(predictions[0])
        seen_by_ben = other.triage.adjudication(predictions[0])
        assert seen_by_ana is None and seen_by_ben is None
        first = store.triage.adjudicate(predictions[0], [2], "ana's call", "ana", None)
        with pytest.raises(AdjudicationConflict) as conflict:
            other.triage.adjudicate(predictions[0], [1], "ben's call", "ben", None)
        assert conflict.value.current == first and conflict.value.current.adjudicator == "ana"
        second = other.triage.adjudicate(predictions[0], [1], "ben, having seen ana's", "ben", first.version)
        assert second.version == 2 and second.category_ids == {1}
    finally:
        other.close()
    decisions = [(h.annotator, h.old, h.new) for h in reversed(store.triage.history(ids[0]))]
    assert decisions == [
        ("ana", None, {"categories": ["Flawed Reasoning"], "note": "ana's call"}),
        (
            "ben",
            {"categories": ["Flawed Reasoning"], "note": "ana's call", "by": "ana"},
            {"categories": ["Knowledge Error"], "note": "ben, having seen ana's"},
        ),
    ]


def test_importing_the_same_labels_twice_changes_nothing_the_second_time(answered):
    store, _, ids, predictions = answered
    rows = [
        ImportedLabel(predictions[0], "ana", frozenset({1}), "imported note"),
        ImportedLabel(predictions[1], "ben", frozenset()),
    ]
    first = store.triage.import_labels(rows, by="lead", source="import:labels.csv")
    again = store.triage.import_labels(rows, by="lead", source="import:labels.csv")
    assert (first.added, first.changed, first.unchanged) == (2, 0, 0)
    assert (again.added, again.changed, again.unchanged) == (0, 0, 2)
    assert store.triage.label(predictions[1], "ben").done  # an empty set, finished: "no category fits"
    assert {h.changed_by for h in store.triage.history(ids[0])} == {"lead"}


def test_a_queue_serves_the_next_item_not_done_and_counts_progress(answered):
    store, run, ids, predictions = answered
    plan = [(predictions[i], "ana") for i in (3, 1, 2)] + [(predictions[1], "ben")]
    round_, given = store.assignments.create_round(
        run.id, "run:r1 wrong", ["ana", "ben"], 0.5, 2, 7, True, "lead", plan
    )
    assert given == {"ana": 3, "ben": 1} and round_.blind
    assert [item.claim_id for item in store.assignments.queue(run.id, "ana")] == [ids[3], ids[1], ids[2]]
    store.triage.set_done(predictions[3], "ana")
    assert store.assignments.next_item(run.id, "ana").claim_id == ids[1]
    assert store.assignments.next_item(run.id, "ana", after_position=1).claim_id == ids[2]
    assert store.assignments.progress(run.id, "ana").left == 2
    assert store.assignments.blind_for("ben", [predictions[1], predictions[3]]) == {predictions[1]}
    store.triage.set_done(predictions[1], "ben")
    assert store.assignments.blind_for("ben", [predictions[1]]) == set()
    again, given = store.assignments.create_round(
        run.id, "run:r1 wrong", ["ana"], 0, 1, None, False, "lead", [(predictions[3], "ana"), (predictions[5], "ana")]
    )
    assert given == {"ana": 1}  # the item ana already has stays where it was
    assert store.assignments.queue(run.id, "ana")[-1].position == 3


def test_upgrading_a_single_voice_database_attributes_every_label(db_path):
    names = list(KNOWN)
    old = open_database(db_path)
    apply_migrations(old, stop_before="m015_team_triage")
    old.executescript("""
        INSERT INTO datasets (name, source_format, label_space, labels, imported_at)
            VALUES ('old', 'jsonl', 'jsfactcheck', '["Supported", "Refuted"]', '2024-01-01');
        INSERT INTO claims (id, dataset_id, external_id, text, label, content_hash) VALUES
            (1, 1, 'a', 'first', 'Supported', 'h'), (2, 1, 'b', 'second', 'Supported', 'h');
        INSERT INTO runs (id, name, dataset_id, model, created_at) VALUES (1, 'r', 1, 'm', '2024-01-01');
        INSERT INTO predictions (id, run_id, claim_id, status, verdict, created_at) VALUES
            (1, 1, 1, 'ok', 'Refuted', '2024-01-01'), (2, 1, 2, 'ok', 'Refuted', '2024-01-01');
        INSERT INTO triage_entries (prediction_id, category_id, note, who, created_at) VALUES
            (1, 1, NULL, 'ana', '2024-02-01'), (1, 2, NULL, 'ana', '2024-02-01'), (2, 3, NULL, NULL, '2024-02-02');
        INSERT INTO triage_reviews (prediction_id, reviewed, note, who, updated_at) VALUES
            (1, 1, 'old note', 'ana', '2024-02-03'), (2, 0, 'nobody signed', '', '2024-02-04');
        INSERT INTO flags (claim_id, kind, source, who, created_at) VALUES
            (1, 'contaminated', 'manual', NULL, '2024-03-01'), (2, 'contaminated', 'pipeline', NULL, '2024-03-01');
        INSERT INTO judgments (prediction_id, judge_model, score, created_at) VALUES (1, 'person:ana', 7, '2024-04-01');
    """)
    old.close()
    store = Store.open(db_path)
    assert applied_migrations(store.conn) == names
    first, second = store.triage.labels(1), store.triage.labels(2)
    assert first["ana"].category_ids == {1, 2} and first["ana"].done and first["ana"].note == "old note"
    assert second[UNATTRIBUTED].category_ids == {3} and second[UNATTRIBUTED].note == "nobody signed"
    assert [(f.source, f.who) for f in store.annotations.flags_for(1) + store.annotations.flags_for(2)] == [
        ("manual", UNATTRIBUTED),
        ("pipeline", None),
    ]
    history = {(h.kind, h.annotator, json.dumps(h.new), h.source, h.changed_at) for h in store.triage.history(1)}
    assert ("categories", "ana", '["Knowledge Error", "Flawed Reasoning"]', "before history", "2024-02-01") in history
    assert ("eq score", "ana", "7.0", "before history", "2024-04-01") in history
    assert store.claims.count("run:r reviewed") == 1 and store.claims.count("triage:lost-in-complex-text") == 1


def test_nothing_people_wrote_is_lost_when_a_run_or_the_pipeline_scores_again(answered):
    from store import Flag, Prediction

    store, run, ids, predictions = answered
    store.triage.set_categories(predictions[0], "ana", [1])
    store.triage.set_done(predictions[0], "ana", note="kept")
    store.judging.set_person_score(predictions[0], "ana", 3.0)
    store.annotations.flag([ids[0]], "contaminated", who="ana")
    store.runs.record(
        Prediction(
            run_id=run.id, claim_id=ids[0], status="ok", verdict="Supported", explanation="asked again, answered anew"
        )
    )  # a resumed or re-run answer
    store.annotations.set_pipeline_flags(
        [Flag(claim_id=ids[1], kind="contaminated", source="pipeline", model="m", metric="meteor", score=0.9)],
        "contaminated",
        "m",
        "meteor",
    )
    assert store.runs.prediction(run.id, ids[0]).id == predictions[0]
    label = store.triage.label(predictions[0], "ana")
    assert label.category_ids == {1} and label.done and label.note == "kept"
    assert store.judging.person_scores(run.id) == {"ana": {ids[0]: 3.0}}
    assert [(f.who, f.source) for f in store.annotations.flags_for(ids[0])] == [("ana", "manual")]
